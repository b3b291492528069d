"""The unit tests run with prerender's dependencies alone: collecting them imports nothing of coreapi, of the demo
sites (examples/), nor of the libraries only coreapi depends on. The live servers' fixtures (tests/live.py, which
import coreapi) are given only to the folders whose conftest asks for them (`use_live_servers`)."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Our own projects besides prerender: the upstream stand-in and the demo sites.
LOCAL_PROJECTS = {"coreapi", "examples"}
# In coreapi's lock but not prerender's, and still imported by the test tools themselves (a typing backport).
TOOLS_TOO = {"typing-extensions"}

# Run in a new interpreter: every import of a blocked module fails, as where it is not installed, then pytest
# collects tests/unit.
COLLECT_WITHOUT = """
import importlib.abc, sys
blocked = set(sys.argv[1:])

class NotInstalled(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in blocked:
            raise ModuleNotFoundError(f"No module named {name!r} (not a dependency of prerender)", name=name)
        return None

sys.meta_path.insert(0, NotInstalled())
import pytest
sys.exit(pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", "tests/unit"]))
"""


def pinned(lock: str) -> set[str]:
    """The distributions a lock file of requirements/ pins, by normalized name."""
    text = (ROOT / "requirements" / lock).read_text("utf-8")
    return {re.sub(r"[-_.]+", "-", m.lower()) for m in re.findall(r"^([A-Za-z0-9_.-]+)==", text, re.M)}


def coreapi_only_modules() -> set[str]:
    """The top-level modules of the distributions coreapi's lock pins and prerender's does not."""
    only = pinned("coreapi.txt") - pinned("prerender.txt") - TOOLS_TOO
    assert only, "coreapi's lock pins nothing prerender's does not: requirements/ changed shape"
    return {
        module
        for module, distributions in packages_distributions().items()
        if any(re.sub(r"[-_.]+", "-", name.lower()) in only for name in distributions)
    }


def test_the_unit_tests_are_collected_without_coreapi_nor_the_demo_sites() -> None:
    blocked = coreapi_only_modules() | LOCAL_PROJECTS
    assert {"sqlalchemy", "psycopg", "alembic"} <= blocked
    result = subprocess.run(
        [sys.executable, "-c", COLLECT_WITHOUT, *sorted(blocked)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 0, f"{result.stdout[-4000:]}\n{result.stderr[-2000:]}"
    assert re.search(r"^\d+ tests collected", result.stdout, re.M), result.stdout[-2000:]
