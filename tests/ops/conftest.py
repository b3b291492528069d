"""Operations tests: the shipped deploy/ files run for real. nginx is Debian's package (.ci/run installs
it), run as the current user with a temporary prefix, in front of the live servers of tests/live.py or of
prerender under gunicorn with gunicorn.conf.py (`make run`'s command, tools/devstack.py)."""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Self

import pytest

from bench.nginx import NginxFront, find_nginx
from tests.live import Stack, use_live_servers
from tests.stacks import DEFAULT_STACK, only_stack_under

ROOT = Path(__file__).resolve().parents[2]
READY_SECONDS = 30


def pytest_configure(config: pytest.Config) -> None:
    use_live_servers(config)  # this folder's tests call prerender and coreapi on loopback (tests/live.py)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def load_devstack():
    """tools/devstack.py (not a package): its Service builds `make run`'s gunicorn command."""
    spec = importlib.util.spec_from_file_location("devstack", ROOT / "tools" / "devstack.py")
    assert spec is not None and spec.loader is not None
    module = sys.modules.get(spec.name) or importlib.util.module_from_spec(spec)
    if spec.name not in sys.modules:
        sys.modules[spec.name] = module  # its dataclass looks its module up there
        spec.loader.exec_module(module)
    return module


class ChildServer(ABC):
    """A server run as a child process we stop by its pid: `command` in `cwd` with `env`, its output in `log`;
    `start` waits until `ready()` answers, `stop` is SIGTERM then SIGKILL if it lingers."""

    name = "server"
    ready_seconds: float = READY_SECONDS
    command: list[str]
    cwd: Path
    env: dict[str, str]
    log: Path
    process: subprocess.Popen[bytes] | None = None

    @abstractmethod
    def ready(self) -> bool:
        """Whether the server answers its health check now (an OSError while it starts counts as not yet)."""

    def start(self) -> None:
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(self.command, cwd=self.cwd, env=self.env, stdout=log, stderr=log)
        deadline = time.monotonic() + self.ready_seconds
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.process.returncode}: {self.logs()}")
            try:
                if self.ready():
                    return
            except OSError:
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"{self.name} did not answer within {self.ready_seconds}s: {self.logs()}")
            time.sleep(0.1)

    def stop(self) -> None:
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

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()


def health_answers_200(port: int) -> bool:
    """Whether the server on 127.0.0.1:`port` answers `GET /healthz` with a 200 (a ChildServer's `ready`)."""
    with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: ready\r\nConnection: close\r\n\r\n")
        return sock.recv(64).startswith(b"HTTP/1.1 200")


class GunicornPrerender(ChildServer):
    """prerender under gunicorn with gunicorn.conf.py, the command of `make run` (tools/devstack.py), on a free
    loopback port, as a child process stopped by its pid. Two workers, as `make run` starts on a 2-CPU machine,
    whatever the machine and the developer's GUNICORN_* variables; `worker_class` overrides the file's choice
    through GUNICORN_WORKER_CLASS. Multiprocess metrics in `metrics_dir`, as `make run` sets them. `release` is the
    folder it runs from (its `wsgi.py`, `gunicorn.conf.py` and packages): this checkout, or a copy made as another
    release would be (tests/ops/test_rolling_deploy.py)."""

    name = "gunicorn"

    def __init__(
        self,
        prefix: Path,
        upstream_url: str,
        stack: Stack,
        worker_class: str | None = None,
        workers: int = 2,
        environ: Mapping[str, str] | None = None,
        release: Path = ROOT,
    ) -> None:
        self.prefix = prefix
        self.port = free_port()
        service = load_devstack().Service("prerender", self.port, "wsgi:app", "/healthz", {})
        # The release's own gunicorn.conf.py in place of this checkout's.
        own_config = {str(ROOT / "gunicorn.conf.py"): str(release / "gunicorn.conf.py")}
        self.command = [own_config.get(part, part) for part in service.command()]
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
            # A release of the same deployment: the same signing keys and upstream service key as this checkout's.
            **({"PRERENDER_INSTANCE_PATH": str(ROOT / "instance")} if release != ROOT else {}),
            **(environ or {}),
        }
        if release != ROOT:
            # Its packages before the installed ones (an editable install's finder comes after the path).
            self.env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(release), os.environ.get("PYTHONPATH")]))
        self.log = prefix / "gunicorn.log"
        self.cwd = release

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def ready(self) -> bool:
        return health_answers_200(self.port)


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
