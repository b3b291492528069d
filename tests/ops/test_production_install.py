"""The production install of docs/operations.md, "Production install", followed on this machine: the blocks the
doc marks `<!-- tested: NAME -->` run as written (bash, from a copy of the checkout), in a temporary folder
standing for `/` (the doc's /opt, /etc and /var/lib folders moved under it), minus what needs systemd. Each
service's wheels (its own and the shared plumbing's) are built and installed with exactly their lock files into
fresh virtual environments (pip's cache and the package index only); coreapi is migrated with Alembic and seeded
on a PostgreSQL schema of its own; each service is started as its systemd unit would start it (deploy/systemd:
its ExecStart, in its WorkingDirectory, with its Environment= lines and its environment file read as systemd
reads one), on free ports; nginx runs deploy/nginx/prerender.conf in front of prerender (bench/nginx.py); the
README's card comes back through nginx, with its stylesheet and script served from the installed wheel.

Skipped, with the reason, without nginx or PostgreSQL (tests/ops/conftest.py, tests/databases.py).
"""

from __future__ import annotations

import configparser
import json
import os
import re
import shlex
import shutil
import subprocess
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests
from bs4 import BeautifulSoup
from sqlalchemy.engine import make_url

from bench.nginx import NginxFront
from tests.databases import POSTGRES_URL, PostgresSchemas, RedisNamespace, Unreachable
from tests.ops.conftest import ChildServer, free_port

pytestmark = [pytest.mark.nginx, pytest.mark.postgres]

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "operations.md"
UNITS = ROOT / "deploy" / "systemd"
TESTED_BLOCK = re.compile(r"<!-- tested: (?P<name>[a-z-]+) -->\n```sh\n(?P<script>.*?)```", re.DOTALL)
# The folders of the doc's commands, of the units and of the environment files, moved under the test's root.
MACHINE_FOLDERS = (
    "/opt/prerender",
    "/opt/coreapi",
    "/etc/prerender",
    "/etc/coreapi",
    "/var/lib/prerender",
    "/var/lib/coreapi",
    "/run/prerender",
)
# What a release's checkout holds: no development leftovers (a built wheel of the working tree, a venv).
NOT_RELEASED = shutil.ignore_patterns(
    ".git",
    ".venv",
    "node_modules",
    "static_build",  # the release tree of the browser files: the doc's block builds it
    ".hypothesis",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    "__pycache__",
    "*.egg-info",
    "build",
    "dist",
    ".run",
    "instance",
    "*.sqlite*",
)
INSTALL_SECONDS = 600
READY_SECONDS = 60


@dataclass(frozen=True)
class Machine:
    """The temporary folder standing for the server's `/`, and the release's checkout."""

    root: Path
    release: Path

    def path(self, absolute: str) -> Path:
        return self.root / absolute.lstrip("/")

    def moved(self, text: str) -> str:
        """`text` with the server's folders moved under the root."""
        for folder in MACHINE_FOLDERS:
            text = text.replace(folder, str(self.path(folder)))
        return text


def doc_blocks() -> dict[str, str]:
    """The doc's blocks marked tested, by name."""
    blocks = {match["name"]: match["script"] for match in TESTED_BLOCK.finditer(DOC.read_text())}
    assert set(blocks) == {"prerender", "coreapi", "database", "demo-catalog", "service-key"}, blocks
    return blocks


def run_block(machine: Machine, script: str, env: Mapping[str, str]) -> str:
    """One of the doc's blocks, as written but for the moved folders, from the release's checkout."""
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", machine.moved(script)],
        cwd=machine.release,
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=INSTALL_SECONDS,
    )
    assert done.returncode == 0, f"{script}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def environment_file(path: Path) -> dict[str, str]:
    """systemd's EnvironmentFile=: KEY=VALUE lines, `#` and `;` comments, a value between quotes unquoted."""
    variables: dict[str, str] = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        key, equals, value = line.partition("=")
        assert equals and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key), f"{path}: not KEY=VALUE: {line!r}"
        value = value.strip()
        variables[key] = shlex.split(value)[0] if value[:1] in {"'", '"'} else value
    return variables


def set_variable(path: Path, key: str, value: str | None) -> None:
    """What an operator does to an EDIT line: its value replaced (None: the line removed). The line must be
    there once, so that a renamed setting fails here instead of being silently added."""
    lines = path.read_text().splitlines(keepends=True)
    matching = [index for index, line in enumerate(lines) if line.startswith(f"{key}=")]
    assert len(matching) == 1, f"{path}: expected one {key}= line"
    lines[matching[0]] = "" if value is None else f"{key}={shlex.quote(value)}\n"
    path.write_text("".join(lines))


