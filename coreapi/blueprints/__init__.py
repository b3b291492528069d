"""HTTP routes, one blueprint per area; ``api`` nests the ``/api/v1`` ones."""
