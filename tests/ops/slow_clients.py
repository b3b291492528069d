"""Slow clients over raw sockets (the issue's slowloris probe): each opens a connection, sends part of a
request, then one more byte a second, and never finishes. Bounded: at most `seconds` of trickling, every
socket closed on exit (also when a test fails)."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from types import TracebackType

# README.md's demo headers: a connected user of the demo retailer.
DEMO_HEADERS = {
    "authorization": "user_id demo-user",
    "language-id": "fr",
    "session-id": "s-123",
    "supplier-token": "demo-retailer-token",
}
CARD = "/v1/recipe-card?recipe_id=5&store_id=1001"
BODY_BYTES = 4096  # announced, never all sent


def head(method: str, path: str, headers: dict[str, str]) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: slow.test", *(f"{name}: {value}" for name, value in headers.items())]
    return ("\r\n".join(lines) + "\r\n").encode()


# What each kind sends at once; then one byte a second (inside a header value, or of the body).
OPENINGS = {
    # The request head, never its blank line: the server is still reading headers.
    "headers": head("GET", "/healthz", {}) + b"X-Slow: ",
    # A whole head announcing a body the route reads (a JSON POST), then the body a byte at a time.
    "body": head(
        "POST",
        "/v1/recipe-card/multiple?store_id=1001",
        {**DEMO_HEADERS, "Content-Type": "application/json", "Content-Length": str(BODY_BYTES)},
    )
    + b"\r\n{",
}
TRICKLE = {"headers": b"a", "body": b" "}


class SlowClients:
    """`count` slow connections of one kind ("headers" or "body") to `address`, trickling in a thread."""

    def __init__(self, address: tuple[str, int], count: int, kind: str, *, seconds: float = 30.0) -> None:
        self.address = address
        self.count = count
        self.kind = kind
        self.seconds = seconds
        self.sockets: list[socket.socket] = []
        self.closed_by_server = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._trickle, name="slow-clients", daemon=True)

    def __enter__(self) -> SlowClients:
        try:
            for _ in range(self.count):
                sock = socket.create_connection(self.address, timeout=5)
                self.sockets.append(sock)
                sock.sendall(OPENINGS[self.kind])
            self._thread.start()
        except BaseException:
            self.close()
            raise
        return self

    def _trickle(self) -> None:
        deadline = time.monotonic() + self.seconds
        while not self._stop.wait(1.0) and time.monotonic() < deadline:
            for sock in list(self.sockets):
                try:
                    sock.sendall(TRICKLE[self.kind])
                except OSError:  # the server gave up on this one (its header or body timeout)
                    self.sockets.remove(sock)
                    self.closed_by_server += 1
                    sock.close()

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        for sock in self.sockets:
            with contextlib.suppress(OSError):
                sock.close()
        self.sockets.clear()

    def __exit__(
        self, _type: type[BaseException] | None, _value: BaseException | None, _tb: TracebackType | None
    ) -> None:
        self.close()
