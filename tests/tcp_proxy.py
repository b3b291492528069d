"""A TCP proxy before a real server (PostgreSQL, in tests/coreapi/test_database_hangs.py and
tests/ops/test_coreapi_database_hangs.py) that can hang: `hang()` makes it a server that takes connections and
reads what it is sent, its kernel acknowledging every packet, and never answers, as a hung database or a stuck
proxy before it; `resume()` forwards again on new connections (those that hung lost what they sent: they close).
Fault injection at the TCP level; everything else about the server is real."""

from __future__ import annotations

import select
import socket
import threading
from typing import Self


class HangingProxy:
    """`port` on 127.0.0.1 forwards to `target` (host, port) until `hang()`."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self._hung = threading.Event()
        self._closed = threading.Event()
        self._lock = threading.Lock()
        self._sockets: set[socket.socket] = set()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def hang(self) -> None:
        """From now on nothing is answered, on open connections and new ones alike."""
        self._hung.set()

    def resume(self) -> None:
        """New connections are forwarded again; the ones open now close (what they sent while hung is lost)."""
        self._hung.clear()
        self._close_open()

    def close(self) -> None:
        self._closed.set()
        self._listener.close()
        self._close_open()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _close_open(self) -> None:
        with self._lock:
            open_sockets, self._sockets = self._sockets, set()
        for sock in open_sockets:
            sock.close()

    def _keep(self, *sockets: socket.socket) -> None:
        with self._lock:
            self._sockets.update(sockets)

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                client, _ = self._listener.accept()
            except OSError:  # closed
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        self._keep(client)
        server = None
        if not self._hung.is_set():
            try:
                server = socket.create_connection(self.target)
            except OSError:
                client.close()
                return
            self._keep(server)
        ends = [client] if server is None else [client, server]
        try:
            while True:
                readable, _, _ = select.select(ends, [], [], 0.5)
                if self._closed.is_set():
                    return
                for end in readable:
                    data = end.recv(65536)
                    if not data:
                        return
                    if self._hung.is_set() or server is None:
                        continue  # read, acknowledged, never answered
                    (server if end is client else client).sendall(data)
        except (OSError, ValueError):  # closed by resume() or close()
            return
        finally:
            client.close()
            if server is not None:
                server.close()
