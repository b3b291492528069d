"""The planner's menus at the upstream (docs/upstream.md, "Menus"): one menu per shopper and supplier, every
call answering the whole menu (finalize: the basket write's {basket, changes})."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from prerender.gateway.calls import APPLY_PREFERENCES, CallerIdentity, expect_object, present, send
from prerender.gateway.forwarding import UpstreamCall
from prerender.gateway.guards import Resource
from prerender.gateway.http import UpstreamHttp


def _write(method: str, path: str) -> UpstreamCall:
    return UpstreamCall.write(method, f"/menus{path}", Resource.MENUS, name="menu_change")


# The writes the browser routes forward (prerender/blueprints/menu.py), each answering the whole menu (finalize:
# the basket write's {basket, changes}). PUT and DELETE are retried after connection errors; POST, PATCH and the
# merge (a GET that writes) only with an idempotency key, which makes the upstream answer a repeat with the first
# outcome (docs/browser-api.md, retrying a write).
UPDATE = _write("PATCH", "/current")  # store, guests, budget
ADD_RECIPE = _write("POST", "/current/recipes")
RESCALE_RECIPE = _write("PATCH", "/current/recipes/{recipe_id}")
REMOVE_RECIPE = _write("DELETE", "/current/recipes/{recipe_id}")
SWAP_RECIPE = _write("POST", "/current/recipes/{recipe_id}/swap")
SELECT_PRODUCT = _write("PUT", "/current/recipes/{recipe_id}/products/{product_id}")
UNSELECT_PRODUCT = _write("DELETE", "/current/recipes/{recipe_id}/products/{product_id}")
FINALIZE = _write("POST", "/current/finalize")  # the selected products go to the user's basket
# The visitor's menu replaces the user's.
MERGE_AUTHLESS = UpstreamCall("GET", "/menus/merge-authless-menu", Resource.MENUS, name="menu", idempotent=False)


class MenuGateway:
    """The menu's reads: the menu itself, created when there is none, and its suggestions; retried after
    connection errors. (The planner's catalog panel reads the catalog's pages: catalog.py.)"""

    def __init__(self, *, http: UpstreamHttp) -> None:
        self.http = http

    def current(
        self,
        identity: CallerIdentity,
        *,
        store_id: str | None,
        origin: str | None = None,
        guests: int | None = None,
        apply_preferences: bool,
    ) -> dict[str, Any]:
        """GET /menus/current: the shopper's menu, moved to `store_id` when given; created when there is none, from
        suggestions or empty (`origin`: `suggestions` or `scratch`), for `guests` when given, kept by the shopper's
        preferences when they apply. Retried: concurrent or repeated first reads create one menu (the upstream
        locks)."""
        params = present(
            store_id=store_id or None,
            guests=guests,
            preferences=APPLY_PREFERENCES if apply_preferences else None,
            **{"from": origin},
        )
        return self._read(identity, "/current", params=params)

    def suggestions(
        self,
        identity: CallerIdentity,
        *,
        store_id: str | None,
        limit: int,
        types: Sequence[str] = (),
        apply_preferences: bool,
    ) -> dict[str, Any]:
        """GET /menus/current/suggestions: at most `limit` recipes to add, not already in the menu, of `types` (all
        without), with the completion filter at `store_id`, kept by the shopper's preferences when they apply."""
        params = present(
            store_id=store_id or None,
            limit=limit,
            type=",".join(types) or None,
            preferences=APPLY_PREFERENCES if apply_preferences else None,
        )
        return self._read(identity, "/current/suggestions", params=params)

    def _read(self, identity: CallerIdentity, path: str, *, params: dict[str, Any]) -> dict[str, Any]:
        """GET /menus<path>; the upstream's 4xx (an unknown store...) pass through to the browser with their
        explanation (prerender/web/errors.py)."""
        payload = send(self.http, identity, "GET", f"/menus{path}", resource=Resource.MENUS, name="menu", params=params)
        return expect_object(payload, f"GET /menus{path}")