def add_variable(path: Path, key: str, value: str) -> None:
    with path.open("a") as handle:
        handle.write(f"{key}={shlex.quote(value)}\n")


def read_unit(name: str) -> configparser.ConfigParser:
    unit = configparser.ConfigParser(strict=False, interpolation=None, delimiters=("=",))
    unit.optionxform = str
    unit.read_string((UNITS / name).read_text())
    return unit


def unit_environment(machine: Machine, service: configparser.SectionProxy) -> dict[str, str]:
    """Environment= then EnvironmentFile= (which wins, as in systemd), the folders moved."""
    environment: dict[str, str] = {}
    for line in service.get("Environment", "").splitlines():
        key, _, value = line.strip().partition("=")
        environment[key] = machine.moved(value)
    environment.update(environment_file(Path(machine.moved(service["EnvironmentFile"]))))
    return environment


def exec_start(machine: Machine, service: configparser.SectionProxy, environment: Mapping[str, str]) -> list[str]:
    """ExecStart as systemd runs it: words split, `${NAME}` replaced by the variable's value as one word."""
    words = shlex.split(machine.moved(service["ExecStart"]))
    return [re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}", lambda m: environment[m[1]], word) for word in words]


class Unit(ChildServer):
    """A service started as its systemd unit starts it (without the user switch and the sandboxing): the
    unit's StateDirectory and RuntimeDirectory made (the latter empty), its ExecStart in its WorkingDirectory
    with its environment, as a child process stopped by its pid (SIGTERM: systemd's KillMode=mixed)."""

    def __init__(self, machine: Machine, name: str, base_env: Mapping[str, str]) -> None:
        self.name = name
        self.service = read_unit(f"{name}.service")["Service"]
        self.env = {**base_env, **unit_environment(machine, self.service)}
        self.command = exec_start(machine, self.service, self.env)
        self.cwd = Path(machine.moved(self.service["WorkingDirectory"]))
        for key in ("StateDirectory", "RuntimeDirectory"):
            if key in self.service:
                folder = machine.path(f"/{'var/lib' if key == 'StateDirectory' else 'run'}/{self.service[key]}")
                if key == "RuntimeDirectory":
                    shutil.rmtree(folder, ignore_errors=True)
                folder.mkdir(parents=True, exist_ok=True)
        self.log = machine.root / f"{name}.log"

    @property
    def url(self) -> str:
        return f"http://{self.env['GUNICORN_BIND']}"

    ready_seconds = READY_SECONDS

    def ready(self) -> bool:
        try:
            return requests.get(f"{self.url}/healthz", timeout=2).status_code == 200
        except requests.RequestException:
            return False


@dataclass(frozen=True)
class Installed:
    machine: Machine
    coreapi: Unit
    prerender: Unit
    nginx: NginxFront


def outside_environment() -> dict[str, str]:
    """The test process's environment without the settings of the services (a developer's shell may have
    some): the services get theirs from their environment files only."""
    return {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PRERENDER_", "COREAPI_", "GUNICORN_", "PROMETHEUS_", "VIRTUAL_ENV", "PYTHON"))
    }


@pytest.fixture(scope="module")
def postgres_schema() -> Iterator[str]:
    """coreapi's COREAPI_DATABASE_URL: the test server's database, on a schema of this module
    (search_path in the URL's libpq options), dropped at the end."""
    try:
        schemas = PostgresSchemas(prefix="coreapi_install_")
    except Unreachable as error:
        pytest.skip(str(error))
    try:
        schemas.new_database()
        url = make_url(POSTGRES_URL).update_query_dict({"options": f"-csearch_path={schemas.schemas[-1]}"})
        yield url.render_as_string(hide_password=False)
    finally:
        schemas.close()


@pytest.fixture(scope="module")
def redis_url() -> Iterator[tuple[str, str] | None]:
    """Redis (the example's shared cache) and a key prefix of this module, or None where Redis does not answer
    (the operator's other choice: the line removed, a cache per worker)."""
    try:
        namespace = RedisNamespace()
    except Unreachable:
        yield None
        return
    try:
        yield namespace.url, namespace.prefix
    finally:
        namespace.close()


