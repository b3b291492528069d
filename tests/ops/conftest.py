"""Operations tests: the shipped deploy/ files run for real. nginx is Debian's package (.ci/run installs
it), run as the current user with a temporary prefix, in front of the live servers of tests/live.py or of
prerender under gunicorn with gunicorn.conf.py (`make run`'s command, tools/devstack.py)."""

from __future__ import annotations

import importlib.util
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from tests.live import DEFAULT_STACK, Stack, only_stack_under

ROOT = Path(__file__).resolve().parents[2]
SHIPPED_CONFIG = ROOT / "deploy" / "nginx" / "prerender.conf"
READY_SECONDS = 30


def find_nginx() -> str | None:
    """Debian installs nginx in /usr/sbin, which a non-root PATH often lacks."""
    found = shutil.which("nginx")
    if found:
        return found
    return "/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def render_site(*, upstream: str, port: int, cache_dir: Path, access_log: Path) -> str:
    """The shipped file with its EDIT values replaced; each must be there exactly once, so a change to the
    file that the test would silently miss fails here instead."""
    text = SHIPPED_CONFIG.read_text()
    replacements = [
        ("server 127.0.0.1:8000;", f"server {upstream};"),
        ("proxy_cache_path /var/cache/nginx/prerender ", f"proxy_cache_path {cache_dir} "),
        ("listen 80;", f"listen 127.0.0.1:{port};"),
        ("listen [::]:80;", ""),
        ("/var/log/nginx/prerender.access.log", str(access_log)),
    ]
    for old, new in replacements:
        assert text.count(old) == 1, f"{SHIPPED_CONFIG}: expected {old!r} exactly once"
        text = text.replace(old, new)
    return text


class NginxFront:
    """nginx with the shipped site config, in the foreground as a child process, stopped by its pid."""

    def __init__(self, binary: str, prefix: Path, upstream_url: str) -> None:
        self.binary = binary
        self.prefix = prefix
        self.upstream = upstream_url.removeprefix("http://").rstrip("/")
        self.port = free_port()
        self.conf = prefix / "nginx.conf"
        self.error_log = prefix / "error.log"
        self.access_log = prefix / "access.log"
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def write_config(self) -> None:
        temp = self.prefix / "temp"
        for name in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
            (temp / name).mkdir(parents=True, exist_ok=True)
        site = self.prefix / "prerender.conf"
        site.write_text(
            render_site(
                upstream=self.upstream, port=self.port, cache_dir=self.prefix / "cache", access_log=self.access_log
            )
        )
        # Run as whoever runs the tests: as root, workers would otherwise drop to `nobody`, who cannot read
        # pytest's private temporary folders. (For another user nginx ignores `user`, with a warning.)
        user = f"user {pwd.getpwuid(os.geteuid()).pw_name};" if os.geteuid() == 0 else ""
        # worker_connections: Debian's nginx.conf (one worker here; Debian runs one per CPU).
        self.conf.write_text(f"""
{user}
worker_processes 1;
pid {self.prefix}/nginx.pid;
error_log {self.error_log} notice;
events {{ worker_connections 768; }}
http {{
    default_type application/octet-stream;
    client_body_temp_path {temp}/body;
    proxy_temp_path {temp}/proxy;
    fastcgi_temp_path {temp}/fastcgi;
    uwsgi_temp_path {temp}/uwsgi;
    scgi_temp_path {temp}/scgi;
    include {site};
}}
""")

    def command(self, *extra: str) -> list[str]:
        return [self.binary, "-p", str(self.prefix), "-c", str(self.conf), "-e", str(self.error_log), *extra]

    def check(self) -> subprocess.CompletedProcess:
        """`nginx -t`: the rendered configuration is valid."""
        return subprocess.run(self.command("-t"), capture_output=True, text=True, timeout=30)

    def start(self) -> None:
        self.write_config()
        checked = self.check()
        assert checked.returncode == 0, checked.stderr
        with open(self.prefix / "stderr.log", "wb") as stderr:
            self.process = subprocess.Popen(self.command("-g", "daemon off;"), stdout=subprocess.DEVNULL, stderr=stderr)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"nginx exited with {self.process.returncode}: {self.logs()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"nginx did not listen on {self.port}: {self.logs()}")

    def stop(self) -> None:
        """Graceful stop (SIGQUIT) of the master we started, then SIGKILL if it lingers."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGQUIT)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)

    def logs(self) -> str:
        """What nginx said, for failure messages."""
        files = (self.prefix / "stderr.log", self.error_log)
        return "\n".join(path.read_text() for path in files if path.exists())

    def __enter__(self) -> NginxFront:
        self.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()


def load_devstack():
    """tools/devstack.py (not a package): its Service builds `make run`'s gunicorn command."""
    spec = importlib.util.spec_from_file_location("devstack", ROOT / "tools" / "devstack.py")
    assert spec is not None and spec.loader is not None
    module = sys.modules.get(spec.name) or importlib.util.module_from_spec(spec)
    if spec.name not in sys.modules:
        sys.modules[spec.name] = module  # its dataclass looks its module up there
        spec.loader.exec_module(module)
    return module


