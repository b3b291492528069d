"""The layers of docs/architecture.md: which package of prerender may import which.

Each module's imports are read with `ast` (top-level and inside functions alike) and mapped to their layer;
an import a layer may not make fails with the module and the line.
"""

from __future__ import annotations

import ast
import re
import typing
from dataclasses import fields
from pathlib import Path

import pytest

from prerender.blueprints import UNVERSIONED_BLUEPRINTS, VERSIONED_BLUEPRINTS
from prerender.gateway.upstream import Upstream

PACKAGE = Path(__file__).resolve().parents[2] / "prerender"

# Layer -> the layers it may import (its own included). Lower layers never import higher ones.
FOUNDATION = "foundation"  # prerender.config, config_checks, extensions, metrics, memory_cache: foundation only
ALLOWED: dict[str, set[str]] = {
    FOUNDATION: {FOUNDATION},
    "gateway": {"gateway", FOUNDATION},
    "schemas": {"schemas"},
    "web": {"web", "gateway", "schemas", FOUNDATION},
    "rendering": {"rendering", "web", "gateway", "schemas", FOUNDATION},
    "blueprints": {"blueprints", "rendering", "web", "gateway", "schemas", FOUNDATION},
    "factory": {"blueprints", "rendering", "web", "gateway", "schemas", FOUNDATION},
}
SUBPACKAGES = {"gateway", "schemas", "web", "rendering", "blueprints"}


