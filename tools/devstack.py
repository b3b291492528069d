"""`make run`: start coreapi, prerender, the demo shop and the demo recipe blog on loopback; Ctrl-C (or SIGTERM)
stops them all.

Ports come from COREAPI_PORT (8001), PRERENDER_PORT (8000), SHOP_PORT (8080) and PUBLISHER_PORT (8090). Before
the servers start, coreapi's database is migrated and seeded (`init-db`), then its suppliers' `local` routing is
pointed at this stack's shop and blog (`set-site-urls`), so every link between the sites follows the ports.

The terminal shows the addresses and the errors; each process's whole output (the request log lines among it)
goes to its file under `.run/logs/` (LOG_DIR), started afresh at each run.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from plumbing.instance_keys import instance_key

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
READY_TIMEOUT_SECONDS = 30
LOG_DIR = ROOT / ".run" / "logs"
# The key of coreapi's log pseudonyms (COREAPI_LOG_PSEUDONYM_KEY) for `make run`: made once in the instance
# folder, beside coreapi's service key, so the same shopper reads the same in every process and run.
PSEUDONYM_KEY_FILE = ROOT / "instance" / "coreapi-log-pseudonym-key"
# The demo sites' keys for their signed identity cookies (examples/identity_cookies.py), made once there too: a
# visitor stays who they were across runs, and a key per process would make each process refuse the others' cookies.
SHOP_KEY_FILE = ROOT / "instance" / "shop-secret-key"
PUBLISHER_KEY_FILE = ROOT / "instance" / "publisher-secret-key"
# Lines of a process's output that the terminal shows: a JSON log line at ERROR or CRITICAL (prerender),
# a text one naming those levels (coreapi, the shop, the blog, gunicorn's `[ERROR]`), and Python tracebacks.
ERROR_LEVELS = frozenset({"ERROR", "CRITICAL"})
ERROR_WORD = re.compile(r"(?:^|[\s\[])(?:ERROR|CRITICAL)(?:[\s\]:]|$)")


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
        Service("coreapi", coreapi_port, "coreapi.wsgi:app", "/healthz", coreapi_environ()),
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
            {
                "SHOP_PRERENDER_URL": prerender_url,
                "SHOP_COREAPI_URL": coreapi_url,
                "GUNICORN_WORKERS": "1",
                **key_environ("SHOP_SECRET_KEY", SHOP_KEY_FILE),
            },
        ),
        # The recipe blog (a publisher): prerender's add-to-cart button on its recipes sends readers to the shop.
        Service(
            "publisher",
            publisher_port,
            "examples.publisher.wsgi:app",
            "/healthz",
            {"PUBLISHER_PRERENDER_URL": prerender_url, **key_environ("PUBLISHER_SECRET_KEY", PUBLISHER_KEY_FILE)},
        ),
    ]


def coreapi_environ() -> dict[str, str]:
    """What coreapi's processes get besides the shell's: a pseudonym key of its own for the logs (from the
    instance file, made on the first run) unless the shell sets COREAPI_LOG_PSEUDONYM_KEY; without one, each
    process would warn that it made up a random key."""
    return key_environ("COREAPI_LOG_PSEUDONYM_KEY", PSEUDONYM_KEY_FILE)


def key_environ(variable: str, path: Path) -> dict[str, str]:
    """A key for `variable`: none when the shell sets it, else the instance file's (made on the first run, owner
    only: plumbing/instance_keys.py, as prerender's own keys)."""
    if os.environ.get(variable):
        return {}
    return {variable: instance_key(path, min_length=32)}


def setup_commands(stack: list[Service]) -> list[list[str]]:
    """What runs before the servers: coreapi's database migrated and seeded, then the suppliers' `local`
    routing pointed at this stack's shop (retailers) and blog (publishers), an existing database too."""
    urls = {service.name: service.url for service in stack}
    flask = [str(BIN / "flask"), "--app", "coreapi"]
    return [
        [*flask, "init-db"],
        [*flask, "set-site-urls", "--retailer-url", urls["shop"], "--publisher-url", urls["publisher"]],
    ]


