"""WSGI entry point of the demo shop: `gunicorn examples.shop.wsgi:app`."""

from examples.shop import create_app

app = create_app()
