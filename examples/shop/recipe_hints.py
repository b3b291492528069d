"""Which recipe prerender's card showed for a pair of products, remembered a while for the visitor's session.

A shelf page must not show one recipe twice, and prerender's card for two neighbouring products often repeats
a recipe of the page: the page then asks again with other neighbours (examples/shop/fragments.py), a second
round of requests after the first. The recipe a context leads to is drawn from the products, the store, the
shopper's likes and a key of the browsing session (coreapi/services/suggestions.py, `suggest`): the same
visitor's next shelf gets the same draw. The shop remembers it per session and shopper, without anything of
the card itself (no HTML, no credential), so that the next page asks at once for the pairs that give new
recipes. A hint is only a guess: every card is still checked when it comes back, and a wrong hint costs the
second round it would have cost without hints.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import NamedTuple


class HintKey(NamedTuple):
    """A card's context for one shopper: the route (`single`, or `band` for the multiple route), the shopper
    (`user:<id>` or `authless:<id>`), the browsing session, the store, the language and the ids of the two
    products around the card."""

    route: str
    shopper: str
    session_id: str
    store_id: str | None
    language: str
    product_ids: tuple[str, str]


class RecipeHints:
    """The recipe id each card context showed last, for `ttl` seconds, at most `size` contexts (the least
    recently used go first). Thread-safe."""

    def __init__(self, *, ttl: float, size: int = 4096, clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl = ttl
        self.size = size
        self._clock = clock
        self._entries: OrderedDict[HintKey, tuple[float, str]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: HintKey) -> str | None:
        """The recipe the context showed within `ttl` seconds, or None (never seen, or too long ago)."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            if entry[0] <= self._clock():
                del self._entries[key]
                return None
            self._entries.move_to_end(key)
            return entry[1]

    def put(self, key: HintKey, recipe_id: str) -> None:
        """Remembers what the context showed now."""
        if self.ttl <= 0:
            return
        with self._lock:
            self._entries[key] = (self._clock() + self.ttl, recipe_id)
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
