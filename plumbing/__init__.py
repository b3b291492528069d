"""The web plumbing prerender and coreapi share: one problem+json error shape and its handlers
(`plumbing.problems`), one webargs parser whose errors are those problems (`plumbing.parsing`), the request id
(`plumbing.request_id`), the W3C trace a caller sends (`plumbing.trace_context`), the keys an instance makes on
first start (`plumbing.instance_keys`) and the pseudonyms of the logs (`plumbing.pseudonyms`).

It imports neither service (tests/unit/test_architecture.py); each service keeps what is its own: prerender's
upstream errors, beacon bodies and memo of parsed queries, coreapi's request context, both request logs' formats
(docs/architecture.md)."""