def is_error(line: str) -> bool:
    """Whether an output line reports an error (see ERROR_WORD)."""
    text = line.strip()
    if text.startswith("{"):
        try:
            entry = json.loads(text)
        except ValueError:
            entry = None
        if isinstance(entry, dict):
            return str(entry.get("level", "")).upper() in ERROR_LEVELS
    return text.startswith("Traceback") or ERROR_WORD.search(text) is not None


def route_output(name: str, lines: Iterable[str], log: IO[str], terminal: IO[str]) -> None:
    """Every line to the log file; the errors also to the terminal, named by their process. A traceback is
    shown whole: its indented lines and the exception line that ends it."""
    in_traceback = False
    for line in lines:
        log.write(line)
        log.flush()
        if in_traceback:
            in_traceback = line[:1].isspace()
            shown = True
        else:
            in_traceback = line.startswith("Traceback")
            shown = is_error(line)
        if shown:
            terminal.write(f"[{name}] {line}" if line.endswith("\n") else f"[{name}] {line}\n")
            terminal.flush()


def log_path(name: str) -> Path:
    """The log file of a process of the stack, relative to the checkout (as the terminal names it)."""
    return (LOG_DIR / f"{name}.log").relative_to(ROOT)


def fresh_logs(stack: list[Service]) -> None:
    """Empty log files for this run (the setup's output goes to coreapi's)."""
    LOG_DIR.mkdir(parents=True, exist_ok=True)
    for service in stack:
        (ROOT / log_path(service.name)).write_text("")


def run_setup(stack: list[Service]) -> None:
    """The setup commands, their output to coreapi's log; a failure shows it and stops `make run`."""
    env = {**os.environ, **next(s.env for s in stack if s.name == "coreapi")}
    with (ROOT / log_path("coreapi")).open("a") as log:
        for command in setup_commands(stack):
            result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
            log.write(result.stdout + result.stderr)
            if result.returncode != 0:
                sys.stderr.write(result.stdout + result.stderr)
                raise SystemExit(f"{' '.join(command[1:])} failed (status {result.returncode})")


def start(service: Service) -> subprocess.Popen[str]:
    """The service's server, its output routed by a thread (route_output) to its log file and the terminal."""
    process = subprocess.Popen(
        service.command(),
        cwd=ROOT,
        env={**os.environ, **service.env},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        bufsize=1,
    )
    assert process.stdout is not None
    log = (ROOT / log_path(service.name)).open("a")

    def copy() -> None:
        with log:
            route_output(service.name, process.stdout or (), log, sys.stderr)

    threading.Thread(target=copy, name=f"{service.name}-output", daemon=True).start()
    return process


def wait_until_ready(service: Service, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"{service.name} exited with status {process.returncode} (see {log_path(service.name)})")
        try:
            with urllib.request.urlopen(service.url + service.health_path, timeout=1):
                return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.2)
    raise SystemExit(
        f"{service.name} did not answer on {service.url} within {READY_TIMEOUT_SECONDS}s (see {log_path(service.name)})"
    )


def main() -> int:
    stack = services()
    fresh_logs(stack)
    run_setup(stack)
    running: list[tuple[Service, subprocess.Popen[str]]] = []

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
        for service in stack:
            process = start(service)
            running.append((service, process))
            wait_until_ready(service, process)
        print("\nprerender is running:", flush=True)
        for service, _process in running:
            print(f"  {service.name:<10} {service.url}   log: {log_path(service.name)}", flush=True)
        print(
            "\nOpen the demo shop (shop) or the recipe blog (publisher). Errors show here; every request is in the"
            " logs.\nCtrl-C stops them all.\n",
            flush=True,
        )
        while all(process.poll() is None for _service, process in running):
            time.sleep(0.5)
        failed = [service.name for service, process in running if process.poll() is not None]
        logs = ", ".join(str(log_path(name)) for name in failed)
        print(f"stopped: {', '.join(failed)} exited (see {logs})", file=sys.stderr)
        stop()
    except BaseException:
        stop()
        raise
    return 0


if __name__ == "__main__":
    sys.exit(main())
