"""The benchmark's own stack: coreapi on a fresh SQLite, the delaying proxy, prerender; free loopback ports.

Every process is started in its own session and stopped (SIGTERM, then SIGKILL) when the Stack closes.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from types import TracebackType

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from devstack import BIN, Service  # noqa: E402 -- reuse `make run`'s gunicorn command

READY_SECONDS = 30.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_ready(url: str, process: subprocess.Popen[bytes], name: str) -> None:
    deadline = time.monotonic() + READY_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited with status {process.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=1):
                return
        except urllib.error.HTTPError:
            return  # it answers
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.1)
    raise RuntimeError(f"{name} did not answer on {url} within {READY_SECONDS}s")


def worker_pids(master_pid: int) -> list[int]:
    """The gunicorn workers of a master (its children)."""
    children = Path(f"/proc/{master_pid}/task/{master_pid}/children")
    return [int(pid) for pid in children.read_text().split()] if children.exists() else []


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Stack:
    """coreapi <- proxy (delay) <- prerender, all on loopback, logs in a temporary folder."""

    def __init__(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="prerender-bench-"))
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.coreapi_port, self.proxy_port, self.prerender_port = free_port(), free_port(), free_port()
        self.prerender_url = f"http://127.0.0.1:{self.prerender_port}"
        self.proxy_url = f"http://127.0.0.1:{self.proxy_port}"
        self.coreapi_url = f"http://127.0.0.1:{self.coreapi_port}"

    def _start(self, name: str, command: list[str], env: dict[str, str], ready_url: str) -> None:
        log = (self.tmp / f"{name}.log").open("ab")
        self.processes[name] = subprocess.Popen(
            command, cwd=ROOT, env={**os.environ, **env}, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        wait_ready(ready_url, self.processes[name], name)

    def start(self) -> Stack:
        db = {"COREAPI_DATABASE_URL": f"sqlite:///{self.tmp / 'coreapi.sqlite'}"}
        subprocess.run(
            [str(BIN / "flask"), "--app", "coreapi", "init-db"],
            cwd=ROOT,
            check=True,
            env={**os.environ, **db},
            stdout=subprocess.DEVNULL,
        )
        coreapi = Service("coreapi", self.coreapi_port, "coreapi.wsgi:app", "/healthz", db)
        self._start("coreapi", coreapi.command(), coreapi.env, coreapi.url + "/healthz")
        self._start(
            "proxy",
            [sys.executable, "-m", "bench.proxy", str(self.proxy_port), self.coreapi_url],
            {},
            self.proxy_url + "/healthz",
        )
        self.start_prerender("prerender", self.prerender_port, {"PRERENDER_PUBLIC_URL": self.prerender_url})
        return self

    def start_prerender(self, name: str, port: int, env: dict[str, str] | None = None) -> str:
        """A prerender node on `port` (the bench starts one; figure 10 a second one), upstream the proxy; its URL.
        The nodes of one machine share instance/secret-key: a credential one issued verifies on the others."""
        url = f"http://127.0.0.1:{port}"
        service = Service(name, port, "wsgi:app", "/healthz", {"PRERENDER_UPSTREAM_URL": self.proxy_url, **(env or {})})
        self._start(name, service.command(), service.env, url + "/healthz")
        return url

    def kill(self, name: str) -> None:
        """A process and its children (gunicorn's workers) SIGKILLed: a node that dies, nothing graceful."""
        process = self.processes[name]
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=15)

    def set_delay(self, milliseconds: int, paths: tuple[str, ...] = (), *, supplier_token: str | None = None) -> None:
        """Delay every upstream call, or only the calls to `paths` (the query aside), or only those made for the
        supplier of `supplier_token` (bench/proxy.py, `SupplierCalls`)."""
        query = f"ms={milliseconds}" + (f"&paths={','.join(paths)}" if paths else "")
        if supplier_token is not None:
            query += "&" + urllib.parse.urlencode({"supplier_token": supplier_token})
        request = urllib.request.Request(f"{self.proxy_url}/__bench/delay?{query}", method="PUT")
        with urllib.request.urlopen(request, timeout=5):
            pass

    def forwarded(self) -> int:
        """How many upstream requests prerender has made so far (counted by the proxy)."""
        with urllib.request.urlopen(f"{self.proxy_url}/__bench/count", timeout=5) as answer:
            return int(answer.read())

    def stop(self, name: str) -> None:
        process = self.processes.get(name)
        if process is None or process.poll() is not None:
            return
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()

    def prerender_workers(self) -> list[int]:
        return worker_pids(self.processes["prerender"].pid)

    def close(self) -> None:
        for name in reversed(list(self.processes)):
            with contextlib.suppress(ProcessLookupError):
                self.stop(name)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self) -> Stack:
        try:
            return self.start()
        except BaseException:
            self.close()
            raise

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()
