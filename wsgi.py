"""WSGI entry point: `gunicorn wsgi:app`."""

import sys

from prerender import create_app
from prerender.config_checks import ConfigError

try:
    app = create_app()
except ConfigError as error:
    # One line naming the setting rather than a traceback per worker; gunicorn then stops ("Worker failed to boot").
    print(f"prerender cannot start: {error}", file=sys.stderr, flush=True)
    raise SystemExit(3) from None
