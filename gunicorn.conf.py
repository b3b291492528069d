"""gunicorn settings for every process of the stack (prerender, coreapi, the demo shop)."""
import multiprocessing
import os

from prometheus_client import multiprocess

worker_class = "gthread"
workers = int(os.environ.get("GUNICORN_WORKERS", min(4, multiprocessing.cpu_count() * 2)))
threads = int(os.environ.get("GUNICORN_THREADS", 4))
# Longer than the upstream timeouts (prerender/config.py), so a slow upstream never kills a worker.
timeout = 30
graceful_timeout = 10
keepalive = 5
max_requests = 2000
max_requests_jitter = 200
# Roomier than prerender's own URL and header limits (prerender/config.py), which answer a problem+json
# naming what is too large; these only stop absurd requests before Python reads them.
limit_request_line = 8190
limit_request_fields = 200
limit_request_field_size = 16380
# Each app logs its own requests (prerender: one JSON line with the request id); set GUNICORN_ACCESS_LOG=-
# to add gunicorn's own access lines.
accesslog = os.environ.get("GUNICORN_ACCESS_LOG")
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")
# The three processes of `make run` share this file: a shared control socket path would let one server
# take another's. The stack is managed by signals; no control socket is needed.
control_socket_disable = True


def child_exit(server, worker):
    """A dead worker's gauges leave prometheus-client's multiprocess files (prerender/metrics.py)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.mark_process_dead(worker.pid)
