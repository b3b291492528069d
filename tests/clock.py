"""Clocks that move only when a test moves them. `FakeClock`, for the code that reads `time.monotonic`: given
where the code takes a clock (`clock=`), set for a function a module looks up (`time.monotonic`), or standing for
a module's `time` itself (it has `monotonic`). `WallClock`, for the code that reads `time.time`, standing for a
module's `time`."""

from __future__ import annotations

import time


class FakeClock:
    """Stands at 1000.0 until the test changes `now`; called, or its `monotonic()`, it reads `now`."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def monotonic(self) -> float:
        return self.now


class WallClock:
    """Stands at the real time of its making until the test changes `now`; its `time()` reads `now`."""

    def __init__(self) -> None:
        self.now = time.time()

    def time(self) -> float:
        return self.now
