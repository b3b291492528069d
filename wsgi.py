"""WSGI entry point: `gunicorn wsgi:app`."""

from prerender import create_app

app = create_app()
