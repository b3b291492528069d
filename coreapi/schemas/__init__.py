"""Marshmallow schemas: what a request may carry and what a response looks like, per area."""
