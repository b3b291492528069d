"""The load generator: threads, one kept-alive http.client connection each, bounded by count and time."""

from __future__ import annotations

import http.client
import itertools
import threading
import time
import urllib.parse
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

HEADERS = {
    "authorization": "user_id demo-user",
    "language-id": "fr",
    "session-id": "s-123",
    "supplier-token": "demo-retailer-token",
}


@dataclass(frozen=True)
class Call:
    path: str
    method: str = "GET"
    body: bytes | None = None
    need_body: bool = False  # a 200 with an empty body is a failure (cards: empty means upstream failure)
    headers: tuple[tuple[str, str], ...] = ()  # replace or add to HEADERS


@dataclass
class Result:
    latencies: list[float] = field(default_factory=list)  # seconds, successful and failed
    errors: dict[str, int] = field(default_factory=dict)
    elapsed: float = 0.0

    @property
    def count(self) -> int:
        return len(self.latencies)

    @property
    def error_count(self) -> int:
        return sum(self.errors.values())

    @property
    def throughput(self) -> float:
        return self.count / self.elapsed if self.elapsed else 0.0

    def percentile(self, fraction: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


def one(
    base_url: str, call: Call, conn: http.client.HTTPConnection | None = None, timeout: float = 10.0
) -> tuple[float, str | None, http.client.HTTPConnection]:
    """Send one call; (seconds, error or None, the connection to reuse)."""
    if conn is None:
        parts = urllib.parse.urlsplit(base_url)
        conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=timeout)
    headers = {**HEADERS, **dict(call.headers)}
    if call.body is not None:
        headers["Content-Type"] = "application/json"
    start = time.perf_counter()
    try:
        conn.request(call.method, call.path, body=call.body, headers=headers)
        response = conn.getresponse()
        payload = response.read()
        if response.will_close:
            conn.close()
    except (OSError, http.client.HTTPException) as error:
        conn.close()
        return time.perf_counter() - start, type(error).__name__, conn
    seconds = time.perf_counter() - start
    if response.status >= 400:
        return seconds, f"{call.method} {call.path.split('?')[0]} {response.status}", conn
    if call.need_body and not payload.strip():
        return seconds, f"{call.method} {call.path.split('?')[0]} empty", conn
    return seconds, None, conn


def run(
    base_url: str, calls: Sequence[Call] | Callable[[int], Call], *, threads: int, max_requests: int, max_seconds: float
) -> Result:
    """Send calls round-robin (or calls(i)) from `threads` threads until max_requests or max_seconds."""
    pick: Callable[[int], Call] = calls if callable(calls) else (lambda i: calls[i % len(calls)])
    counter = itertools.count()
    lock = threading.Lock()
    result = Result()
    deadline = time.perf_counter() + max_seconds

    def worker() -> None:
        conn: http.client.HTTPConnection | None = None
        latencies: list[float] = []
        errors: dict[str, int] = {}
        while time.perf_counter() < deadline:
            index = next(counter)
            if index >= max_requests:
                break
            seconds, error, conn = one(base_url, pick(index), conn)
            latencies.append(seconds)
            if error:
                errors[error] = errors.get(error, 0) + 1
        conn and conn.close()
        with lock:
            result.latencies.extend(latencies)
            for key, value in errors.items():
                result.errors[key] = result.errors.get(key, 0) + value

    workers = [threading.Thread(target=worker, daemon=True) for _ in range(threads)]
    start = time.perf_counter()
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join()
    result.elapsed = time.perf_counter() - start
    return result