def module_name(path: Path) -> str:
    parts = ["prerender", *path.relative_to(PACKAGE).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer_of(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1:
        return "factory"  # prerender/__init__.py: create_app
    return parts[1] if parts[1] in SUBPACKAGES else FOUNDATION


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module) of every prerender import of a file, relative ones resolved."""
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            targets = [target] if node.module else [f"{target}.{alias.name}" for alias in node.names]
            found += [(node.lineno, name) for name in targets]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
    return [(line, name) for line, name in found if name == "prerender" or name.startswith("prerender.")]


MODULES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(PACKAGE)) for p in MODULES])
def test_each_layer_imports_only_the_layers_below_it(path: Path) -> None:
    layer = layer_of(module_name(path))
    wrong = [
        f"line {line}: {name} ({layer_of(name)})"
        for line, name in imported_modules(path)
        if layer_of(name) not in ALLOWED[layer] or name == "prerender"
    ]
    assert not wrong, f"{layer} may import {sorted(ALLOWED[layer])} only"


def test_every_subpackage_has_its_layer() -> None:
    assert {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()} == SUBPACKAGES


BLUEPRINT_MODULES = sorted(path for path in (PACKAGE / "blueprints").glob("*.py") if path.name != "__init__.py")


@pytest.mark.parametrize("path", BLUEPRINT_MODULES, ids=[path.name for path in BLUEPRINT_MODULES])
def test_a_blueprint_imports_no_other_blueprint(path: Path) -> None:
    """Each blueprint is one area of routes (docs/architecture.md): what two share lives in a layer below them, and
    only `blueprints/__init__.py`, the registry, imports them all."""
    others = [
        f"line {line}: {name}"
        for line, name in imported_modules(path)
        if layer_of(name) == "blueprints" and name not in (module_name(path), "prerender.blueprints")
    ]
    # What is imported from the package itself (`from prerender.blueprints import basket`, `from . import basket`)
    # is its modules.
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and (
            node.module == "prerender.blueprints" or (node.level == 1 and node.module is None)
        ):
            others += [f"line {node.lineno}: prerender.blueprints.{alias.name}" for alias in node.names]
    assert not sorted(set(others)), "move what the blueprints share into web/ or rendering/"


def test_every_blueprint_is_registered_and_in_the_tables_of_the_docs() -> None:
    """A newcomer finds the module of any URL in one step (docs/architecture.md, "Where a URL is served"; README,
    "Where things are"): a new blueprint is registered, and named in both, or this fails."""
    modules = {path.stem for path in BLUEPRINT_MODULES}
    blueprints = [bp for bp, _ in VERSIONED_BLUEPRINTS] + list(UNVERSIONED_BLUEPRINTS)
    assert {bp.import_name.rpartition(".")[2] for bp in blueprints} == modules
    architecture = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = architecture.split("\n## Where a URL is served\n", 1)[1].split("\n## ", 1)[0]
    assert set(re.findall(r"`prerender/blueprints/(\w+)\.py`", table)) - {"__init__"} == modules
    readme = (PACKAGE.parent / "README.md").read_text(encoding="utf-8")
    row = next(line for line in readme.splitlines() if line.startswith("| a route |"))
    listed = row.split("(", 1)[1].split(")", 1)[0]
    assert set(listed.split(", ")) == modules


def test_the_rules_see_imports() -> None:
    """A guard against a checker that passes because it reads nothing."""
    imports = dict(imported_modules(PACKAGE / "blueprints" / "recipe_card.py"))
    assert "prerender.rendering.cards" in imports.values()


def test_upstream_writes_are_forwarded_through_one_function() -> None:
    """The browser routes' upstream writes are `UpstreamCall`s of the gateway's resource modules, made by
    `prerender.web.forwarding.forward` only (docs/architecture.md, "Forwarded routes"), which validates their
    answers: no other module reaches the forwarder (`Upstream.forwarder`), and no blueprint calls the HTTP client
    itself."""
    forwarder_users = sorted(
        module_name(path)
        for path in MODULES
        if layer_of(module_name(path)) != "gateway"
        and any(
            (isinstance(node, ast.Attribute) and node.attr == "forwarder")
            or (isinstance(node, ast.ImportFrom) and any(alias.name == "UpstreamForwarder" for alias in node.names))
            for node in ast.walk(ast.parse(path.read_text()))
        )
    )
    assert forwarder_users == ["prerender.web.forwarding"]
    for path in (PACKAGE / "blueprints").glob("*.py"):
        source = path.read_text()
        assert ".http.request(" not in source and "UpstreamHttp" not in source, path.name


def called_names(function: ast.AST) -> set[str]:
    """The names a function calls (`f(...)`, `module.f(...)`), in its body and its nested functions and lambdas."""
    names = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name):
                names.add(node.func.id)
            elif isinstance(node.func, ast.Attribute):
                names.add(node.func.attr)
    return names


def answers_through(function: ast.FunctionDef, module: dict[str, ast.FunctionDef], target: str) -> bool:
    """Whether a view calls `target`, itself or through the functions of its module it calls (planner's `_page`)."""
    seen, pending = set(), [function.name]
    while pending:
        name = pending.pop()
        if name in seen or name not in module:
            continue
        seen.add(name)
        called = called_names(module[name])
        if target in called:
            return True
        pending += called
    return False


def module_functions(path: Path) -> dict[str, ast.FunctionDef]:
    """The top-level functions of a module, by name."""
    tree = ast.parse(path.read_text(), str(path))
    return {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}


def views_with_a_declared_policy(path: Path) -> list[tuple[ast.FunctionDef, dict[str, ast.FunctionDef]]]:
    """The functions of a blueprint module decorated with `@cache_policy(...)`, each with the module's functions."""
    functions = module_functions(path)
    return [
        (function, functions)
        for function in functions.values()
        if any(
            isinstance(decorator, ast.Call) and "cache_policy" in called_names(decorator)
            for decorator in function.decorator_list
        )
    ]


def test_a_fragment_view_declares_no_cache_policy_of_its_own() -> None:
    """`fragment_response` decides the policy of its answer (public when shared, else private; no-store when
    degraded: prerender/web/fragment_response.py), which wins over the view's `@cache_policy`
    (prerender/web/http_caching.py, `request_policy`): a view answering through it carries no such decorator, which
    would only mislead its reader."""
    declared = [
        (path, function, module)
        for path in sorted((PACKAGE / "blueprints").glob("*.py"))
        for function, module in views_with_a_declared_policy(path)
    ]
    assert any(function.name == "catalog_panel" for _, function, _ in declared)  # the scan sees decorators
    planner = module_functions(PACKAGE / "blueprints" / "planner.py")
    assert answers_through(planner["landing_page"], planner, "fragment_response")  # and calls made through `_page`
    conflicting = [
        f"{path.name}: {function.name}"
        for path, function, module in declared
        if answers_through(function, module, "fragment_response")
    ]
    assert conflicting == []


# How a gateway class calls the upstream: the HTTP client itself, or `send` (prerender/gateway/calls.py).
UPSTREAM_CALLS = ("self.http.request(", "send(self.http,")


def test_every_upstream_resource_is_reached_through_one_upstream() -> None:
    """One module per upstream resource (docs/architecture.md, "The gateway"): each of the gateway's classes
    that calls the upstream is a field of `Upstream` (what `get_upstream()` returns), and no module above the
    gateway calls the HTTP client itself."""
    callers = {
        node.name
        for path in (PACKAGE / "gateway").glob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ClassDef) and any(call in ast.unparse(node) for call in UPSTREAM_CALLS)
    }
    assert {"RecipeGateway", "SupplierGateway", "UpstreamForwarder"} <= callers  # the scan sees them
    hints = typing.get_type_hints(Upstream)
    assert callers <= {hints[field.name].__name__ for field in fields(Upstream)}
    for path in MODULES:
        if layer_of(module_name(path)) != "gateway":
            assert ".http.request(" not in path.read_text(), module_name(path)


def test_every_upstream_call_but_the_supplier_lookup_goes_through_send() -> None:
    """`send` (prerender/gateway/calls.py) gives a call its identity's headers and idempotency key, and forgets a
    supplier token the upstream refuses: a gateway class calling the HTTP client itself would skip that (a revoked
    token vouched for by its cached supplier). The lookup of a supplier by its token is the one exception: it runs
    before there is an identity, and the upstream's 401 is its answer, "unknown"."""
    direct = {path.name for path in (PACKAGE / "gateway").glob("*.py") if ".http.request(" in path.read_text()}
    assert direct == {"suppliers.py"}


SHARED = PACKAGE.parent / "plumbing"
SERVICES = ("prerender", "coreapi", "examples")


# Its modules, not what a build left beside them (plumbing/build/, gitignored).
SHARED_MODULES = sorted(path for path in SHARED.rglob("*.py") if "build" not in path.relative_to(SHARED).parts)


@pytest.mark.parametrize("path", SHARED_MODULES, ids=lambda path: str(path.relative_to(SHARED)))
def test_the_shared_plumbing_imports_neither_service(path: Path) -> None:
    """plumbing/ sits under both services (docs/architecture.md): it knows Flask, marshmallow and webargs, never
    prerender, coreapi or the demo sites."""
    imported = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            imported.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            imported += [(node.lineno, alias.name) for alias in node.names]
    wrong = [f"line {line}: {name}" for line, name in imported if name.partition(".")[0] in SERVICES]
    assert not wrong
