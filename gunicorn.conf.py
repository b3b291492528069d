"""gunicorn settings for every process of the stack (prerender, coreapi, the demo shop)."""

import multiprocessing
import os

from prometheus_client import multiprocess

worker_class = "gthread"
# One process per CPU (at least two, so a worker's restart never leaves none), eight threads each: rendering
# holds the GIL, so more processes than CPUs only add contention, while threads cover the waits on the
# upstream. Measured with `make bench` against 4 x 4, 3 x 4, 4 x 2 and 2 x 4 (docs/performance.md).
workers = int(os.environ.get("GUNICORN_WORKERS", max(2, multiprocessing.cpu_count())))
threads = int(os.environ.get("GUNICORN_THREADS", 8))
# Longer than the upstream timeouts (prerender/config.py), so a slow upstream never kills a worker.
timeout = 30
graceful_timeout = 10
keepalive = 5
# Recycle workers now and then (a guard against slow leaks), rarely enough that a worker's boot (~0.5 s of
# CPU) and its cold caches stay out of the figures: at ~1000 cached cards/s per node, 2000 restarted a
# worker every few seconds and halved the cached-card throughput in `make bench` (docs/performance.md).
max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS", 20000))
max_requests_jitter = max_requests // 10
# Roomier than prerender's own URL and header limits (prerender/config.py), which answer a problem+json
# naming what is too large; these only stop absurd requests before Python reads them.
limit_request_line = 8190
limit_request_fields = 200
limit_request_field_size = 16380
# Each app logs its own requests (prerender: one JSON line with the request id); set GUNICORN_ACCESS_LOG=-
# to add gunicorn's own access lines.
accesslog = os.environ.get("GUNICORN_ACCESS_LOG")
# The apps' logs (prerender's JSON lines) and the access log go to stdout; gunicorn's own lifecycle messages
# to stderr ("-"). Pointing errorlog at /dev/stdout would open a second file description on stdout, and
# under a shell's `> file` the two offsets overwrite each other's lines.
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")
# The three processes of `make run` share this file: a shared control socket path would let one server
# take another's. The stack is managed by signals; no control socket is needed.
control_socket_disable = True


def child_exit(server, worker):
    """A dead worker's gauges leave prometheus-client's multiprocess files (prerender/metrics.py)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.mark_process_dead(worker.pid)
