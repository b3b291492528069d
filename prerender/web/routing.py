"""The application's URL rules: werkzeug's, with one more option.

werkzeug adds HEAD to every rule that has GET, and answers it with the GET view. A GET that acts must not be
run by a HEAD (a link checker's, a monitor's, a cache's), so such a route is declared with `head=False`: the
merges of an authless visitor's basket and menu (docs/security.md), and the reads that make or move what the
shopper has (the menu, made when there is none; the basket and the menu, moved to the `store_id` asked:
`/v*/basket`, `/v2/menu/current`, the basket preview, the planner's pages). tests/unit/test_routing.py lists
them. Routing then refuses HEAD itself (405), and every 405 and OPTIONS answer of the
route lists the same methods, HEAD not among them (RFC 9110: `Allow` lists what the resource supports)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from werkzeug.routing import Rule


class RouteRule(Rule):
    """A URL rule; `head=False` leaves out the HEAD werkzeug adds to a GET rule."""

    def __init__(self, string: str, *args: Any, head: bool = True, **kwargs: Any) -> None:
        super().__init__(string, *args, **kwargs)
        self.head = head
        if not head and self.methods is not None:
            self.methods.discard("HEAD")

    def get_empty_kwargs(self) -> Mapping[str, Any]:
        """What `Rule.empty()` copies the rule with: the option too."""
        return {**super().get_empty_kwargs(), "head": self.head}
