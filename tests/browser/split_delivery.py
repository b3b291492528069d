"""A forwarder before a web site that delivers each HTML page in two parts, the second a pause after the first:
a page arriving over a slow network. Chromium may paint the part it has parsed before the rest arrives, which is
how a layout that places a later element above an earlier one shifts (tests/browser/test_publisher.py). Fault
injection at the HTTP level only: the site behind it is the real one."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import requests

# Not forwarded: they describe one connection, or the body as the site encoded it.
_HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding", "host"}


@contextmanager
def split_delivery(
    site_url: str, *, before: str, pause: float = 0.8, release: threading.Event | None = None
) -> Iterator[str]:
    """The address of a forwarder to `site_url` whose HTML pages stop right before the first occurrence of
    `before` for `pause` seconds, or, given `release`, until the test sets it (every other answer comes whole).
    A forwarder that cut no page fails the test when it closes: a page that no longer holds `before` would
    otherwise be tested delivered whole."""
    cut_at = before.encode()
    cuts: list[str] = []  # the paths of the pages cut

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"  # the body ends when the connection closes: no length to announce

        def log_message(self, format: str, *args: object) -> None:
            """Silent: the test reads the page, not the log."""

        def do_GET(self) -> None:
            """The site's answer, the HTML split at `before`."""
            headers = {name: value for name, value in self.headers.items() if name.lower() not in _HOP_BY_HOP}
            headers["Accept-Encoding"] = "identity"
            answer = requests.get(site_url + self.path, headers=headers, allow_redirects=False, timeout=30)
            self.send_response(answer.status_code)
            for name, value in answer.raw.headers.items():
                if name.lower() not in _HOP_BY_HOP:
                    self.send_header(name, value)
            self.end_headers()
            body = answer.content
            cut = body.find(cut_at) if answer.headers.get("Content-Type", "").startswith("text/html") else -1
            if cut > 0:
                cuts.append(self.path)
                self.wfile.write(body[:cut])
                self.wfile.flush()
                if release is None:
                    time.sleep(pause)
                else:
                    release.wait()
                body = body[cut:]
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        if release is not None:
            release.set()  # a test that failed while holding a page back: the answer ends, the forwarder stops
        server.shutdown()
        server.server_close()
    assert cuts, f"no page of {site_url} held {before!r}: every page came whole"
