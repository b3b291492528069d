"""Debian's `wrk` as the bench's load generator where a Python one would top out first (a Python process cannot
saturate `/healthz` on this machine, so its ratios flatter every route measured against it).

`run` turns a list of Calls (bench/load.py) into a wrk Lua script that sends them round robin, counts the answers
by status class (and 200s with an empty body, an empty card; answers marked `X-Degraded`; whole ones: 200, a body,
no mark), and prints one JSON line in `done`: requests, duration, socket errors, latency percentiles (client side)
and the counts. A call's path may hold `{n}`, replaced by a per-thread request counter (a stream of different
users). With `pause`, each connection waits a random time of that mean (uniform, from 0 to twice it) after an
answer before its next request (wrk's `delay`): a client whose pace does not follow the server's speed, its
connections out of step.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .load import HEADERS, Call

MARK = "WRK-RESULT "

SCRIPT = r"""
local calls = %(calls)s
local pause_ms = %(pause_ms)d
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  n = 0
  index = 0
  counts = {s2 = 0, s3 = 0, s4 = 0, s5 = 0, empty = 0, retry_after = 0, degraded = 0, whole = 0}
  fixed = {}
  for i, call in ipairs(calls) do
    if not string.find(call.path .. (call.header_template or ""), "{n}", 1, true) then
      fixed[i] = wrk.format(call.method, call.path, call.headers, call.body)
    end
  end
end

function request()
  index = index %% #calls + 1
  if fixed[index] then
    return fixed[index]
  end
  n = n + 1
  local call = calls[index]
  local headers = {}
  for k, v in pairs(call.headers) do
    headers[k] = string.gsub(v, "{n}", tostring(n %% 5000))
  end
  local path = string.gsub(call.path, "{n}", tostring(n))
  return wrk.format(call.method, path, headers, call.body)
end

if pause_ms > 0 then
  function delay()
    return math.random(0, 2 * pause_ms)
  end
end

function response(status, headers, body)
  local class = "s" .. tostring(math.floor(status / 100))
  counts[class] = (counts[class] or 0) + 1
  if status == 200 and (body == nil or string.len(body) == 0) then
    counts.empty = counts.empty + 1
  end
  if status == 503 and (headers["Retry-After"] or headers["retry-after"]) then
    counts.retry_after = counts.retry_after + 1
  end
  local degraded = headers["X-Degraded"] or headers["x-degraded"]
  if degraded then
    counts.degraded = counts.degraded + 1
  elseif status == 200 and body ~= nil and string.len(body) > 0 then
    counts.whole = counts.whole + 1
  end
end

function done(summary, latency, requests)
  local total = {s2 = 0, s3 = 0, s4 = 0, s5 = 0, empty = 0, retry_after = 0, degraded = 0, whole = 0}
  for _, thread in ipairs(threads) do
    local c = thread:get("counts")
    for k, v in pairs(c) do
      total[k] = (total[k] or 0) + v
    end
  end
  local e = summary.errors
  io.write(string.format(
    "%(mark)s{\"requests\": %%d, \"duration_us\": %%d, \"connect\": %%d, \"read\": %%d, \"write\": %%d, " ..
    "\"timeout\": %%d, \"p50_us\": %%d, \"p99_us\": %%d, \"max_us\": %%d, \"s2\": %%d, \"s3\": %%d, \"s4\": %%d, " ..
    "\"s5\": %%d, \"empty\": %%d, \"retry_after\": %%d, \"degraded\": %%d, \"whole\": %%d}\n",
    summary.requests, summary.duration, e.connect, e.read, e.write, e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max,
    total.s2, total.s3, total.s4, total.s5, total.empty, total.retry_after, total.degraded,
    total.whole))
end
"""


@dataclass(frozen=True)
class WrkResult:
    requests: int
    seconds: float
    socket_errors: int  # connect, read, write errors and client timeouts
    timeouts: int
    p50: float  # seconds, client side
    p99: float
    worst: float
    statuses: dict[str, int]  # "2xx".."5xx"
    empty: int  # 200 answers with an empty body
    retry_after: int  # 503 answers carrying Retry-After
    degraded: int  # answers marked X-Degraded (prerender/web/degraded.py): empty, stale or shed
    whole: int  # 200 answers with a body and no X-Degraded mark

    @property
    def throughput(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0


def find_wrk() -> str | None:
    return shutil.which("wrk")


def lua_string(value: str) -> str:
    return json.dumps(value)  # a JSON string is a valid Lua string literal for these ASCII values


def lua_calls(calls: Sequence[Call]) -> str:
    items = []
    for call in calls:
        headers = {**HEADERS, **dict(call.headers)}
        if call.body is not None:
            headers["Content-Type"] = "application/json"
        header_items = ", ".join(f"[{lua_string(k)}] = {lua_string(v)}" for k, v in headers.items())
        body = "nil" if call.body is None else lua_string(call.body.decode())
        template = "".join(headers.values())
        items.append(
            f"{{method = {lua_string(call.method)}, path = {lua_string(call.path)}, headers = {{{header_items}}}, "
            f"body = {body}, header_template = {lua_string(template)}}}"
        )
    return "{" + ", ".join(items) + "}"


def run(
    base_url: str,
    calls: Sequence[Call],
    *,
    seconds: float,
    connections: int,
    threads: int = 2,
    timeout: float = 5.0,
    pause: float = 0.0,
    binary: str = "wrk",
) -> WrkResult:
    """Load `base_url` with `calls` round robin for `seconds` over `connections` kept-alive connections, each
    waiting `pause` seconds on average after an answer before its next request."""
    script = SCRIPT % {"calls": lua_calls(calls), "mark": MARK, "pause_ms": round(pause * 1000)}
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as file:
        file.write(script)
        path = Path(file.name)
    try:
        command = [
            binary,
            f"-t{min(threads, connections)}",
            f"-c{connections}",
            f"-d{max(1, round(seconds))}s",
            f"--timeout={timeout:g}s",
            "-s",
            str(path),
            base_url.rstrip("/") + "/",
        ]
        output = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 60, check=True).stdout
    finally:
        path.unlink(missing_ok=True)
    line = next((line for line in output.splitlines() if line.startswith(MARK)), None)
    if line is None:
        raise RuntimeError(f"wrk printed no result: {output[-500:]}")
    data = json.loads(line[len(MARK) :])
    return WrkResult(
        requests=data["requests"],
        seconds=data["duration_us"] / 1e6,
        socket_errors=data["connect"] + data["read"] + data["write"] + data["timeout"],
        timeouts=data["timeout"],
        p50=data["p50_us"] / 1e6,
        p99=data["p99_us"] / 1e6,
        worst=data["max_us"] / 1e6,
        statuses={f"{k[1]}xx": data[k] for k in ("s2", "s3", "s4", "s5")},
        empty=data["empty"],
        retry_after=data["retry_after"],
        degraded=data["degraded"],
        whole=data["whole"],
    )