@pytest.fixture(scope="module")
def installed(
    nginx_binary: str,
    postgres_schema: str,
    redis_url: tuple[str, str] | None,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Installed]:
    base = tmp_path_factory.mktemp("install")
    release = base / "release"
    shutil.copytree(ROOT, release, ignore=NOT_RELEASED)
    machine = Machine(base / "root", release)
    machine.root.mkdir()
    env = outside_environment()
    blocks = doc_blocks()

    # Steps 2 and 3, one after the other as the doc has them: both build the plumbing's wheel in its folder of
    # the checkout (pip builds a local project in place), which two builds at once could trip over.
    for name in ("prerender", "coreapi"):
        run_block(machine, blocks[name], env)

    # Step 4: the EDIT lines, for this machine's free ports, database and Redis (and the folders moved).
    coreapi_port, prerender_port = free_port(), free_port()
    front = NginxFront(nginx_binary, base / "nginx", f"http://127.0.0.1:{prerender_port}")
    coreapi_env, prerender_env = machine.path("/etc/coreapi/coreapi.env"), machine.path("/etc/prerender/prerender.env")
    for installed_env in (coreapi_env, prerender_env):
        installed_env.write_text(machine.moved(installed_env.read_text()))
    set_variable(coreapi_env, "GUNICORN_BIND", f"127.0.0.1:{coreapi_port}")
    set_variable(coreapi_env, "COREAPI_DATABASE_URL", postgres_schema)
    set_variable(coreapi_env, "COREAPI_PUBLIC_URL", f"http://127.0.0.1:{coreapi_port}")
    add_variable(coreapi_env, "GUNICORN_WORKERS", "2")
    set_variable(prerender_env, "GUNICORN_BIND", f"127.0.0.1:{prerender_port}")
    set_variable(prerender_env, "PRERENDER_UPSTREAM_URL", f"http://127.0.0.1:{coreapi_port}")
    set_variable(prerender_env, "PRERENDER_PUBLIC_URL", front.url)
    set_variable(prerender_env, "PRERENDER_CORS_ALLOWED_ORIGINS", '["https://shop.example"]')  # as the example
    set_variable(prerender_env, "PRERENDER_CACHE_REDIS_URL", redis_url[0] if redis_url else None)
    if redis_url:
        add_variable(prerender_env, "PRERENDER_CACHE_KEY_PREFIX", redis_url[1])
    add_variable(prerender_env, "GUNICORN_WORKERS", "2")

    # Steps 5 and 6: the schema, the demo catalog, the shared service key.
    for name in ("database", "demo-catalog", "service-key"):
        run_block(machine, blocks[name], env)

    coreapi = Unit(machine, "coreapi", env)
    prerender = Unit(machine, "prerender", env)
    try:
        coreapi.start()
        prerender.start()
        with front:
            yield Installed(machine, coreapi, prerender, front)
    finally:
        prerender.stop()
        coreapi.stop()


def readme_card_request() -> tuple[str, dict[str, str]]:
    """The README's fixed-recipe card (its headers `H`, the path of its curl line)."""
    readme = (ROOT / "README.md").read_text()
    words = shlex.split(re.search(r"^H=\((.*?)\)$", readme, re.MULTILINE | re.DOTALL)[1])
    headers = dict(word.split(": ", 1) for flag, word in zip(words[::2], words[1::2], strict=True) if flag == "-H")
    path = re.search(r'"\$P(/v1/recipe-card\?recipe_id=1&[^"]*)"', readme)[1]
    return path, headers


def test_the_readme_card_comes_through_nginx_from_the_installed_services(installed: Installed) -> None:
    path, headers = readme_card_request()
    answer = requests.get(installed.nginx.url + path, headers=headers, timeout=10)
    assert answer.status_code == 200, answer.text
    assert answer.headers["Content-Type"].startswith("text/html")
    soup = BeautifulSoup(answer.text, "html5lib")
    card = soup.find("svc-recipe-card")
    assert card is not None, answer.text[:500]
    assert (card["recipe-id"], card["orientation"], card["guests"]) == ("1", "horizontal", "6")
    # From the catalog seeded on PostgreSQL, in French (the wheel's translations), priced at store 1001.
    assert card.get_text(" ", strip=True)
    assert "€" in card.get_text()
    # The links start with PRERENDER_PUBLIC_URL, and nginx serves the wheel's static files.
    scripts = [script["src"] for script in soup.find_all("script", src=True)]
    assert scripts and all(src.startswith(installed.nginx.url + "/static/") for src in scripts)
    for src in scripts:
        asset = requests.get(src, timeout=10)
        assert asset.status_code == 200 and "javascript" in asset.headers["Content-Type"], src
    # The JSON list of the environment file (single-quoted, as systemd reads it) reached prerender's CORS.
    shop = requests.get(installed.nginx.url + path, headers={**headers, "Origin": "https://shop.example"}, timeout=10)
    assert shop.headers.get("Access-Control-Allow-Origin") == "https://shop.example"


