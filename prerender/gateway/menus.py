"""The planner's menus at the upstream (docs/upstream.md, "Menus"): one menu per shopper and supplier, every
call answering the whole menu (finalize: the basket write's {basket, changes})."""

from __future__ import annotations

from typing import Any

from prerender.gateway.client import API, CallerIdentity, segment
from prerender.gateway.errors import UpstreamBadResponse
from prerender.gateway.guards import Resource
from prerender.gateway.http import UpstreamHttp


class MenuGateway:
    """Calls to /menus. Reads and PUT/DELETE are retried after connection errors; POST, PATCH and the merge
    (a GET that writes) only with an idempotency key, which makes the upstream answer a repeat with the first
    outcome (docs/browser-api.md, retrying a write)."""

    def __init__(self, *, http: UpstreamHttp) -> None:
        self.http = http

    def current(self, identity: CallerIdentity, *, params: dict[str, Any]) -> dict[str, Any]:
        """GET /menus/current: the shopper's menu, created when there is none, moved to `store_id` when given.
        Retried: concurrent or repeated first reads create one menu (the upstream locks)."""
        return self._call(identity, "GET", "/current", params=params, idempotent=True)

    def suggestions(self, identity: CallerIdentity, *, params: dict[str, Any]) -> dict[str, Any]:
        """GET /menus/current/suggestions: recipes to add, not already in the menu."""
        return self._call(identity, "GET", "/current/suggestions", params=params, idempotent=True)

    def search_recipes(self, identity: CallerIdentity, *, params: dict[str, Any]) -> dict[str, Any]:
        """GET /recipes: the planner's catalog panel (types, keyword, completion filter at the store, pages)."""
        payload = self.http.request(
            "GET",
            f"{API}/recipes",
            resource=Resource.CATALOG,
            name="recipes_search",
            params=params,
            headers=identity.headers(),
            idempotent=True,
        )
        if not isinstance(payload, dict) or not isinstance(payload.get("data"), list):
            raise UpstreamBadResponse("GET /recipes: expected {data: [...]}")
        return payload

    def update(self, identity: CallerIdentity, *, body: dict[str, Any], key: str | None) -> dict[str, Any]:
        """PATCH /menus/current: store, guests, budget."""
        return self._call(identity, "PATCH", "/current", body=body, key=key)

    def add_recipe(self, identity: CallerIdentity, *, body: dict[str, Any], key: str | None) -> dict[str, Any]:
        """POST /menus/current/recipes."""
        return self._call(identity, "POST", "/current/recipes", body=body, key=key)

    def rescale_recipe(
        self, identity: CallerIdentity, recipe_id: str, *, body: dict[str, Any], key: str | None
    ) -> dict[str, Any]:
        """PATCH /menus/current/recipes/<recipe_id>."""
        return self._call(identity, "PATCH", f"/current/recipes/{segment(recipe_id)}", body=body, key=key)

    def remove_recipe(self, identity: CallerIdentity, recipe_id: str, *, key: str | None) -> dict[str, Any]:
        """DELETE /menus/current/recipes/<recipe_id>."""
        return self._call(identity, "DELETE", f"/current/recipes/{segment(recipe_id)}", key=key, idempotent=True)

    def swap_recipe(
        self, identity: CallerIdentity, recipe_id: str, *, body: dict[str, Any], key: str | None
    ) -> dict[str, Any]:
        """POST /menus/current/recipes/<recipe_id>/swap."""
        return self._call(identity, "POST", f"/current/recipes/{segment(recipe_id)}/swap", body=body, key=key)

    def select_product(
        self, identity: CallerIdentity, recipe_id: str, product_id: str, *, selected: bool, key: str | None
    ) -> dict[str, Any]:
        """PUT (select) or DELETE (unselect) /menus/current/recipes/<recipe_id>/products/<product_id>."""
        path = f"/current/recipes/{segment(recipe_id)}/products/{segment(product_id)}"
        return self._call(identity, "PUT" if selected else "DELETE", path, key=key, idempotent=True)

    def finalize(self, identity: CallerIdentity, *, key: str | None) -> dict[str, Any]:
        """POST /menus/current/finalize: the selected products go to the user's basket; {basket, changes}."""
        return self._call(identity, "POST", "/current/finalize", key=key)

    def merge_authless(self, identity: CallerIdentity, *, params: dict[str, Any], key: str | None) -> dict[str, Any]:
        """GET /menus/merge-authless-menu: the visitor's menu replaces the user's."""
        return self._call(identity, "GET", "/merge-authless-menu", params=params, key=key)

    def _call(
        self,
        identity: CallerIdentity,
        method: str,
        path: str,
        *,
        body: dict[str, Any] | None = None,
        params: dict[str, Any] | None = None,
        key: str | None = None,
        idempotent: bool = False,
    ) -> dict[str, Any]:
        headers = identity.headers()
        if key is not None:
            headers["Idempotency-Key"] = key
        # The upstream's 4xx (unknown store or recipe, a full menu, finalize without a user...) pass through to
        # the browser with their explanation (prerender/web/errors.py).
        payload = self.http.request(
            method,
            f"{API}/menus{path}",
            resource=Resource.MENUS,
            name="menu" if method == "GET" else "menu_change",
            json=body,
            params=params,
            headers=headers,
            idempotent=idempotent or key is not None,
        )
        if not isinstance(payload, dict):
            raise UpstreamBadResponse(f"{method} /menus{path}: expected an object")
        return payload
