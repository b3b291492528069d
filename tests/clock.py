"""A clock that moves only when a test moves it, for the code that reads `time.monotonic`: given where the code
takes a clock (`clock=`), set for a function a module looks up (`time.monotonic`), or standing for a module's
`time` itself (it has `monotonic`)."""

from __future__ import annotations


class FakeClock:
    """Stands at 1000.0 until the test changes `now`; called, or its `monotonic()`, it reads `now`."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def monotonic(self) -> float:
        return self.now
