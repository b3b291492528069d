"""A per-process memo of rendered fragments, keyed by everything a fragment is rendered from.

A card's HTML is a pure function of its view model (`cards.RecipeCardView`, which already holds the recipe
data, the options and the user's like state), its texts and its script URLs. Keying on those values, not on
the request, makes the memo correct by construction: a changed price, title or heart is a new key, never a
stale hit. It saves the template rendering (most of a cached card's time); old keys fall out of the LRU, a
`memory_cache.LockedLru` (a cachetools LRUCache behind a lock: gthread workers share the memo).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from flask import Flask, current_app

from prerender.memory_cache import LockedLru
from prerender.metrics import FRAGMENT_MEMO_LOOKUPS

MEMO_HITS = FRAGMENT_MEMO_LOOKUPS.labels("hit")
MEMO_MISSES = FRAGMENT_MEMO_LOOKUPS.labels("miss")

EXTENSION_KEY = "prerender.rendering.fragments"


class FragmentMemo:
    """A thread-safe LRU of rendered fragments (gthread workers share one per process; size 0: off)."""

    def __init__(self, *, size: int) -> None:
        self.size = size
        self._fragments: LockedLru[Hashable, str] = LockedLru(size)

    def get_or_render(self, key: Hashable, render: Callable[[], str]) -> str:
        """The fragment of `key`, rendered (outside the lock) on a miss."""
        html = self._fragments.get(key)
        if html is not None:
            MEMO_HITS.inc()
            return html
        MEMO_MISSES.inc()
        html = render()
        self._fragments.put(key, html)
        return html

    def __len__(self) -> int:
        return len(self._fragments)


def init_fragments(app: Flask) -> None:
    """One memo per application (called by the factory); FRAGMENT_MEMO_SIZE 0 turns it off."""
    app.extensions[EXTENSION_KEY] = FragmentMemo(size=int(app.config["FRAGMENT_MEMO_SIZE"]))


def get_fragments() -> FragmentMemo:
    """The fragment memo of the current app."""
    memo: FragmentMemo = current_app.extensions[EXTENSION_KEY]
    return memo
