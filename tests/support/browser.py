"""A real headless Chromium for the report tests, driven by Selenium through the Debian ``chromedriver``
(no browser download: Selenium Manager is kept offline and given both paths)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

__all__ = ["BrowserMissing", "find_browser", "headless_chromium"]

_CHROMIUM_ARGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1400,1000",
)


class BrowserMissing(RuntimeError):
    """Chromium or chromedriver is not installed."""


def find_browser() -> tuple[str, str]:
    """Paths of Chromium and chromedriver (``CHROMIUM`` / ``CHROMEDRIVER`` override the search)."""
    chromium = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    driver = os.environ.get("CHROMEDRIVER") or shutil.which("chromedriver")
    if not chromium or not driver:
        raise BrowserMissing(
            "Chromium and chromedriver are needed (Debian: apt-get install -y chromium chromium-driver)"
        )
    return chromium, driver


@contextmanager
def headless_chromium(profile: Path) -> Iterator[webdriver.Chrome]:
    """A headless Chromium session (browser console logged) with its profile in ``profile``."""
    chromium, driver = find_browser()
    os.environ.setdefault("SE_OFFLINE", "true")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in (*_CHROMIUM_ARGS, f"--user-data-dir={profile / 'chromium'}"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=driver, log_output=str(profile / "chromedriver.log"))
    browser = webdriver.Chrome(options=options, service=service)
    try:
        yield browser
    finally:
        browser.quit()
