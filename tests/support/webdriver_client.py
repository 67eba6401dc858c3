"""A minimal W3C WebDriver client over urllib (standard library) for the report's browser test.

It starts ``chromedriver`` on a free localhost port and drives a headless Chromium with no network
services (no downloads: the Debian ``chromium`` and ``chromium-driver`` packages). Only what the test
needs: open a page, run a script, ask for an open alert, read the browser console log.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["BrowserMissing", "WebDriver", "WebDriverError", "find_browser", "headless_chromium"]

_CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
)
_READY_ATTEMPTS = 300
"""chromedriver gets this many tenths of a second to answer /status (a readiness wait, not an assertion)."""


class WebDriverError(RuntimeError):
    """A WebDriver command failed; the message carries the driver's error and message."""

    def __init__(self, status: int, error: str, message: str) -> None:
        super().__init__(f"HTTP {status} {error}: {message}")
        self.error = error


class BrowserMissing(RuntimeError):
    """Chromium or chromedriver is not installed."""


def find_browser() -> tuple[str, str]:
    """The paths of ``chromium`` and ``chromedriver``; raises ``BrowserMissing`` naming what is absent."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    missing = [name for name, path in (("chromium", chromium), ("chromedriver", driver)) if path is None]
    if missing or chromium is None or driver is None:
        raise BrowserMissing(
            f"{' and '.join(missing)} not found on PATH (apt-get install -y chromium chromium-driver)"
        )
    return chromium, driver


def _request(method: str, url: str, body: dict[str, Any] | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode("utf-8")
    request = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json; charset=utf-8"}
    )
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return json.loads(response.read().decode("utf-8")).get("value")
    except urllib.error.HTTPError as failure:
        try:
            value = json.loads(failure.read().decode("utf-8")).get("value", {})
        except json.JSONDecodeError:
            value = {}
        error, message = str(value.get("error", "")), str(value.get("message", ""))
        raise WebDriverError(failure.code, error, message) from None


@dataclass
class WebDriver:
    """One WebDriver session."""

    base: str
    session: str

    def _url(self, path: str) -> str:
        return f"{self.base}/session/{self.session}{path}"

    def open(self, url: str) -> None:
        """Navigate and wait for the page to load."""
        _request("POST", self._url("/url"), {"url": url})

    def execute(self, script: str, *args: Any) -> Any:
        """Run ``script`` (a function body; ``arguments`` holds ``args``) and return its value."""
        return _request("POST", self._url("/execute/sync"), {"script": script, "args": list(args)})

    def alert_text(self) -> str | None:
        """The text of an open alert, or ``None`` when there is none."""
        try:
            return str(_request("GET", self._url("/alert/text")))
        except WebDriverError as error:
            if error.error == "no such alert":
                return None
            raise

    def console(self) -> list[dict[str, Any]]:
        """Browser console entries since the last call (chromedriver's log endpoint)."""
        for path in ("/se/log", "/log"):
            try:
                return list(_request("POST", self._url(path), {"type": "browser"}) or [])
            except WebDriverError as error:
                if error.error not in ("unknown command", "unknown method"):
                    raise
        raise WebDriverError(404, "unknown command", "this chromedriver has no log endpoint")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_ready(base: str, process: subprocess.Popen[bytes]) -> None:
    for _ in range(_READY_ATTEMPTS):
        if process.poll() is not None:
            raise RuntimeError(f"chromedriver exited with code {process.returncode}")
        try:
            if _request("GET", f"{base}/status").get("ready"):
                return
        except (OSError, WebDriverError):
            pass
        time.sleep(0.1)
    raise RuntimeError("chromedriver did not become ready")


@contextmanager
def headless_chromium(profile: Path) -> Iterator[WebDriver]:
    """A headless Chromium session (console logging on) with its profile in ``profile``; stops both after."""
    chromium, driver = find_browser()
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    log = (profile / "chromedriver.log").open("wb")
    process = subprocess.Popen(
        [driver, f"--port={port}"],
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "HOME": str(profile)},
    )
    session = None
    try:
        _wait_ready(base, process)
        options = {"binary": chromium, "args": [*_CHROMIUM_ARGS, f"--user-data-dir={profile / 'chromium'}"]}
        capabilities = {
            "browserName": "chrome",
            "goog:chromeOptions": options,
            "goog:loggingPrefs": {"browser": "ALL"},
        }
        created = _request("POST", f"{base}/session", {"capabilities": {"alwaysMatch": capabilities}})
        session = WebDriver(base, str(created["sessionId"]))
        yield session
    finally:
        if session is not None:
            with suppress(OSError, WebDriverError):
                _request("DELETE", f"{base}/session/{session.session}")
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()
