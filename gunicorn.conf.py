"""gunicorn settings for every process of the stack (prerender, coreapi, the demo shop)."""

import json
import multiprocessing
import os
import re

from gunicorn import util as gunicorn_util
from prometheus_client import multiprocess


def count_from_environment(name: str, default: int) -> int:
    """A count of at least 1 from the environment variable `name`: 0 workers or connections started a server that
    never answered, and a value that is no whole number a traceback. Anything else stops the start with one line."""
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    if not re.fullmatch(r"[0-9]+", text) or int(text) < 1:
        raise SystemExit(f"{name}: a whole number of 1 or more (got {text!r})")
    return int(text)


# gevent workers: each connection is a greenlet, so a client that sends its request slowly costs a few KiB,
# not one of a fixed pool of threads. With gthread (2 workers x 8 threads), 16 connections sending their
# headers a byte at a time left /healthz unanswered; with gevent, 64 such connections (and 64 sending their
# bodies slowly) leave it answering (tests/ops/test_slow_clients.py). gevent's worker also drops a request
# head not complete within `keepalive` seconds. The app stays sync Flask: gevent's patched sockets, locks and
# threads serve requests, redis and the upstream pool (a ThreadPoolExecutor) unchanged, and the circuit
# breaker and multiprocess metrics stay per process (tests/ops/test_worker_class.py). nginx in front is
# still the production setup, and what stops slow clients there (docs/operations.md, "Slow clients").
# GUNICORN_WORKER_CLASS=gthread goes back to threads (GUNICORN_THREADS each).
worker_class = os.environ.get("GUNICORN_WORKER_CLASS", "gevent")
# One process per CPU (at least two, so a worker's restart never leaves none): rendering holds the GIL, so
# more processes than CPUs only add contention, while greenlets (threads, with gthread) cover the waits on
# the upstream. Chosen with gthread workers in `make bench` (docs/performance.md: against 4 x 4, 3 x 4, 4 x 2
# and 2 x 4); gevent's runs are in docs/operations.md, "Slow clients".
workers = count_from_environment("GUNICORN_WORKERS", max(2, multiprocessing.cpu_count()))
# Connections each worker holds at once (gevent: greenlets, each a request in progress or an idle
# kept-alive connection); beyond, new connections wait in the listen backlog.
worker_connections = count_from_environment("GUNICORN_WORKER_CONNECTIONS", 1000)
# gthread only: threads per worker.
threads = count_from_environment("GUNICORN_THREADS", 8)
# Longer than the upstream timeouts (prerender/config.py), so a slow upstream never kills a worker.
timeout = 30
graceful_timeout = 10
# Also, with gevent, the time a request head may take to arrive, from the connection or the previous answer.
keepalive = 5
# Workers are recycled on memory growth (a guard against slow leaks), not on a request count: a count is a
# rate that follows throughput (at wrk's 2,000 to 7,000 requests per second, 20,000 restarted each worker every
# few seconds, with ~0.5 s of boot and cold per-worker caches each time). `post_request` below checks the
# worker's RSS every RSS_CHECK_EVERY requests and retires it, gracefully, beyond GUNICORN_MAX_WORKER_RSS_MB.
# GUNICORN_MAX_REQUESTS still adds a count when an operator wants one (0, the default: none).
max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS", 0))
max_requests_jitter = max_requests // 10
MAX_WORKER_RSS_MB = float(os.environ.get("GUNICORN_MAX_WORKER_RSS_MB", 300))
RSS_CHECK_EVERY = int(os.environ.get("GUNICORN_RSS_CHECK_EVERY", 1000))
# Roomier than prerender's own URL and header limits (prerender/config.py: 8000 bytes of path and query,
# 100 headers of at most 8192 bytes), which answer a problem+json naming what is too large; these only stop
# absurd requests before Python reads them (with `write_problem` below; nginx in front,
# deploy/nginx/prerender.conf, refuses them first). 8190 is the largest request line gunicorn accepts, and as
# long a line as nginx's 8 KiB buffer holds.
limit_request_line = 8190
limit_request_fields = 200
limit_request_field_size = 16380
# Each app logs its own requests (prerender: one JSON line with the request id); set GUNICORN_ACCESS_LOG=-
# to add gunicorn's own access lines.
accesslog = os.environ.get("GUNICORN_ACCESS_LOG")
# The path without its query, and no referer: queries carry shoppers' ids (a merge's `authless_id`), which the
# apps' own logs leave out (docs/operations.md, "Logs"). The answer's request id ties a line to the app's.
access_log_format = '%(h)s %(t)s "%(m)s %(U)s %(H)s" %(s)s %(b)s %(L)ss "%(a)s" %({x-request-id}o)s'
# The apps' logs (prerender's JSON lines) and the access log go to stdout; gunicorn's own lifecycle messages
# to stderr ("-"). Pointing errorlog at /dev/stdout would open a second file description on stdout, and
# under a shell's `> file` the two offsets overwrite each other's lines.
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")
# The three processes of `make run` share this file: a shared control socket path would let one server
# take another's. The stack is managed by signals; no control socket is needed.
control_socket_disable = True


