"""WSGI entry point: `gunicorn coreapi.wsgi:app`."""

import sys

from coreapi import create_app
from coreapi.config import ConfigError

try:
    app = create_app()
except ConfigError as error:
    # One line naming the setting rather than a traceback per worker; gunicorn then stops ("Worker failed to boot").
    print(f"coreapi cannot start: {error}", file=sys.stderr, flush=True)
    raise SystemExit(3) from None
