"""marshmallow schemas of the query strings and JSON bodies, one module per area."""
