"""HTTP to the upstream: requests Sessions lent to one call at a time (sessions.py), timeouts and retries set in
one place."""

from __future__ import annotations

import logging
import os
import re
import time
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

import requests
from requests.adapters import HTTPAdapter
from urllib3.exceptions import ReadTimeoutError
from urllib3.util.retry import Retry

from plumbing.parsing import LONE_SURROGATE
from prerender.config_checks import MIN_CALL_SECONDS  # a call is not sent with less left: no answer could come
from prerender.gateway import deadline, trace
from prerender.gateway.errors import (
    BudgetSpent,
    CircuitOpen,
    RequestShed,
    Shed,
    UnsendableBody,
    UpstreamBadResponse,
    UpstreamError,
    UpstreamStatusError,
    UpstreamTimeout,
    UpstreamUnavailable,
)
from prerender.gateway.guards import Resource, ResourceGuards
from prerender.gateway.sessions import SessionPool
from prerender.gateway.tenant_breakers import tenant_of_headers
from prerender.gateway.upstream_clock import UpstreamClock
from prerender.metrics import SERVICE_KEY_REFUSED, UPSTREAM_CALLS, UPSTREAM_SECONDS

if TYPE_CHECKING:
    from urllib3.connectionpool import ConnectionPool
    from urllib3.response import BaseHTTPResponse

log = logging.getLogger(__name__)

# A JSON escape of a UTF-16 surrogate (U+D800 to U+DFFF): the only way a lone one gets into a decoded answer.
SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")

RETRYABLE_STATUSES = frozenset({502, 503, 504})
RETRY_PAUSE_SECONDS = 0.05
# The longest Retry-After of an upstream refusal passed on to the browser.
MAX_RETRY_AFTER_SECONDS = 60
DELAY_SECONDS = re.compile(r"[0-9]{1,6}")
# When prerender stops waiting for this attempt's answer (within a request's budget): Unix time in milliseconds,
# a time rather than a duration, so that a request left waiting in the upstream's socket does not get it afresh.
DEADLINE_HEADER = "X-Request-Deadline"


def _time_for_retry() -> bool:
    """Whether the request's budget leaves time for the pause and another attempt."""
    left = deadline.remaining()
    return left is None or left >= RETRY_PAUSE_SECONDS + MIN_CALL_SECONDS


class _ConnectTimeout(UpstreamTimeout):
    """A connect timeout: nothing reached the upstream, so even a write may be tried again."""


class UpstreamRetry(Retry):
    """urllib3's Retry with two changes: a read timeout is never retried, and attempts are a fixed pause apart."""

    def increment(
        self,
        method: str | None = None,
        url: str | None = None,
        response: BaseHTTPResponse | None = None,
        error: Exception | None = None,
        _pool: ConnectionPool | None = None,
        _stacktrace: TracebackType | None = None,
    ) -> Self:
        """The next state, or the read timeout raised as is (requests makes it a ReadTimeout)."""
        # Not `read=False`: that would also end the retries of urllib3's other read errors, such as a pooled
        # keep-alive connection the upstream had closed ("Connection aborted"), a requests ConnectionError.
        if isinstance(error, ReadTimeoutError):
            raise error.with_traceback(_stacktrace or error.__traceback__)
        return super().increment(method, url, response, error, _pool, _stacktrace)

    def get_backoff_time(self) -> float:
        """The same pause before every retry (urllib3's backoff makes the first one immediate)."""
        return RETRY_PAUSE_SECONDS


def upstream_retry(retries: int) -> UpstreamRetry:
    """`retries` extra attempts of any verb after a connection error, a connect timeout or a 502/503/504."""
    # raise_on_status=False: once retries are spent, the last 5xx comes back as a response (decoded into an
    # UpstreamStatusError), never a requests RetryError. Retry-After is not waited for: the caller's budget is.
    return UpstreamRetry(
        total=retries,
        allowed_methods=None,
        status_forcelist=RETRYABLE_STATUSES,
        raise_on_status=False,
        respect_retry_after_header=False,
    )


# The header that carries UPSTREAM_SERVICE_KEY (prerender/gateway/calls.py, `service_headers`).
SERVICE_KEY_HEADER = "X-Service-Key"


