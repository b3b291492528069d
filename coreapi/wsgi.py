"""WSGI entry point: `gunicorn coreapi.wsgi:app`."""

from coreapi import create_app

app = create_app()
