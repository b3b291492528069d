"""`make lock`: the three lock files of requirements/ re-resolved from the projects' metadata with pip-compile.

prerender and coreapi both require the repository's own `prerender-plumbing` (plumbing/pyproject.toml), which is
on no package index: pip-compile could not resolve it. Its wheel is built first into a temporary folder that
pip-compile searches too (`--find-links`, not written into the locks), and its pin is then taken out of each lock,
since every install gets it from the repository: `make install` as an editable, a production install as the wheel
it builds beside the service's (docs/operations.md). tests/unit/test_packaging.py checks the locks that result.

    python tools/lock.py [pip-compile options...]     # `make lock LOCK_FLAGS=...` passes them, e.g. --upgrade
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
# The projects of this repository that a lock's metadata may require, by distribution name: their folders, whose
# wheels pip-compile is given; never pinned.
LOCAL_PROJECTS = {"prerender-plumbing": ROOT / "plumbing"}
LOCK = "requirements/dev.txt"
# Each lock file and what pip-compile reads for it; the runtime locks keep the development lock's versions.
LOCKS: dict[str, list[str]] = {
    LOCK: ["--extra", "dev", "setup.cfg", "coreapi/pyproject.toml", "examples/pyproject.toml"],
    "requirements/prerender.txt": ["--constraint", LOCK, "setup.cfg"],
    "requirements/coreapi.txt": ["--constraint", LOCK, "coreapi/pyproject.toml"],
}
PIP_COMPILE_OPTIONS = [
    "--quiet",
    "--allow-unsafe",
    "--strip-extras",
    "--no-emit-index-url",
    "--no-emit-find-links",
    "--no-emit-trusted-host",
]


def without_local_pins(lock: str) -> str:
    """The lock's text without the pin of a local project and its `# via` lines."""
    pinned = re.compile(rf"^({'|'.join(map(re.escape, LOCAL_PROJECTS))})==\S+\n(    #.*\n)*", re.MULTILINE)
    return pinned.sub("", lock)


def build_local_wheels(folder: Path) -> None:
    """The local projects' wheels, built offline with the development lock's setuptools."""
    for project in LOCAL_PROJECTS.values():
        subprocess.run(
            [sys.executable, "-m", "build", "--no-isolation", "--wheel", "--outdir", str(folder), str(project)],
            check=True,
            stdout=subprocess.DEVNULL,
        )


def main(options: list[str]) -> None:
    environment = {**os.environ, "CUSTOM_COMPILE_COMMAND": "make lock"}
    with tempfile.TemporaryDirectory(prefix="local-wheels-") as wheels:
        build_local_wheels(Path(wheels))
        for output, inputs in LOCKS.items():
            subprocess.run(
                [
                    str(BIN / "pip-compile"),
                    *PIP_COMPILE_OPTIONS,
                    "--find-links",
                    wheels,
                    *options,
                    "-o",
                    output,
                    *inputs,
                ],
                cwd=ROOT,
                env=environment,
                check=True,
            )
            path = ROOT / output
            path.write_text(without_local_pins(path.read_text()))


if __name__ == "__main__":
    main(sys.argv[1:])