class UpstreamHttp:
    """JSON over HTTP to one base URL. Thread-safe: each thread (gthread worker) gets its own Sessions,
    created lazily, so nothing is shared across a fork either."""

    def __init__(
        self,
        *,
        base_url: str,
        connect_timeout: float,
        read_timeout: float,
        retries: int,
        pool_size: int,
        guards: ResourceGuards,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = (connect_timeout, read_timeout)
        self.retries = retries
        self.pool_size = pool_size
        self.guards = guards
        # Whether the upstream refused this worker's X-Service-Key at the last call that sent it: every browser
        # route then fails (502), and /readyz says so (prerender/blueprints/health.py).
        self.service_key_refused = False
        SERVICE_KEY_REFUSED.set(0)
        # The upstream's clock against this node's, from its answers: the deadlines told to it are in its time.
        self.upstream_clock = UpstreamClock()
        # Told a supplier-token the upstream refused (401) on a call made for a shopper (gateway/calls.py, `send`):
        # revoked since its supplier was cached (prerender/gateway/upstream.py wires the suppliers' `forget`; the
        # supplier lookup handles its own 401).
        self.token_refused: Callable[[str], None] | None = None
        # Proxy settings (HTTP_PROXY, NO_PROXY...) are read once: requests would read the environment
        # again on every call, which costs more than a loopback round trip.
        self.proxies = requests.utils.get_environ_proxies(self.base_url)
        self.verify: str | bool = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE") or True
        # Idempotency is per call, not per verb (the suggestion POST may be retried, a basket POST may not):
        # one session whose adapter retries, one whose adapter never does.
        retry = upstream_retry(retries)
        self._retrying = SessionPool(factory=lambda: self._new_session(max_retries=retry))
        self._single_attempt = SessionPool(factory=lambda: self._new_session(max_retries=0))

    def _note_service_key(self, headers: Mapping[str, str], error: UpstreamStatusError | None) -> None:
        """Follows what the upstream said of the service key, on a call that sent one: refused (its 401 names
        X-Service-Key: UPSTREAM_SERVICE_KEY is not one of the upstream's), or taken (any answer but that 401).
        The change is logged once: an error naming the setting, then its recovery."""
        if SERVICE_KEY_HEADER not in headers:
            return
        refused = error is not None and error.status == 401 and SERVICE_KEY_HEADER in str(error.problem.get("detail"))
        if refused == self.service_key_refused:
            return
        if refused:
            log.error(
                "the upstream refused UPSTREAM_SERVICE_KEY: browser routes fail until this node has the upstream's "
                "key (docs/operations.md, step 6)"
            )
        else:
            log.info("the upstream takes UPSTREAM_SERVICE_KEY again")
        self.service_key_refused = refused
        SERVICE_KEY_REFUSED.set(int(refused))

    def sessions(self, *, idempotent: bool) -> SessionPool:
        """The sessions for an idempotent call (retried by their adapter) or another one (never)."""
        return self._retrying if idempotent else self._single_attempt

    def _new_session(self, *, max_retries: Retry | int) -> requests.Session:
        """A session with this upstream's proxies, CA bundle and pool, its adapter retrying as told."""
        session = requests.Session()
        session.trust_env = False
        session.proxies.update(self.proxies)
        session.verify = self.verify
        adapter = HTTPAdapter(pool_connections=1, pool_maxsize=self.pool_size, max_retries=max_retries)
        session.mount("http://", adapter)
        session.mount("https://", adapter)
        return session

    def request(
        self,
        method: str,
        path: str,
        *,
        resource: Resource,
        name: str,
        headers: Mapping[str, str],
        params: Mapping[str, Any] | None = None,
        json: Any = None,
        idempotent: bool,
        expect_body: bool = True,
        tenant: str | None = None,
    ) -> Any:
        """Send one call through the breakers and the bulkhead of its `resource` (prerender/gateway/guards.py), its
        `tenant`'s (prerender/gateway/tenant_breakers.py, `tenant_key`; when not given, the supplier its headers
        name); return the decoded JSON (None for an empty answer when allowed). An upstream 4xx is an answer, so it
        counts as the upstream being alive. `name` is the call's label in the metrics (paths carry ids)."""
        if deadline.shed():
            raise RequestShed(f"{method} {path} not sent: the request was shed (prerender/web/admission.py)")
        guard = self.guards[resource]
        if tenant is None:
            tenant = tenant_of_headers(headers)
        try:
            admission = guard.breakers.allow(tenant)
        except CircuitOpen:
            UPSTREAM_CALLS.labels(name, "circuit_open").inc()
            raise
        started = time.perf_counter()
        outcome = "error"
        evidence: bool | None = None  # True: the upstream answered; False: it failed; None: no evidence either way
        try:
            with guard.bulkhead.place(wait=self._wait_for_place(), tenant=tenant):
                result = self._send(
                    method,
                    path,
                    headers=headers,
                    params=params,
                    json=json,
                    idempotent=idempotent,
                    expect_body=expect_body,
                )
            outcome, evidence = "ok", True
            self._note_service_key(headers, None)
            return result
        except Shed:
            outcome, evidence = "shed", None  # nothing was sent: this worker's overload, not the upstream's failure
            raise
        except UpstreamStatusError as error:
            # 5xx by status: a 500 (the upstream's own error, which the breakers ignore) apart from 502, 503, 504.
            outcome = f"status_{error.status}" if error.status >= 500 else f"status_{error.status // 100}xx"
            evidence = status_evidence(error.status)
            self._note_service_key(headers, error)
            raise
        except BudgetSpent:
            outcome, evidence = "budget_spent", None  # nothing was sent: not the upstream's failure
            raise
        except UpstreamTimeout as error:
            outcome = "timeout"
            # Cut short by this request's own budget before a fair wait: the caller's impatience, no evidence.
            fair = not error.cut_by_budget or error.given >= guard.breaker.policy.slow_call_seconds
            evidence = False if fair else None
            if not fair:
                outcome = "budget_cut"
            raise
        except UpstreamError as error:
            outcome, evidence = failure_outcome(error), False
            raise
        finally:
            guard.breakers.record(admission, evidence)
            UPSTREAM_CALLS.labels(name, outcome).inc()
            if outcome != "shed":
                UPSTREAM_SECONDS.labels(name).observe(time.perf_counter() - started)

    def _wait_for_place(self) -> float:
        """How long a call may wait for a place in its bulkhead: what its request's budget leaves for the wait and
        a call after it; without a budget, the connect timeout."""
        left = deadline.remaining()
        if left is None:
            return self.timeout[0]
        return left - MIN_CALL_SECONDS

    def _send(
        self,
        method: str,
        path: str,
        *,
        headers: Mapping[str, str],
        params: Mapping[str, Any] | None,
        json: Any,
        idempotent: bool,
        expect_body: bool,
    ) -> Any:
        """One call and its retries, its failures typed. Without a request budget the session's adapter retries
        (`upstream_retry`); within one (prerender/gateway/deadline.py) the attempts are made here, each with the
        timeouts cut to what is left, and a retry only when time is left for it."""
        endpoint = f"{method} {path}"
        if deadline.remaining() is None:
            response = self._attempt(
                self.sessions(idempotent=idempotent), method, path, headers, params, json, self.timeout, endpoint
            )
            return self._decode(response, endpoint, expect_body)
        attempts = 1 + (self.retries if idempotent else 0)
        attempt = 1
        failed: UpstreamError | requests.Response | None = None  # the attempt before, when it failed
        while True:
            try:
                timeout = self._timeout_within_budget(endpoint)
            except BudgetSpent:
                # Spent before a retry (its pause ran long): the call's outcome is its last attempt's, which was
                # sent. BudgetSpent says that nothing was: only the first attempt may raise it.
                if failed is None:
                    raise
                if isinstance(failed, UpstreamError):
                    raise failed from None
                return self._decode(failed, endpoint, expect_body)
            try:
                # The upstream learns when this attempt stops waiting: a write it could not commit by then is rolled
                # back, never applied after prerender gave up on it (docs/upstream.md, "Idempotency keys"). In its
                # own time: a clock that runs ahead would otherwise refuse every call (gateway/upstream_clock.py).
                sent = time.time()
                stops = sent + timeout[1] + self.upstream_clock.deadline_correction()
                timed = {**headers, DEADLINE_HEADER: str(int(stops * 1000))}
                response = self._attempt(self._single_attempt, method, path, timed, params, json, timeout, endpoint)
                self.upstream_clock.observe(response.headers.get("Date"), sent=sent, received=time.time())
            except (UpstreamUnavailable, _ConnectTimeout) as error:
                if attempt == attempts or not _time_for_retry():
                    raise
                failed = error
            else:
                if response.status_code not in RETRYABLE_STATUSES or attempt == attempts or not _time_for_retry():
                    return self._decode(response, endpoint, expect_body)
                failed = response
            attempt += 1
            time.sleep(RETRY_PAUSE_SECONDS)

    def _timeout_within_budget(self, endpoint: str) -> tuple[float, float]:
        """The (connect, read) timeouts of an attempt, cut to what is left of the request's budget."""
        left = deadline.remaining()
        if left is None:
            return self.timeout
        if left < MIN_CALL_SECONDS:
            raise BudgetSpent(f"request budget spent before {endpoint}")
        connect, read = self.timeout
        return min(connect, left), min(read, left)

    def _attempt(
        self,
        sessions: SessionPool,
        method: str,
        path: str,
        headers: Mapping[str, str],
        params: Mapping[str, Any] | None,
        json: Any,
        timeout: tuple[float, float],
        endpoint: str,
    ) -> requests.Response:
        """One request through a session of `sessions`, its transport failures typed."""
        try:
            with sessions.borrow() as session:
                return session.request(
                    method,
                    f"{self.base_url}{path}",
                    # The request's trace, if it has one: prerender's span is the call's parent (gateway/trace.py).
                    headers={**headers, **trace.outgoing_headers()},
                    params=params,
                    json=json,
                    timeout=timeout,
                )
        except requests.exceptions.ConnectTimeout as error:
            # Before requests.exceptions.ConnectionError, a base class of ConnectTimeout.
            raise _ConnectTimeout(
                f"connect timeout on {endpoint}", given=timeout[0], configured=self.timeout[0]
            ) from error
        except requests.exceptions.Timeout as error:
            raise UpstreamTimeout(
                f"read timeout on {endpoint}", given=timeout[1], configured=self.timeout[1]
            ) from error
        except requests.exceptions.ConnectionError as error:
            # Refused, reset or TLS failures, retries exhausted or not (urllib3's MaxRetryError inside).
            raise UpstreamUnavailable(f"cannot reach upstream for {endpoint}") from error
        except requests.exceptions.InvalidJSONError as error:
            # Raised before anything is sent (a NaN in the body): not the upstream's doing, so no UpstreamError.
            raise UnsendableBody(f"body of {endpoint} has no JSON form") from error
        except requests.exceptions.RequestException as error:
            # Broken chunked bodies, bad encodings, redirect loops: the answer is unusable.
            raise UpstreamBadResponse(f"unusable answer to {endpoint}: {error!r}") from error

    @staticmethod
    def _decode(response: requests.Response, endpoint: str, expect_body: bool) -> Any:
        if response.status_code >= 400:
            try:
                problem = response.json()
            except ValueError:
                problem = None
            raise UpstreamStatusError(
                response.status_code,
                problem if isinstance(problem, dict) else None,
                endpoint,
                retry_after=retry_after_seconds(response.headers.get("Retry-After")),
            )
        if not response.content:
            if expect_body:
                raise UpstreamBadResponse(f"empty answer from {endpoint}")
            return None
        try:
            answer = response.json()
        except ValueError as error:
            raise UpstreamBadResponse(f"answer of {endpoint} is not JSON") from error
        return without_lone_surrogates(answer) if SURROGATE_ESCAPE.search(response.content) else answer


def status_evidence(status: int) -> bool | None:
    """What an upstream's error status says to its breaker. A 4xx is an answer: the upstream is alive (True). A 502,
    503 or 504 says it cannot serve now: a failure (False). A 500 is an error of the upstream's own in answering
    this request, which one request's input can cause again and again: no evidence (None), so that no caller can
    open a resource's circuit for everyone with it (coreapi answers 503 when its database fails: docs/upstream.md)."""
    if status < 500:
        return True
    return None if status == 500 else False


def failure_outcome(error: UpstreamError) -> str:
    """The `outcome` label of an upstream call that failed otherwise than by its status or a timeout (the values:
    docs/operations.md, "Metrics")."""
    if isinstance(error, UpstreamUnavailable):
        return "unreachable"
    if isinstance(error, UpstreamBadResponse):
        return "bad_answer"
    return "error"


def retry_after_seconds(value: str | None) -> int | None:
    """A `Retry-After` of delay-seconds (the upstream's form), at most a minute; None for none or another form."""
    if value is None or DELAY_SECONDS.fullmatch(value.strip()) is None:  # str.isdigit() takes "²"
        return None
    return min(int(value.strip()), MAX_RETRY_AFTER_SECONDS)


def without_lone_surrogates(value: Any) -> Any:
    """`value` (decoded JSON) with each lone surrogate of its texts replaced by U+FFFD, as a browser decodes one.
    JSON may escape half of a UTF-16 pair on its own (`"\\ud800"`); such a text has no UTF-8 form, so one in
    a recipe's title would fail the fragment's encoding, while a pair escaped whole is one character already."""
    if isinstance(value, str):
        return LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [without_lone_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {without_lone_surrogates(key): without_lone_surrogates(item) for key, item in value.items()}
    return value
