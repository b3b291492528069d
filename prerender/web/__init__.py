"""Request-wide web plumbing: the header guard and request context, size limits, the request log, HTTP
caching, problem errors, argument parsing and the OpenAPI document (docs/architecture.md)."""