def test_the_cards_speak_the_languages_of_the_wheel_s_translations(installed: Installed) -> None:
    """The difficulty of the card, in the words of the installed wheel's prerender/i18n/<language>.json."""
    path, headers = readme_card_request()
    (i18n,) = installed.machine.path("/opt/prerender/lib").glob("python3*/site-packages/prerender/i18n")
    for language in ("fr", "en"):
        answer = requests.get(installed.nginx.url + path, headers={**headers, "language-id": language}, timeout=10)
        assert answer.status_code == 200, answer.text
        difficulty = BeautifulSoup(answer.text, "html5lib").select_one("svc-recipe-card [data-difficulty]")
        assert difficulty is not None, answer.text[:500]
        texts = json.loads((i18n / f"{language}.json").read_text())["RECIPE_CARD"]
        assert difficulty.get_text(strip=True) == texts[f"DIFFICULTY_{difficulty['data-difficulty']}"]


def test_the_services_run_the_installed_wheels_with_their_instance_folders(installed: Installed) -> None:
    machine = installed.machine
    for name, module in (("prerender", "prerender"), ("coreapi", "coreapi")):
        python = machine.path(f"/opt/{name}/bin/python")
        where = subprocess.run(
            [str(python), "-c", f"import {module}; print({module}.__file__)"],
            cwd="/",
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        assert Path(where).is_relative_to(machine.path(f"/opt/{name}/lib")), where
    # Each instance folder holds its keys; prerender calls coreapi with coreapi's key.
    prerender_folder, coreapi_folder = machine.path("/var/lib/prerender"), machine.path("/var/lib/coreapi")
    assert (prerender_folder / "secret-key").stat().st_mode & 0o777 == 0o600
    service_key = (coreapi_folder / "upstream-service-key").read_text()
    assert (prerender_folder / "upstream-service-key").read_text() == service_key
    assert (prerender_folder / "upstream-service-key").stat().st_mode & 0o777 == 0o600
    # The workers' metrics in the unit's RuntimeDirectory.
    assert list(machine.path("/run/prerender").glob("*.db"))
    # The install wrote coreapi's log pseudonym key: no process made up its own.
    assert "COREAPI_LOG_PSEUDONYM_KEY is not set" not in installed.coreapi.log.read_text(errors="replace")
    assert len(environment_file(machine.path("/etc/coreapi/coreapi.env"))["COREAPI_LOG_PSEUDONYM_KEY"]) == 64


def test_the_units_read_their_environment_files_and_the_doc_shows_their_command() -> None:
    """Without any server: what the doc and the environment files rely on."""
    doc = DOC.read_text()
    for name in ("prerender", "coreapi"):
        unit = read_unit(f"{name}.service")
        service = unit["Service"]
        assert service["Type"] == "notify" and service["User"] == name
        assert service["EnvironmentFile"] == f"/etc/{name}/{name}.env"
        assert service["StateDirectory"] == name and service["WorkingDirectory"] == f"/var/lib/{name}"
        assert environment_file(UNITS / f"{name}.env")[f"{name.upper()}_INSTANCE_PATH"] == f"/var/lib/{name}"
        assert unit["Install"]["WantedBy"] == "multi-user.target"
        words = shlex.split(service["ExecStart"])
        assert words[:5] == [
            f"/opt/{name}/bin/gunicorn",
            "--config",
            f"/etc/{name}/gunicorn.conf.py",
            "--bind",
            "${GUNICORN_BIND}",
        ]
        assert f"/etc/{name}/gunicorn.conf.py" in doc and f"deploy/systemd/{name}.service" in doc
    assert f"ExecStart={read_unit('prerender.service')['Service']['ExecStart']}\n" in doc


def test_systemd_accepts_the_units_as_installed(installed: Installed) -> None:
    """`systemd-analyze verify` of each unit with the install's folders (its executables must exist)."""
    verify = shutil.which("systemd-analyze")
    if verify is None:
        pytest.skip("systemd-analyze is not installed (Debian's systemd package)")
    for name in ("prerender", "coreapi"):
        moved = installed.machine.root / f"{name}.service"
        moved.write_text(installed.machine.moved((UNITS / f"{name}.service").read_text()))
        checked = subprocess.run([verify, "verify", str(moved)], capture_output=True, text=True, timeout=60)
        assert checked.returncode == 0 and not checked.stdout + checked.stderr, checked.stdout + checked.stderr
