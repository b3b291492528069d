"""HTTP to the upstream: one requests.Session per thread, timeouts and retries set in one place."""
from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Mapping
from typing import Any

import requests
from requests.adapters import HTTPAdapter

from prerender.metrics import UPSTREAM_CALLS, UPSTREAM_SECONDS
from prerender.gateway.breaker import CircuitBreaker
from prerender.gateway.errors import (UpstreamBadResponse, UpstreamError, UpstreamStatusError, UpstreamTimeout,
                     UpstreamUnavailable)

log = logging.getLogger(__name__)

RETRYABLE_STATUSES = frozenset({502, 503, 504})
RETRY_PAUSE_SECONDS = 0.05


class UpstreamHttp:
    """JSON over HTTP to one base URL. Thread-safe: each thread (gthread worker) gets its own Session,
    created lazily, so nothing is shared across a fork either."""

    def __init__(self, *, base_url: str, connect_timeout: float, read_timeout: float,
                 retries: int, pool_size: int, breaker: CircuitBreaker) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = (connect_timeout, read_timeout)
        self.retries = retries
        self.pool_size = pool_size
        self.breaker = breaker
        # Proxy settings (HTTP_PROXY, NO_PROXY...) are read once: requests would read the environment
        # again on every call, which costs more than a loopback round trip.
        self.proxies = requests.utils.get_environ_proxies(self.base_url)
        self.verify: str | bool = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE") or True
        self._local = threading.local()

    @property
    def session(self) -> requests.Session:
        session = getattr(self._local, "session", None)
        if session is None:
            session = requests.Session()
            session.trust_env = False
            session.proxies.update(self.proxies)
            session.verify = self.verify
            adapter = HTTPAdapter(pool_connections=1, pool_maxsize=self.pool_size, max_retries=0)
            session.mount("http://", adapter)
            session.mount("https://", adapter)
            self._local.session = session
        return session

    def request(self, method: str, path: str, *, name: str, headers: Mapping[str, str],
                params: Mapping[str, Any] | None = None, json: Any = None,
                idempotent: bool, expect_body: bool = True) -> Any:
        """Send one call through the circuit breaker; return the decoded JSON (None for an empty answer
        when allowed). An upstream 4xx is an answer, so it counts as the upstream being alive. `name` is
        the call's label in the metrics (paths carry ids)."""
        started = time.perf_counter()
        outcome = "ok"
        try:
            self.breaker.before_call(f"{method} {path}")
        except UpstreamUnavailable:
            UPSTREAM_CALLS.labels(name, "circuit_open").inc()
            raise
        try:
            result = self._send(method, path, headers=headers, params=params, json=json,
                                idempotent=idempotent, expect_body=expect_body)
        except UpstreamStatusError as error:
            outcome = f"status_{error.status // 100}xx"
            if error.status >= 500:
                self.breaker.record_failure()
            else:
                self.breaker.record_success()
            raise
        except UpstreamError as error:
            outcome = type(error).__name__
            self.breaker.record_failure()
            raise
        finally:
            UPSTREAM_CALLS.labels(name, outcome).inc()
            UPSTREAM_SECONDS.labels(name).observe(time.perf_counter() - started)
        self.breaker.record_success()
        return result

    def _send(self, method: str, path: str, *, headers: Mapping[str, str], params: Mapping[str, Any] | None,
              json: Any, idempotent: bool, expect_body: bool) -> Any:
        """One call with its retries: idempotent calls are retried on connection errors and 502/503/504,
        never on read timeouts (a slow upstream must not cost the caller twice the budget)."""
        attempts = 1 + (self.retries if idempotent else 0)
        for attempt in range(1, attempts + 1):
            last = attempt == attempts
            try:
                response = self.session.request(method, f"{self.base_url}{path}", headers=dict(headers),
                                                params=params, json=json, timeout=self.timeout)
            except requests.exceptions.ConnectTimeout as error:
                if not last:
                    time.sleep(RETRY_PAUSE_SECONDS)
                    continue
                raise UpstreamTimeout(f"connect timeout on {method} {path}") from error
            except requests.exceptions.Timeout as error:
                raise UpstreamTimeout(f"read timeout on {method} {path}") from error
            except requests.exceptions.ConnectionError as error:
                if not last:
                    time.sleep(RETRY_PAUSE_SECONDS)
                    continue
                raise UpstreamUnavailable(f"cannot reach upstream for {method} {path}") from error
            except requests.exceptions.RequestException as error:
                # Broken chunked bodies, bad encodings, redirect loops: the answer is unusable.
                raise UpstreamBadResponse(f"unusable answer to {method} {path}: {error!r}") from error
            if response.status_code in RETRYABLE_STATUSES and not last:
                time.sleep(RETRY_PAUSE_SECONDS)
                continue
            return self._decode(response, f"{method} {path}", expect_body)
        raise AssertionError("unreachable")  # the loop always returns or raises on its last attempt

    @staticmethod
    def _decode(response: requests.Response, endpoint: str, expect_body: bool) -> Any:
        if response.status_code >= 400:
            try:
                problem = response.json()
            except ValueError:
                problem = None
            raise UpstreamStatusError(response.status_code, problem if isinstance(problem, dict) else None,
                                      endpoint)
        if not response.content:
            if expect_body:
                raise UpstreamBadResponse(f"empty answer from {endpoint}")
            return None
        try:
            return response.json()
        except ValueError as error:
            raise UpstreamBadResponse(f"answer of {endpoint} is not JSON") from error
