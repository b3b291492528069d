"""A tiny threaded HTTP forwarder that sleeps before every upstream call (simulated network latency).

Run as `python -m bench.proxy LISTEN_PORT TARGET_URL`. `PUT /__bench/delay?ms=N` changes the delay of every call;
`PUT /__bench/delay?ms=N&paths=/api/v1/categories,/api/v1/recipes` that of the calls to those paths only (the query
aside: one slow resource), `ms=0` with the same paths lifts it; `PUT /__bench/delay?ms=N&supplier_token=T` (or
`&supplier_id=I`) that of the calls made for one supplier only (one retailer whose calls hang), which wins over the
others for those calls, and `ms=0` with the same supplier lifts it. `GET /__bench/count` answers how many requests
were forwarded so far (a page's upstream calls).
A refused or failed upstream connection is answered 502.
"""

from __future__ import annotations

import contextlib
import http.client
import sys
import threading
import time
import urllib.parse
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Protocol

HOP_BY_HOP = {
    "connection",
    "keep-alive",
    "transfer-encoding",
    "te",
    "trailer",
    "upgrade",
    "proxy-authorization",
    "proxy-authenticate",
    "content-length",
}

# The upstream headers that name the supplier a call is made for (prerender/gateway/calls.py).
SUPPLIER_TOKEN_HEADER = "Supplier-Token"
SUPPLIER_ID_HEADER = "Supplier-Id"


class Headers(Protocol):
    """A request's headers, read by name whatever its case (http.server's and werkzeug's both)."""

    def get(self, name: str, /) -> str | None: ...


@dataclass(frozen=True)
class SupplierCalls:
    """The upstream calls made for one supplier: those that name it by its token (`Supplier-Token`, a customer's
    server's request) or its id (`Supplier-Id`, a browser's, made with the service key). This forwarder delays
    them (one retailer whose calls hang); tests/faulty_upstream.py's `for_supplier` fails them."""

    token: str | None = None
    supplier_id: str | None = None

    def match(self, headers: Headers) -> bool:
        return (self.token is not None and headers.get(SUPPLIER_TOKEN_HEADER) == self.token) or (
            self.supplier_id is not None and headers.get(SUPPLIER_ID_HEADER) == self.supplier_id
        )


class State:
    delay_seconds = 0.0
    path_delays: dict[str, float] = {}  # noqa: RUF012 -- the process's one mutable state, as the others
    supplier_delays: dict[SupplierCalls, float] = {}  # noqa: RUF012
    target = urllib.parse.urlsplit("http://127.0.0.1:1")
    forwarded = 0
    # Calls being forwarded now, and the most at once since the last reset (tests/ops/test_worker_class.py: the
    # card's two upstream calls overlap).
    in_flight = 0
    peak_in_flight = 0
    lock = threading.Lock()


_local = threading.local()


def _connection() -> http.client.HTTPConnection:
    conn: http.client.HTTPConnection | None = getattr(_local, "conn", None)
    if conn is None:
        conn = http.client.HTTPConnection(State.target.hostname or "127.0.0.1", State.target.port, timeout=10)
        _local.conn = conn
    return conn


class Forwarder(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are two writes: no 40 ms delayed-ACK stall

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _forward(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        if self.path.startswith("/__bench/delay"):
            query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
            seconds = float(query.get("ms", ["0"])[0]) / 1000
            paths = [p for p in query.get("paths", [""])[0].split(",") if p]
            supplier = SupplierCalls(query.get("supplier_token", [None])[0], query.get("supplier_id", [None])[0])
            if supplier != SupplierCalls():
                if seconds:
                    State.supplier_delays[supplier] = seconds
                else:
                    State.supplier_delays.pop(supplier, None)
            elif not paths:
                State.delay_seconds = seconds
            else:
                for path in paths:
                    State.path_delays[path] = seconds
            self._reply(204, [], b"")
            return
        if self.path.startswith("/__bench/count"):
            self._reply(200, [("Content-Type", "text/plain")], str(State.forwarded).encode())
            return
        with State.lock:
            State.forwarded += 1
            State.in_flight += 1
            State.peak_in_flight = max(State.peak_in_flight, State.in_flight)
        try:
            self._delay_then_forward(body)
        finally:
            with State.lock:
                State.in_flight -= 1

    def _delay(self) -> float:
        """This call's delay: its supplier's when one is set for it, else its path's, else every call's."""
        for supplier, seconds in list(State.supplier_delays.items()):
            if supplier.match(self.headers):
                return seconds
        return State.path_delays.get(self.path.split("?", 1)[0]) or State.delay_seconds

    def _delay_then_forward(self, body: bytes | None) -> None:
        time.sleep(self._delay())
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
        for attempt in (1, 2):  # a kept-alive connection the upstream closed is retried once
            conn = _connection()
            try:
                conn.request(self.command, self.path, body=body, headers=headers)
                response = conn.getresponse()
                payload = response.read()
                break
            except (OSError, http.client.HTTPException):
                conn.close()
                _local.conn = None
                if attempt == 2:
                    self._reply(502, [], b"")
                    return
        out = [(k, v) for k, v in response.getheaders() if k.lower() not in HOP_BY_HOP]
        self._reply(response.status, out, payload)

    def _reply(self, status: int, headers: list[tuple[str, str]], payload: bytes) -> None:
        self.send_response(status)
        for key, value in headers:
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = _forward


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256


def main(argv: list[str]) -> int:
    port, target = int(argv[0]), argv[1]
    State.target = urllib.parse.urlsplit(target)
    server = Server(("127.0.0.1", port), Forwarder)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
