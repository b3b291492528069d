"""The templates, read once when the application is made.

Jinja reads a template from disk when it is first rendered: a template first used after an installation in place
(`pip install --force-reinstall` of the next release, before the reload) would come from the next release, beside
this release's code and view models. The factory reads every template of the app and of its blueprints into a
`DictLoader` instead, so that a running process renders the release it started with (docs/decisions.md, "A running
process never reads a later release's files"); the static files are read at start likewise
(prerender/rendering/assets.py).

In development (`app.debug`, or `TEMPLATES_AUTO_RELOAD`) both are read from disk at each use, so that an edit shows.
"""

from __future__ import annotations

from flask import Flask
from jinja2 import DictLoader


def reads_files_at_start(app: Flask) -> bool:
    """Whether the app serves its templates and static files as read at start: not in development (debug, or
    TEMPLATES_AUTO_RELOAD set), where an edit must show without a restart."""
    return not (app.debug or app.config.get("TEMPLATES_AUTO_RELOAD"))


def read_templates(app: Flask) -> None:
    """Every template the app can render (its folder's, then each blueprint's, as Flask looks them up), read now and
    set as the environment's one loader (called by the factory once the blueprints are registered)."""
    if not reads_files_at_start(app):
        return
    environment = app.jinja_env
    on_disk = app.create_global_jinja_loader()
    sources = {name: on_disk.get_source(environment, name)[0] for name in sorted(on_disk.list_templates())}
    environment.loader = DictLoader(sources)


def templates_size(app: Flask) -> int:
    """The bytes (UTF-8) of the templates read at start; 0 when they are read from disk."""
    loader = app.jinja_env.loader
    if not isinstance(loader, DictLoader):
        return 0
    return sum(len(source.encode()) for source in loader.mapping.values())
