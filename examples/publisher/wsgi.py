"""WSGI entry point of the demo recipe blog: `gunicorn examples.publisher.wsgi:app`."""

from examples.publisher import create_app

app = create_app()
