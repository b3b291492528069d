"""`make run`: start coreapi, prerender, the demo shop and the demo recipe blog on loopback; Ctrl-C (or SIGTERM)
stops them all.

Ports come from COREAPI_PORT (8001), PRERENDER_PORT (8000), SHOP_PORT (8080) and PUBLISHER_PORT (8090).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
READY_TIMEOUT_SECONDS = 30


@dataclass(frozen=True)
class Service:
    name: str
    port: int
    app: str
    health_path: str
    env: dict[str, str]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def command(self) -> list[str]:
        return [
            str(BIN / "gunicorn"),
            "--config",
            str(ROOT / "gunicorn.conf.py"),
            "--bind",
            f"127.0.0.1:{self.port}",
            self.app,
        ]


def metrics_dir() -> str:
    """A fresh folder for prerender's multiprocess metrics (samples of a previous run must not count)."""
    folder = ROOT / ".run" / "metrics"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return str(folder)


def services() -> list[Service]:
    coreapi_port = int(os.environ.get("COREAPI_PORT", "8001"))
    prerender_port = int(os.environ.get("PRERENDER_PORT", "8000"))
    shop_port = int(os.environ.get("SHOP_PORT", "8080"))
    publisher_port = int(os.environ.get("PUBLISHER_PORT", "8090"))
    coreapi_url = f"http://127.0.0.1:{coreapi_port}"
    prerender_url = f"http://127.0.0.1:{prerender_port}"
    return [
        Service("coreapi", coreapi_port, "coreapi.wsgi:app", "/healthz", {}),
        Service(
            "prerender",
            prerender_port,
            "wsgi:app",
            "/healthz",
            {
                "PRERENDER_UPSTREAM_URL": os.environ.get("PRERENDER_UPSTREAM_URL", coreapi_url),
                "PRERENDER_PUBLIC_URL": os.environ.get("PRERENDER_PUBLIC_URL", prerender_url),
                "PROMETHEUS_MULTIPROC_DIR": metrics_dir(),
            },
        ),
        Service(
            "shop",
            shop_port,
            "examples.shop.wsgi:app",
            "/healthz",
            # One worker: the demo shop keeps its carts in process memory (examples/shop/carts.py), and two
            # workers would each hold half of them. Its gevent worker serves the demo's concurrency.
            {"SHOP_PRERENDER_URL": prerender_url, "SHOP_COREAPI_URL": coreapi_url, "GUNICORN_WORKERS": "1"},
        ),
        # The recipe blog (a publisher): prerender's add-to-cart button on its recipes sends readers to the shop.
        Service(
            "publisher",
            publisher_port,
            "examples.publisher.wsgi:app",
            "/healthz",
            {"PUBLISHER_PRERENDER_URL": prerender_url},
        ),
    ]


def wait_until_ready(service: Service, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"{service.name} exited with status {process.returncode}")
        try:
            with urllib.request.urlopen(service.url + service.health_path, timeout=1):
                return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.2)
    raise SystemExit(f"{service.name} did not answer on {service.url} within {READY_TIMEOUT_SECONDS}s")


def main() -> int:
    subprocess.run([str(BIN / "flask"), "--app", "coreapi", "init-db"], cwd=ROOT, check=True)
    running: list[tuple[Service, subprocess.Popen]] = []

    def stop(*_: object) -> None:
        for _service, process in reversed(running):
            if process.poll() is None:
                process.terminate()
        for _service, process in running:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        for service in services():
            process = subprocess.Popen(service.command(), cwd=ROOT, env={**os.environ, **service.env})
            running.append((service, process))
            wait_until_ready(service, process)
        print("\nprerender is running:", flush=True)
        for service, _process in running:
            print(f"  {service.name:<10} {service.url}", flush=True)
        print("\nOpen the demo shop (shop) or the recipe blog (publisher). Ctrl-C stops them all.\n", flush=True)
        while all(process.poll() is None for _service, process in running):
            time.sleep(0.5)
        failed = [service.name for service, process in running if process.poll() is not None]
        print(f"stopped: {', '.join(failed)} exited", file=sys.stderr)
        stop()
    except BaseException:
        stop()
        raise
    return 0


if __name__ == "__main__":
    sys.exit(main())
