"""Fault-injecting proxies in front of the live services of tests/live.py: `FaultyUpstream` before coreapi (the
upstream paths starting with one of its `faults` fail), `FaultyPrerender` before prerender (the demo shop's tests:
those exact paths fail). Everything else passes through unchanged, and so does a call a fault lets pass (it answers
None: `for_supplier`, a fault for one retailer's calls only). Tests change `faults` while a proxy runs (the
service fails, then recovers); `release` ends the slow faults' wait. A stopped service is a closed port instead
(tests/conftest.py, `closed_port`)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Self

import requests
from flask import Flask, Response, request
from werkzeug.http import http_date
from werkzeug.serving import WSGIRequestHandler

from bench.proxy import SupplierCalls
from tests.live import LiveServer

# A fault's answer to the request being proxied (flask's `request`); None lets the call through.
Fault = Callable[[], Response | None]
DEADLINE_HEADER = "X-Request-Deadline"  # prerender/gateway/http.py
MENUS = "/api/v1/menus"


class FaultyProxy:
    """A proxy in front of a live service (`target_url`) that answers the paths of `faults` with their fault and
    passes everything else through unchanged; `url` is where its clients point. With `prefix`, a fault's key
    fails every path that starts with it; without, that path only."""

    # The answer headers passed back: what a client of either service reads (prerender's caching ones too).
    PASSED_HEADERS = ("Content-Type", "Cache-Control", "ETag")

    def __init__(self, target_url: str, faults: dict[str, Fault] | None = None, *, prefix: bool) -> None:
        self.target_url = target_url
        self.faults: dict[str, Fault] = dict(faults or {})
        self.prefix = prefix
        self.release = threading.Event()
        # Seconds the service behind runs ahead of the callers' clock (negative: behind), as its deadline checks
        # and the Date of its answers see it: a host whose clock is not kept in step.
        self.clock_ahead = 0.0
        # The paths the proxy failed, in order (what its client asked while the service failed), and the calls
        # it passed through ("METHOD /path").
        self.failed: list[str] = []
        self.passed: list[str] = []
        # For each call passed through with a deadline: its path and query, and the seconds it had left when it
        # reached the service behind, as that service's clock reads them (negative: late on arrival, refused unread).
        self.time_left: list[tuple[str, float]] = []
        app = Flask(__name__)
        app.add_url_rule("/<path:path>", "proxy", self._answer, methods=["GET", "POST", "PUT", "PATCH", "DELETE"])
        self.server = LiveServer(app)
        self.server.server.RequestHandlerClass = _dated_by(self)

    @property
    def url(self) -> str:
        return self.server.url

    def _faults(self, path: str) -> list[Fault]:
        if not self.prefix:
            return [self.faults[path]] if path in self.faults else []
        return [fault for start, fault in list(self.faults.items()) if path.startswith(start)]

    def _answer(self, path: str) -> Response:
        for fault in self._faults(f"/{path}"):
            # Noted before the fault answers: a hung one answers only once released, and a test reads meanwhile
            # whether the call came; taken back when the fault lets the call through.
            self.failed.append(f"/{path}")
            answer = fault()
            if answer is not None:
                return answer
            self.failed.remove(f"/{path}")
        self.passed.append(f"{request.method} /{path}")
        headers = {k: v for k, v in request.headers if k.lower() not in ("host", "content-length")}
        if self.clock_ahead and DEADLINE_HEADER in headers:
            # The service behind reads the deadline by a clock `clock_ahead` seconds ahead: as much later for it.
            headers[DEADLINE_HEADER] = str(int(headers[DEADLINE_HEADER]) - round(self.clock_ahead * 1000))
        if DEADLINE_HEADER in headers and headers[DEADLINE_HEADER].isdigit():
            self.time_left.append((request.full_path, int(headers[DEADLINE_HEADER]) / 1000 - time.time()))
        answer = requests.request(
            request.method,
            f"{self.target_url}/{path}",
            params=request.args,
            data=request.get_data(),
            headers=headers,
            timeout=30,
        )
        response = Response(answer.content, status=answer.status_code)
        for name in self.PASSED_HEADERS:
            if name in answer.headers:
                response.headers[name] = answer.headers[name]
        return response

    def __enter__(self) -> Self:
        self.server.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        self.server.__exit__(*exc)


def _dated_by(proxy: FaultyProxy) -> type[WSGIRequestHandler]:
    """werkzeug's request handler, whose answers' Date is the proxy's clock (`clock_ahead` seconds off)."""

    class Dated(WSGIRequestHandler):
        def date_time_string(self, timestamp: float | None = None) -> str:
            return http_date((timestamp if timestamp is not None else time.time()) + proxy.clock_ahead)

    return Dated


class FaultyUpstream(FaultyProxy):
    """In front of the live coreapi, failing the upstream paths that start with a fault's key; `url` is what
    prerender's UPSTREAM_URL points at."""

    def __init__(self, upstream_url: str, faults: dict[str, Fault] | None = None) -> None:
        super().__init__(upstream_url, faults, prefix=True)

    def hung(self) -> Response:
        """An answer that never comes in time (held until `release`, or 30 s)."""
        self.release.wait(timeout=30)
        return status(503)()


class FaultyPrerender(FaultyProxy):
    """In front of the live prerender, failing exactly the paths of `faults` (the demo shop's view of prerender's
    routes)."""

    def __init__(self, prerender_url: str, faults: dict[str, Fault] | None = None) -> None:
        super().__init__(prerender_url, faults, prefix=False)

    def slow(self) -> Response:
        """An answer that comes too late (once `release` is set, or after 10 s)."""
        self.release.wait(timeout=10)
        return Response("<p>too late</p>", mimetype="text/html")


def status(code: int, errors: dict[str, object] | None = None) -> Fault:
    """An error status with a problem body, as the upstream answers (docs/upstream.md)."""

    def answer() -> Response:
        body: dict[str, object] = {"type": "about:blank", "title": "Error", "status": code, "detail": f"fault {code}"}
        if errors:
            body["errors"] = errors
        return Response(json.dumps(body), status=code, mimetype="application/problem+json")

    return answer


def for_supplier(fault: Fault, *, token: str | None = None, supplier_id: str | None = None) -> Fault:
    """`fault` for the calls made for one supplier (a retailer whose own data fails upstream), the others passed
    through: those that name it by its token (`Supplier-Token`, a customer's server's request) or its id
    (`Supplier-Id`, a browser's, made with the service key), as bench/proxy.py's forwarder tells them apart."""
    supplier = SupplierCalls(token=token, supplier_id=supplier_id)

    def answer() -> Response | None:
        return fault() if supplier.match(request.headers) else None

    return answer


def malformed() -> Response:
    """A 200 that is not the contract (an HTML error page of a proxy)."""
    return Response("<html><body>Bad gateway</body></html>", mimetype="text/html")