class GunicornPrerender:
    """prerender under gunicorn with gunicorn.conf.py, the command of `make run` (tools/devstack.py), on a free
    loopback port, as a child process stopped by its pid. Two workers, as `make run` starts on a 2-CPU machine,
    whatever the machine and the developer's GUNICORN_* variables; `worker_class` overrides the file's choice
    through GUNICORN_WORKER_CLASS. Multiprocess metrics in `metrics_dir`, as `make run` sets them."""

    def __init__(
        self,
        prefix: Path,
        upstream_url: str,
        stack: Stack,
        worker_class: str | None = None,
        workers: int = 2,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.prefix = prefix
        self.port = free_port()
        service = load_devstack().Service("prerender", self.port, "wsgi:app", "/healthz", {})
        self.command = service.command()
        self.metrics_dir = metrics = prefix / "metrics"
        metrics.mkdir(parents=True, exist_ok=True)
        self.env = {
            **{name: value for name, value in os.environ.items() if not name.startswith("GUNICORN_")},
            **stack.environ(),
            "PRERENDER_UPSTREAM_URL": upstream_url,
            "PRERENDER_LOG_LEVEL": "WARNING",
            "PROMETHEUS_MULTIPROC_DIR": str(metrics),
            "GUNICORN_WORKERS": str(workers),
            **({"GUNICORN_WORKER_CLASS": worker_class} if worker_class else {}),
            **(environ or {}),
        }
        self.log = prefix / "gunicorn.log"
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(self.command, cwd=ROOT, env=self.env, stdout=log, stderr=log)
        deadline = time.monotonic() + READY_SECONDS
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {self.process.returncode}: {self.logs()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock:
                    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: ready\r\nConnection: close\r\n\r\n")
                    if sock.recv(64).startswith(b"HTTP/1.1 200"):
                        return
            except OSError:
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"gunicorn did not answer /healthz within {READY_SECONDS}s: {self.logs()}")
            time.sleep(0.1)

    def stop(self) -> None:
        """Graceful stop (SIGTERM) of the master we started, then SIGKILL if it lingers."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)

    def logs(self) -> str:
        return self.log.read_text(errors="replace")[-4000:] if self.log.exists() else ""

    def __enter__(self) -> GunicornPrerender:
        self.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    only_stack_under(
        Path(__file__).parent,
        items,
        DEFAULT_STACK,
        reason="what nginx caches and forwards does not depend on prerender's backends, which "
        "tests/integration covers on both stacks",
    )


@pytest.fixture(scope="session")
def nginx_binary() -> str:
    binary = find_nginx()
    if binary is None:
        pytest.skip("nginx is not installed: `apt-get install nginx` (Debian's package; .ci/run installs it)")
    return binary


@pytest.fixture(scope="module")
def nginx_front(
    nginx_binary: str, prerender_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[NginxFront]:
    """The shipped nginx config in front of the session's live prerender."""
    with NginxFront(nginx_binary, tmp_path_factory.mktemp("nginx"), prerender_url) as front:
        yield front


@pytest.fixture(scope="session")
def gunicorn_prerender(
    coreapi_url: str, stack: Stack, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[GunicornPrerender]:
    """prerender as `make run` serves it (gunicorn.conf.py as shipped), on the session's live coreapi."""
    with GunicornPrerender(tmp_path_factory.mktemp("gunicorn"), coreapi_url, stack) as server:
        yield server


@pytest.fixture(scope="session")
def nginx_before_gunicorn(
    nginx_binary: str, gunicorn_prerender: GunicornPrerender, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[NginxFront]:
    """The documented deployment: the shipped nginx config in front of prerender under gunicorn."""
    with NginxFront(nginx_binary, tmp_path_factory.mktemp("nginx"), gunicorn_prerender.url) as front:
        yield front


@pytest.fixture(scope="module")
def nginx_before_gthread(
    nginx_binary: str, coreapi_url: str, stack: Stack, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[NginxFront]:
    """The shipped nginx config in front of prerender on gunicorn's gthread workers (a fixed pool of threads,
    which slow clients reaching it would fill): what nginx itself protects, whatever gunicorn runs."""
    gunicorn = GunicornPrerender(tmp_path_factory.mktemp("gthread"), coreapi_url, stack, worker_class="gthread")
    with gunicorn, NginxFront(nginx_binary, tmp_path_factory.mktemp("nginx"), gunicorn.url) as front:
        yield front
