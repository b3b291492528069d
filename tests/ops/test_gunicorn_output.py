"""What an operator meets in gunicorn's output, gunicorn.conf.py and the command of `make run`
(tools/devstack.py) as shipped. A setting the service cannot run with stops the start at once, its output
naming the variable in one line, not the application's traceback (before, these started a server that failed
every request or never answered: prerender/config_checks.py). The access log names no shopper."""

from __future__ import annotations

import os
import subprocess
import time

import pytest
import requests

from tests.ops.conftest import ROOT, GunicornPrerender, free_port, load_devstack

START_SECONDS = 60


@pytest.mark.parametrize(
    ("name", "value", "line"),
    [
        (
            "PRERENDER_MAX_URL_BYTES",
            "abc",
            "prerender cannot start: PRERENDER_MAX_URL_BYTES: a whole number (got 'abc')",
        ),
        ("PRERENDER_ELEMENT_PREFIX", "Acme", "prerender cannot start: PRERENDER_ELEMENT_PREFIX: lower-case letters"),
        ("GUNICORN_WORKERS", "0", "GUNICORN_WORKERS: a whole number of 1 or more (got '0')"),
    ],
)
def test_a_bad_setting_stops_the_start_with_one_line_naming_it(tmp_path, name, value, line):
    command = load_devstack().Service("prerender", free_port(), "wsgi:app", "/healthz", {}).command()
    environment = {key: val for key, val in os.environ.items() if not key.startswith(("GUNICORN_", "PRERENDER_"))}
    environment.update({"PROMETHEUS_MULTIPROC_DIR": str(tmp_path), "GUNICORN_WORKERS": "2", name: value})
    done = subprocess.run(
        command, cwd=ROOT, env=environment, capture_output=True, text=True, timeout=START_SECONDS, check=False
    )
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    # No traceback of the application (gunicorn's arbiter may print its own when both workers stop at once).
    assert line in output and "create_app" not in output and "config_checks.py" not in output, output


def test_gunicorn_s_access_log_leaves_out_the_query_which_may_name_a_shopper(tmp_path, coreapi_url, stack):
    """`GUNICORN_ACCESS_LOG=-` wrote each request line whole: a merge's `authless_id` in clear, which every other
    log leaves out. The line keeps the path and the answer's request id."""
    with GunicornPrerender(tmp_path, coreapi_url, stack, environ={"GUNICORN_ACCESS_LOG": "-"}) as server:
        # Connection: close, so that the stop does not wait for an idle kept-alive connection (keepalive, 5 s).
        answer = requests.get(
            f"{server.url}/healthz?authless_id=visitor-in-clear", headers={"Connection": "close"}, timeout=10
        )
        deadline = time.monotonic() + START_SECONDS
        while answer.headers["X-Request-Id"] not in server.logs():
            assert time.monotonic() < deadline, server.logs()
            time.sleep(0.1)
    line = next(line for line in server.logs().splitlines() if answer.headers["X-Request-Id"] in line)
    assert '"GET /healthz HTTP/1.1" 200' in line and "visitor-in-clear" not in server.logs()