# What gunicorn says itself, before any app runs (a control character, Content-Length with
# Transfer-Encoding, a request line over limit_request_line...), in the apps' error shape rather than
# gunicorn's HTML page: RFC 9457 problem+json (prerender/web/errors.py). gunicorn's workers write those
# answers with gunicorn.util.write_error(sock, status, reason, message); this replaces it in every process
# that loads this file (the master, before it forks its workers). tests/ops/test_edge_errors.py checks it.
MAX_DETAIL = 200


def write_problem(sock, status_int, reason, mesg):
    """gunicorn's refusal of a malformed request, as problem+json; its message shortened, JSON-escaped."""
    detail = " ".join(str(mesg or reason).split())[:MAX_DETAIL]
    body = json.dumps(
        {"type": "about:blank", "title": reason, "status": status_int, "detail": f"Malformed request: {detail}"}
    ).encode()
    head = (
        f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\nContent-Type: application/problem+json\r\n"
        f"X-Content-Type-Options: nosniff\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode("latin-1")
    gunicorn_util.write_nonblock(sock, head + body)


gunicorn_util.write_error = write_problem


# gevent schedules greenlets unfairly under load: a greenlet whose client sends its next request at once on a
# kept-alive connection reads it without going back to the hub, so a few connections are served again and again
# while the others wait. wrk at 64 connections on the README's card: p50 2 ms but p99 2.1 s and client timeouts
# over 5 s, for a server-side p99 under 5 ms. After every request a gevent worker now waits until its loop is idle
# (gevent.idle: every other greenlet with something to do goes first), which serves the connections in turn:
# p99 45 to 180 ms in the same run (gevent.sleep(0) kept a p99 of 0.5 to 1 s; docs/performance.md, issue 22).
YIELD = None
if worker_class == "gevent":
    from gevent import idle as YIELD  # only gevent workers have gevent loaded


# Expect: 100-continue. gunicorn writes "100 Continue" as soon as it has read a request's head, before the app
# runs, so a client sends a body the app then refuses anyway: a Content-Length over prerender's
# MAX_CONTENT_LENGTH got "100 Continue", then the 413 (prerender/web/request_limits.py answers it before
# anything reads the body). Here, as gevent's own WSGI server does, the interim answer is written when the app
# first reads the body; an app that answers without reading it (a 413, a 401...) sends its final answer only,
# and the connection is closed after it, since the client may still send the body it announced (RFC 9110,
# section 10.1.1). tests/ops/test_gunicorn_refusals.py reads the bytes on the socket.
CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"


class ContinueOnFirstRead:
    """A request's body (gunicorn's Body: read, readline, readlines, iteration) that writes `100 Continue` to
    the client when it is first read, then lets the connection be kept alive again."""

    def __init__(self, body, sock, req):
        self.body, self.sock, self.req = body, sock, req
        self.sent = False

    def _continue(self):
        if not self.sent:
            self.sent = True
            self.sock.sendall(CONTINUE)
            self.req.must_close = False  # the body will be read whole: the connection can serve another request

    def read(self, size=None):
        self._continue()
        return self.body.read(size)

    def readline(self, size=None):
        self._continue()
        return self.body.readline(size)

    def readlines(self, size=None):
        self._continue()
        return self.body.readlines(size)

    def __iter__(self):
        self._continue()
        return iter(self.body)


def pre_request(worker, req):
    """gunicorn's default (a debug line), and its early `100 Continue` put off to the app's first read."""
    worker.log.debug("%s %s", req.method, req.path)
    sock = getattr(getattr(req, "unreader", None), "sock", None)
    if getattr(req, "_expected_100_continue", False) and sock is not None:
        req._expected_100_continue = False  # what gunicorn's wsgi.create reads to write it at once
        req.must_close = True  # until the body is read
        req.body = ContinueOnFirstRead(req.body, sock, req)


def child_exit(server, worker):
    """A dead worker's gauges leave prometheus-client's multiprocess files (prerender/metrics.py)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.mark_process_dead(worker.pid)


def rss_mb() -> float:
    """This process's resident memory in MB (Linux /proc; 0 elsewhere: never recycled then)."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / (1024 * 1024)
    except (OSError, ValueError, IndexError):
        return 0.0


def post_request(worker, req, environ, resp):
    """After each request, a gevent worker lets its other greenlets run first (YIELD). Every RSS_CHECK_EVERY
    requests, a worker grown beyond MAX_WORKER_RSS_MB finishes its requests and is replaced (gunicorn starts a new
    one): recycling that follows memory, not throughput."""
    if YIELD is not None:
        YIELD()
    worker.served_since_check = getattr(worker, "served_since_check", 0) + 1
    if worker.served_since_check < RSS_CHECK_EVERY:
        return
    worker.served_since_check = 0
    size = rss_mb()
    if size > MAX_WORKER_RSS_MB and worker.alive:
        worker.log.info("worker %s uses %.0f MB (> %.0f MB): recycling it", worker.pid, size, MAX_WORKER_RSS_MB)
        worker.alive = False
