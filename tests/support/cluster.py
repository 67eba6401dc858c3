"""A real Spark standalone cluster on loopback, from the installed PySpark distribution: one master and one
worker JVM (``spark-class org.apache.spark.deploy.master.Master`` / ``...worker.Worker``), started for a
test and stopped after it. No fake cluster."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["standalone_cluster"]

_READY_S = 120
"""How long the master and the worker get to come up on a loaded machine (a readiness wait)."""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _spark_class() -> str:
    import pyspark

    return str(Path(pyspark.__file__).parent / "bin" / "spark-class")


def _wait_for(url: str, needle: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + _READY_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"exited with {process.returncode}: {log.read_text(errors='replace')[-2000:]}")
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if needle in response.read().decode("utf-8", "replace"):
                    return
        except OSError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"not ready after {_READY_S} s: {log.read_text(errors='replace')[-2000:]}")


@contextmanager
def standalone_cluster(work: Path, *, cores: int = 2, memory: str = "2g") -> Iterator[str]:
    """Start a master and a worker on 127.0.0.1; yield the master URL (``spark://127.0.0.1:PORT``)."""
    env = {
        **os.environ,
        "SPARK_LOCAL_IP": "127.0.0.1",
        "PYSPARK_PYTHON": sys.executable,
        "SPARK_WORKER_DIR": str(work / "worker"),
        "SPARK_LOG_DIR": str(work / "logs"),
    }
    port, ui, worker_ui = _free_port(), _free_port(), _free_port()
    master_url = f"spark://127.0.0.1:{port}"
    logs = {name: work / f"{name}.log" for name in ("master", "worker")}
    processes: list[subprocess.Popen[bytes]] = []
    try:
        with logs["master"].open("wb") as out:
            master = subprocess.Popen(
                [_spark_class(), "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port",
                 str(port), "--webui-port", str(ui)],
                stdout=out, stderr=subprocess.STDOUT, env=env,
            )  # fmt: skip
        processes.append(master)
        _wait_for(f"http://127.0.0.1:{ui}/json/", '"status"', master, logs["master"])
        with logs["worker"].open("wb") as out:
            worker = subprocess.Popen(
                [_spark_class(), "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1", "--cores",
                 str(cores), "--memory", memory, "--webui-port", str(worker_ui), master_url],
                stdout=out, stderr=subprocess.STDOUT, env=env,
            )  # fmt: skip
        processes.append(worker)
        _wait_for(f"http://127.0.0.1:{ui}/json/", '"aliveworkers" : 1', master, logs["master"])
        yield master_url
    finally:
        for process in reversed(processes):
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
