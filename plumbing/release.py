"""The release a service runs, as `GET /healthz` says it (docs/operations.md, "Health checks"): the version of its
installed distribution, read once when its code is imported. Read at each probe, the metadata would name a release
installed in place after this one (`pip install --force-reinstall`) while the process still runs this one
(docs/decisions.md, "A running process never reads a later release's files")."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version


def installed_version(distribution: str) -> str | None:
    """The version of an installed distribution; None for a checkout run without installing it."""
    try:
        return version(distribution)
    except PackageNotFoundError:
        return None
