"""Packaging: prerender's distributions (setup.py, setup.cfg, MANIFEST.in) carry the prerender package
alone, with its templates, static files and translations, and require what prerender imports; the demo
shop (examples/pyproject.toml), coreapi (coreapi/pyproject.toml, its wheel in
tests/coreapi/test_migrations.py) and the plumbing both services share (plumbing/pyproject.toml) declare what
they import.

Built offline from a copy of the working tree (nothing is written into it), with the setuptools and build
of requirements/dev.txt: `python -m build --no-isolation --sdist --wheel`, both from the tree, as `pip
install .` builds its wheel; the sdist is checked to hold the same package files.
"""

from __future__ import annotations

import ast
import importlib.metadata
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from collections.abc import Iterable
from configparser import ConfigParser
from dataclasses import dataclass
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tools.lock import LOCAL_PROJECTS, without_local_pins

ROOT = Path(__file__).resolve().parents[2]
# Not sources: never copied into the build folder.
NOT_SOURCES = shutil.ignore_patterns(
    ".git",
    ".venv",
    "node_modules",
    ".hypothesis",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    "__pycache__",
    "*.py[cod]",
    "build",
    "dist",
    ".run",
    "*.sqlite*",
)
# Declared but never imported: servers, and backends a library loads by name. coreapi and the shop are served
# with the repository's gunicorn.conf.py, which imports prometheus-client (its multiprocess cleanup hook).
USED_WITHOUT_IMPORT = {
    # tzdata: zoneinfo's database where the machine has none (redis, imported by the event quota's counts, is also
    # flask-caching's RedisCache backend)
    "prerender": {"gunicorn", "tzdata"},
    "coreapi": {"gunicorn", "prometheus-client"},
    "examples": {"gunicorn", "prometheus-client"},
    "plumbing": set(),
}
CORE_API_ONLY = {"flask-sqlalchemy", "sqlalchemy", "alembic", "psycopg", "psycopg-binary"}


@dataclass(frozen=True)
class Distributions:
    sdist: list[str]
    wheel: list[str]
    metadata: str


def build(project: Path, out: Path) -> Distributions:
    """The sdist and the wheel of ``project``, both built from its folder."""
    result = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--sdist", "--wheel", "--outdir", str(out), str(project)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    (sdist,) = out.glob("*.tar.gz")
    (wheel,) = out.glob("*.whl")
    with tarfile.open(sdist) as archive:
        sdist_names = [member.name.split("/", 1)[1] for member in archive.getmembers() if member.isfile()]
    with zipfile.ZipFile(wheel) as archive:
        wheel_names = archive.namelist()
        (metadata,) = [name for name in wheel_names if name.endswith(".dist-info/METADATA")]
        return Distributions(sdist_names, wheel_names, archive.read(metadata).decode())


def requirements(metadata: str) -> set[str]:
    """The distributions a wheel's METADATA requires outside any extra."""
    return {
        canonicalize_name(Requirement(line.partition(":")[2].strip()).name)
        for line in metadata.splitlines()
        if line.startswith("Requires-Dist:") and "extra ==" not in line
    }


def files_under(folder: Path) -> set[str]:
    """Every file of a package folder, relative to its parent, as a distribution names them."""
    return {
        path.relative_to(folder.parent).as_posix()
        for path in folder.rglob("*")
        if path.is_file()
        and not path.name.startswith(".")
        and path.suffix not in {".pyc", ".pyo"}
        and not any(part == "__pycache__" or part.endswith(".egg-info") for part in path.parts)
    }


def top_level(names: Iterable[str]) -> set[str]:
    return {name.split("/", 1)[0] for name in names}


def imported_distributions(package: Path) -> set[str]:
    """The installed distributions that provide what the package's modules import (stdlib and the
    package itself aside)."""
    modules: set[str] = set()
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Import):
                modules.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules.add(node.module.split(".")[0])
    modules -= set(sys.stdlib_module_names) | {package.name}
    providers = importlib.metadata.packages_distributions()
    unknown = sorted(module for module in modules if module not in providers)
    assert not unknown, f"{package.name} imports modules no installed distribution provides: {unknown}"
    return {canonicalize_name(dist) for module in modules for dist in providers[module]}


def closure(names: Iterable[str]) -> set[str]:
    """The distributions ``names`` require, directly or not (extras aside), as installed."""
    seen: set[str] = set()
    pending = [canonicalize_name(name) for name in names]
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        for line in importlib.metadata.requires(name) or []:
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                pending.append(canonicalize_name(requirement.name))
    return seen


def pyproject_requirements(path: Path) -> set[str]:
    project = tomllib.loads(path.read_text("utf-8"))["project"]
    return {canonicalize_name(Requirement(line).name) for line in project["dependencies"]}


