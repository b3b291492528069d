"""`python -m bench.queue_age [ROUNDS] [SECONDS] [MIX]`: what counting the queue in the upstream budget does to a spike.

MIX `fragments` (the default): figure 8's fragment mix (bench/resilience.py); `users`: the README's logged-in card
for a stream of 5000 users (figure 1b's), each new one a like-state miss and a credential to sign, the load that
keeps prerender's own CPU busy. At 64 connections, through the shipped nginx
(deploy/nginx/prerender.conf, which stamps each request's arrival in `X-Request-Start`), to two prerender nodes of
one private stack (bench/stack.py): one with `PRERENDER_TRUST_REQUEST_START` off (the budget starts when the worker
reads the request) and one with it on (it starts at the arrival; prerender/web/queue_age.py). One node is loaded at
a time, in alternating order, each round first for 5 s at one connection (the unloaded p99), then for SECONDS at 64.
Prints a line per run and the medians: the client-side p50 and p99, figure 8b's limit (3 x the unloaded p99 + the
0.8 s budget), the empty (degraded or shed) answers and the 5xx. Needs Debian's wrk and nginx.
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable

from . import wrk
from .load import Call
from .nginx import NginxFront, find_nginx
from .resilience import FRAGMENT_BUDGET, SPIKE_MIN_CONNECTIONS, fragment_mix
from .stack import Stack, free_port


def stream_of_users() -> list[Call]:
    """The README's logged-in card for 5000 users in turn ({n}: bench/wrk.py)."""
    return [
        Call(
            "/v1/recipe-card?recipe_id=1&store_id=1001",
            need_body=True,
            headers=(("authorization", "user_id queue-user-{n}"),),
        )
    ]


MIXES: dict[str, Callable[[], list[Call]]] = {"fragments": fragment_mix, "users": stream_of_users}


def main() -> int:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    seconds = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    binary, nginx = wrk.find_wrk(), find_nginx()
    if binary is None or nginx is None:
        print("bench.queue_age needs Debian's wrk and nginx (apt-get install wrk nginx)")
        return 1
    mix = sys.argv[3] if len(sys.argv) > 3 else "fragments"
    if mix not in MIXES:
        print(f"bench.queue_age: MIX is one of {', '.join(MIXES)}")
        return 1
    calls = MIXES[mix]()
    runs: dict[str, list[tuple[float, float, float]]] = {"off": [], "on": []}
    with Stack() as stack:
        stack.start()
        trusting = stack.start_prerender("prerender-trusting", free_port(), {"PRERENDER_TRUST_REQUEST_START": "true"})
        (stack.tmp / "nginx-off").mkdir()
        (stack.tmp / "nginx-on").mkdir()
        with (
            NginxFront(nginx, stack.tmp / "nginx-off", stack.prerender_url) as off,
            NginxFront(nginx, stack.tmp / "nginx-on", trusting) as on,
        ):
            fronts = [("off", off.url), ("on", on.url)]
            for _, url in fronts:  # warm both: caches, connections, workers
                wrk.run(url, calls, seconds=3, connections=8, binary=binary)
            for round_number in range(rounds):
                for arm, url in fronts if round_number % 2 == 0 else fronts[::-1]:
                    quiet = wrk.run(url, calls, seconds=5, connections=1, binary=binary)
                    loaded = wrk.run(url, calls, seconds=seconds, connections=SPIKE_MIN_CONNECTIONS, binary=binary)
                    limit = 3 * quiet.p99 + FRAGMENT_BUDGET
                    runs[arm].append((loaded.p50, loaded.p99, limit))
                    print(
                        f"round {round_number} trust {arm:3}: p50 {loaded.p50 * 1000:4.0f} ms, p99 "
                        f"{loaded.p99 * 1000:5.0f} ms (8b's limit {limit * 1000:5.0f} ms); {loaded.requests} answers, "
                        f"{loaded.empty} empty, {loaded.statuses['5xx']} 5xx, {loaded.socket_errors} socket errors",
                        flush=True,
                    )
    for arm, measured in runs.items():
        p50s, p99s, _ = zip(*measured, strict=True)
        print(
            f"trust {arm:3}: median p50 {statistics.median(p50s) * 1000:.0f} ms, median p99 "
            f"{statistics.median(p99s) * 1000:.0f} ms (range {min(p99s) * 1000:.0f} to {max(p99s) * 1000:.0f}), "
            f"within 8b's limit in {sum(p99 <= limit for _, p99, limit in measured)} of {len(measured)}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
