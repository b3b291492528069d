"""A fault-injecting upstream: a proxy in front of the live coreapi (tests/live.py) that fails the upstream paths
starting with one of its `faults` (path prefix -> a view answering the fault) and passes everything else
through unchanged. Tests change `faults` while it runs (the upstream fails, then recovers); `release` ends the
hung faults' wait. A stopped upstream is a closed port instead (tests/conftest.py, `closed_port`).

Used by the planner's degraded pages (tests/integration/test_planner_degrades.py and the browser's
tests/browser/test_planner_degrades.py)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable

import requests
from flask import Flask, Response, request

from tests.live import LiveServer

Fault = Callable[[], Response]
MENUS = "/api/v1/menus"


class FaultyUpstream:
    """The proxy; `url` is what prerender's UPSTREAM_URL points at."""

    def __init__(self, upstream_url: str, faults: dict[str, Fault] | None = None) -> None:
        self.upstream_url = upstream_url
        self.faults: dict[str, Fault] = dict(faults or {})
        self.release = threading.Event()
        # The paths the proxy failed, in order (what prerender asked while the upstream failed).
        self.failed: list[str] = []
        app = Flask(__name__)
        app.add_url_rule("/<path:path>", "proxy", self._answer, methods=["GET", "POST", "PUT", "PATCH", "DELETE"])
        self.server = LiveServer(app)

    @property
    def url(self) -> str:
        return self.server.url

    def _answer(self, path: str) -> Response:
        for prefix, fault in list(self.faults.items()):
            if f"/{path}".startswith(prefix):
                self.failed.append(f"/{path}")
                return fault()
        upstream = requests.request(
            request.method,
            f"{self.upstream_url}/{path}",
            params=request.args,
            data=request.get_data(),
            headers={k: v for k, v in request.headers if k.lower() not in ("host", "content-length")},
            timeout=30,
        )
        response = Response(upstream.content, status=upstream.status_code)
        if "Content-Type" in upstream.headers:
            response.headers["Content-Type"] = upstream.headers["Content-Type"]
        return response

    def hung(self) -> Response:
        """An answer that never comes in time (held until `release`, or 30 s)."""
        self.release.wait(timeout=30)
        return status(503)()

    def __enter__(self) -> FaultyUpstream:
        self.server.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        self.server.__exit__(*exc)


def status(code: int, errors: dict[str, object] | None = None) -> Fault:
    """An error status with a problem body, as the upstream answers (docs/upstream.md)."""

    def answer() -> Response:
        body: dict[str, object] = {"type": "about:blank", "title": "Error", "status": code, "detail": f"fault {code}"}
        if errors:
            body["errors"] = errors
        return Response(json.dumps(body), status=code, mimetype="application/problem+json")

    return answer


def malformed() -> Response:
    """A 200 that is not the contract (an HTML error page of a proxy)."""
    return Response("<html><body>Bad gateway</body></html>", mimetype="text/html")
