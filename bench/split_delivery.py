"""A forwarder before a web site that delivers HTML pages in two parts, the second a pause after the first: a page
arriving over a slow network. Chromium may paint the part it has parsed before the rest arrives, which is how a
layout that places a later element above an earlier one shifts. Fault injection at the HTTP level only: the site
behind it is the real one. The browser tests cut before a marker (tests/browser/split_delivery.py);
`python -m bench.shifts` cuts before each tag of a page in turn."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import requests

# Where to cut an HTML answer: its path (with the query) and body give the offset of the cut, or -1 for none (the
# answer then comes whole). Every other answer comes whole.
Cut = Callable[[str, bytes], int]

# Not forwarded: they describe one connection, or the body as the site encoded it.
_HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding", "host"}


@contextmanager
def split_forwarder(
    site_url: str, *, cut: Cut, pause: float = 0.8, release: threading.Event | None = None
) -> Iterator[tuple[str, list[str]]]:
    """The address of a forwarder to `site_url` whose HTML answers stop where `cut` says for `pause` seconds, or,
    given `release`, until it is set; and the paths of the answers cut so far."""
    cuts: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"  # the body ends when the connection closes: no length to announce

        def log_message(self, format: str, *args: object) -> None:
            """Silent: the caller reads the page, not the log."""

        def do_GET(self) -> None:
            """The site's answer, an HTML page split where `cut` says (unsent when the browser went away)."""
            with suppress(BrokenPipeError, ConnectionResetError):  # the page that asked was closed
                self.forward()

        def forward(self) -> None:
            """The site's answer, an HTML page split where `cut` says."""
            headers = {name: value for name, value in self.headers.items() if name.lower() not in _HOP_BY_HOP}
            headers["Accept-Encoding"] = "identity"
            answer = requests.get(site_url + self.path, headers=headers, allow_redirects=False, timeout=30)
            self.send_response(answer.status_code)
            for name, value in answer.raw.headers.items():
                if name.lower() not in _HOP_BY_HOP:
                    self.send_header(name, value)
            self.end_headers()
            body = answer.content
            at = cut(self.path, body) if answer.headers.get("Content-Type", "").startswith("text/html") else -1
            if at > 0:
                cuts.append(self.path)
                self.wfile.write(body[:at])
                self.wfile.flush()
                if release is None:
                    time.sleep(pause)
                else:
                    release.wait()
                body = body[at:]
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", cuts
    finally:
        if release is not None:
            release.set()  # a caller that failed while holding a page back: the answer ends, the forwarder stops
        server.shutdown()
        server.server_close()