def check_requirements(package: str, declared: set[str]) -> None:
    """Every import is declared (or comes with a declared distribution); every declared distribution is
    imported, or listed in USED_WITHOUT_IMPORT."""
    imported = imported_distributions(ROOT / package)
    assert imported <= closure(declared), f"{package} imports undeclared {sorted(imported - closure(declared))}"
    assert declared - imported == USED_WITHOUT_IMPORT[package]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the working tree (any stale prerender.egg-info too, as a developer's build would see it)."""
    copy = tmp_path_factory.mktemp("tree") / "prerender"
    shutil.copytree(ROOT, copy, ignore=NOT_SOURCES)
    return copy


@pytest.fixture(scope="module")
def prerender_dists(tree: Path, tmp_path_factory: pytest.TempPathFactory) -> Distributions:
    return build(tree, tmp_path_factory.mktemp("dist"))


@pytest.fixture(scope="module")
def copied_prerender(tree: Path) -> Path:
    """The package folder the build saw (files edited meanwhile in the working tree do not count)."""
    return tree / "prerender"


# --- prerender -------------------------------------------------------------------------------------


def test_the_wheel_holds_the_prerender_package_only(prerender_dists: Distributions) -> None:
    assert top_level(prerender_dists.wheel) == {"prerender", f"prerender-{setup_cfg_version()}.dist-info"}


def test_the_wheel_carries_every_module_templates_static_files_and_translations(
    prerender_dists: Distributions, copied_prerender: Path
) -> None:
    packaged = {name for name in prerender_dists.wheel if name.startswith("prerender/")}
    assert packaged == files_under(copied_prerender), "a data file missing? name its folder in MANIFEST.in"
    for expected in (
        "prerender/__init__.py",
        "prerender/templates/recipe_card/card.html",
        "prerender/static/css/recipe-card.css",
        "prerender/static/sdk/svc.js",
        # The release tree (`make static`), which the service serves while it matches the sources above.
        "prerender/static_build/sdk/svc.js",
        "prerender/static_build/sdk/svc.js.br",
        "prerender/static_build/sdk/svc.js.gz",
        "prerender/static_build/source-digest",
        "prerender/i18n/en.json",
        "prerender/i18n/fr.json",
    ):
        assert expected in packaged


def test_the_sdist_holds_prerender_and_its_metadata_only(
    prerender_dists: Distributions, copied_prerender: Path
) -> None:
    assert top_level(prerender_dists.sdist) <= {
        "prerender",
        "prerender.egg-info",
        "PKG-INFO",
        "README.md",
        "MANIFEST.in",
        "setup.py",
        "setup.cfg",
    }
    assert {name for name in prerender_dists.sdist if name.startswith("prerender/")} == files_under(copied_prerender)


def test_prerender_requires_what_it_imports_and_nothing_of_coreapi(prerender_dists: Distributions) -> None:
    declared = requirements(prerender_dists.metadata)
    assert not declared & CORE_API_ONLY
    check_requirements("prerender", declared)


def setup_cfg_version() -> str:
    config = ConfigParser()
    config.read(ROOT / "setup.cfg")
    return config["metadata"]["version"]


def setup_cfg_requirements(option: str, section: str = "options") -> list[Requirement]:
    config = ConfigParser()
    config.read(ROOT / "setup.cfg")
    return [
        Requirement(line.strip())
        for line in config[section][option].splitlines()
        if line.strip() and not line.strip().startswith("#")
    ]


def pins(lock: str) -> dict[str, str]:
    """``name==version`` lines of a lock file of requirements/."""
    return {
        canonicalize_name(name): version
        for name, _, version in (
            line.partition("==")
            for line in (ROOT / "requirements" / lock).read_text("utf-8").splitlines()
            if "==" in line and not line.startswith(("#", " "))
        )
    }


def test_the_dev_extra_lists_the_test_and_lint_tools() -> None:
    dev = {
        canonicalize_name(requirement.name) for requirement in setup_cfg_requirements("dev", "options.extras_require")
    }
    assert {"pytest", "ruff", "mypy", "types-requests", "types-cachetools", "pip-tools", "setuptools", "build"} <= dev


def test_the_locks_pin_every_declared_requirement_within_its_bounds() -> None:
    """A requirement added to the metadata without `make lock` fails here, not on a fresh machine."""
    declared = [*setup_cfg_requirements("install_requires"), *setup_cfg_requirements("dev", "options.extras_require")]
    for project in ("coreapi", "plumbing", "examples"):
        document = tomllib.loads((ROOT / project / "pyproject.toml").read_text("utf-8"))
        declared += [Requirement(line) for line in document["project"]["dependencies"]]
    locked = pins("dev.txt")
    stale = [
        str(requirement)
        for requirement in declared
        if canonicalize_name(requirement.name) not in LOCAL_PROJECTS
        and (
            canonicalize_name(requirement.name) not in locked
            or not requirement.specifier.contains(locked[canonicalize_name(requirement.name)], prereleases=True)
        )
    ]
    assert not stale, f"not pinned in requirements/dev.txt within these bounds (run `make lock`): {stale}"
    runtime = pins("prerender.txt")
    assert {canonicalize_name(r.name) for r in setup_cfg_requirements("install_requires")} - set(LOCAL_PROJECTS) <= set(
        runtime
    )
    assert all(locked[name] == version for name, version in runtime.items())  # the versions tested
    # coreapi's own lock (its production install, docs/operations.md): its requirements, at the tested versions.
    coreapi_runtime = pins("coreapi.txt")
    assert pyproject_requirements(ROOT / "coreapi" / "pyproject.toml") - set(LOCAL_PROJECTS) <= set(coreapi_runtime)
    assert all(locked[name] == version for name, version in coreapi_runtime.items())


def test_the_local_projects_are_required_at_their_own_version_and_never_pinned() -> None:
    """`make install` installs them editable and a production install from their wheels (docs/operations.md), so
    a lock pinning one could not be installed, and a requirement at another version would fail `pip check`."""
    declared = [*setup_cfg_requirements("install_requires")]
    declared += [
        Requirement(line)
        for line in tomllib.loads((ROOT / "coreapi" / "pyproject.toml").read_text())["project"]["dependencies"]
    ]
    for name, folder in LOCAL_PROJECTS.items():  # never on a package index (tools/lock.py)
        version = tomllib.loads((folder / "pyproject.toml").read_text("utf-8"))["project"]["version"]
        required = [str(r.specifier) for r in declared if canonicalize_name(r.name) == name]
        assert required == [f"=={version}", f"=={version}"], f"prerender and coreapi require {name}=={version}"
        for lock in ("dev.txt", "prerender.txt", "coreapi.txt"):
            assert name not in pins(lock), f"requirements/{lock} pins {name}: run `make lock` (tools/lock.py)"


def test_make_lock_takes_the_local_pins_out_and_keeps_their_via_lines() -> None:
    """tools/lock.py: the pin block of a local project goes, the others' `# via` naming it stay."""
    compiled = (
        "flask==3.1.3\n    # via\n    #   prerender (setup.cfg)\n    #   prerender-plumbing\n"
        "prerender-plumbing==0.1.0\n    # via\n    #   prerender (setup.cfg)\n"
        "    #   prerender-coreapi (coreapi/pyproject.toml)\n"
        "webargs==8.7.1\n    # via prerender-plumbing\n"
    )
    assert without_local_pins(compiled) == (
        "flask==3.1.3\n    # via\n    #   prerender (setup.cfg)\n    #   prerender-plumbing\n"
        "webargs==8.7.1\n    # via prerender-plumbing\n"
    )


# --- the demo shop and coreapi ----------------------------------------------------------------------


def test_the_shop_wheel_holds_the_examples_package_with_its_templates_and_static_files(tmp_path: Path) -> None:
    project = tmp_path / "examples"
    shutil.copytree(ROOT / "examples", project, ignore=NOT_SOURCES)
    # examples/php, examples/java and examples/nginx-ssi are customers' own stacks, run as they are: no Python
    # package.
    expected = {
        name
        for name in files_under(project) - {"examples/pyproject.toml"}
        if not name.startswith(("examples/php/", "examples/java/", "examples/nginx-ssi/"))
    }
    dists = build(project, tmp_path / "dist")
    assert top_level(dists.wheel) == {"examples", "prerender_demo_shop-0.1.0.dist-info"}
    assert set(dists.wheel) - {name for name in dists.wheel if ".dist-info/" in name} == expected, (
        "a data file missing? add its pattern to [tool.setuptools.package-data] of examples/pyproject.toml"
    )
    assert "examples/shop/templates/shelf.html" in expected and "examples/shop/static/shop.js" in expected
    check_requirements("examples", requirements(dists.metadata))


def test_coreapi_declares_what_it_imports() -> None:
    check_requirements("coreapi", pyproject_requirements(ROOT / "coreapi" / "pyproject.toml"))


def test_the_plumbing_wheel_holds_the_plumbing_package_and_declares_what_it_imports(tmp_path: Path) -> None:
    project = tmp_path / "plumbing"
    shutil.copytree(ROOT / "plumbing", project, ignore=NOT_SOURCES)
    expected = files_under(project) - {"plumbing/pyproject.toml"}
    dists = build(project, tmp_path / "dist")
    assert top_level(dists.wheel) == {"plumbing", "prerender_plumbing-0.1.0.dist-info"}
    packaged = {name for name in dists.wheel if not name.startswith("prerender_plumbing-")}
    assert packaged == expected
    assert "plumbing/py.typed" in packaged  # the services' mypy reads its hints
    check_requirements("plumbing", requirements(dists.metadata))
