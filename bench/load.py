"""The load generator: threads, one kept-alive http.client connection each, bounded by count and time."""

from __future__ import annotations

import http.client
import itertools
import multiprocessing
import multiprocessing.queues
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


def run_processes(
    base_url: str,
    calls: Sequence[Call] | Callable[[int], Call],
    *,
    processes: int,
    threads: int,
    max_seconds: float,
) -> Result:
    """`run` in `processes` forked processes at once (each `threads` threads, for `max_seconds`): one Python
    process tops out at a few thousand requests per second on its own GIL, below what the server can serve.
    Process i sends calls(i), calls(i + processes)... so a callable still spreads its calls. One process: `run`."""
    if processes <= 1:
        return run(base_url, calls, threads=threads, max_requests=10**9, max_seconds=max_seconds)
    context = multiprocessing.get_context("fork")
    queue: multiprocessing.queues.Queue[Result] = context.Queue()

    def child(index: int) -> None:
        pick: Callable[[int], Call] = calls if callable(calls) else (lambda i: calls[i % len(calls)])
        spread = lambda i: pick(i * processes + index)  # noqa: E731
        queue.put(run(base_url, spread, threads=threads, max_requests=10**9, max_seconds=max_seconds))

    children = [context.Process(target=child, args=(index,), daemon=True) for index in range(processes)]
    for process in children:
        process.start()
    results = [queue.get(timeout=max_seconds + 60) for _ in children]
    for process in children:
        process.join(timeout=10)
    # The children load at once, each for its own measured window: the longest is the run's.
    merged = Result(elapsed=max(result.elapsed for result in results))
    for result in results:
        merged.latencies.extend(result.latencies)
        for key, value in result.errors.items():
            merged.errors[key] = merged.errors.get(key, 0) + value
    return merged
