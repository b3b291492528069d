"""The two live stacks' names and the `only_stack` marker (a pytest plugin loaded by tests/conftest.py).

The stacks themselves, and the live servers on them, are tests/live.py's; this module needs nothing but pytest,
so that every folder's tests can be collected, tests/unit's with prerender's dependencies alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest

DEFAULT_STACK = "sqlite-simplecache"
SCALED_STACK = "postgresql-redis"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "only_stack(name, reason): run this test on that live stack only "
        "(tests/live.py); its other variants are deselected",
    )


def stack_of(item: pytest.Item) -> str | None:
    callspec = getattr(item, "callspec", None)
    return callspec.params.get("stack") if callspec is not None else None


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect the variants of `only_stack` tests on the other stacks (after conftests added the marks)."""
    kept, dropped = [], []
    for item in items:
        marker = item.get_closest_marker("only_stack")
        if marker is not None and not marker.kwargs.get("reason"):
            raise pytest.UsageError(f"{item.nodeid}: only_stack needs a reason=")
        current = stack_of(item)
        (dropped if marker is not None and current is not None and current != marker.args[0] else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def only_stack_under(directory: Path, items: list[pytest.Item], name: str, reason: str) -> None:
    """Pin every test under directory to one stack (for a conftest's pytest_collection_modifyitems)."""
    for item in items:
        if directory in item.path.parents:
            item.add_marker(pytest.mark.only_stack(name, reason=reason))
