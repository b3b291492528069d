"""Suggestions at the upstream (docs/upstream.md, "Suggestions"): the recipe for each place of a page, from the
products around it; the last good choice for the same products is served while the upstream fails."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from prerender.gateway.calls import CallerIdentity, raise_unknown_store, send
from prerender.gateway.errors import UpstreamBadResponse, UpstreamError, UpstreamStatusError
from prerender.gateway.fallbacks import served_stale
from prerender.gateway.guards import Resource
from prerender.gateway.http import UpstreamHttp
from prerender.gateway.models import data_list
from prerender.gateway.read_cache import ReadCache, cache_key

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SuggestionContext:
    """One place on a page that wants a recipe: the products around it."""

    key: str
    surrounding_product_ids: tuple[str, ...]
    current_product_ids: tuple[str, ...] = ()


class SuggestionGateway:
    """POST /suggestions (a read: retried like one)."""

    def __init__(self, *, http: UpstreamHttp, cache: ReadCache, stale_ttl: int) -> None:
        self.http = http
        self.cache = cache
        self.stale_ttl = stale_ttl

    def recipe_for_each(
        self,
        identity: CallerIdentity,
        contexts: Sequence[SuggestionContext],
        *,
        store_id: str | None,
        category_id: str | None = None,
        keyword: str | None = None,
        apply_preferences: bool = False,
    ) -> dict[str, str | None]:
        """The recipe id chosen for each context key (None where nothing fits), in one call; with
        `apply_preferences`, the upstream applies the shopper's stored preferences (docs/upstream.md)."""
        if not contexts:
            return {}
        body = {
            "contexts": [
                {
                    "key": c.key,
                    "surrounding_product_ids": list(c.surrounding_product_ids),
                    "current_product_ids": list(c.current_product_ids),
                }
                for c in contexts
            ],
            "store_id": store_id,
            "category_id": category_id,
            "keyword": keyword,
        }
        # The last good choice for the same products and filters, whatever the session: served while the
        # upstream fails (a card from another session's draw beats an empty slot). Kept for a known supplier only:
        # without one, anyone could keep a key a day with each made-up product id. A choice the shopper's own
        # data shaped (their stored preferences, their likes: the answer says so, docs/upstream.md) is kept for
        # that shopper alone, and a shopper whose preferences restrict their choices is never served another's:
        # it would ignore their diet, and hint at the first shopper's.
        shopper = identity.authorization
        keys = {
            c.key: _StaleKeys.of(identity.supplier_id, shopper, store_id, category_id, keyword, c) for c in contexts
        }
        restricted_key = cache_key("stale-suggestion-restricted", identity.supplier_id, shopper)
        try:
            payload = send(
                self.http,
                identity,
                "POST",
                "/suggestions",
                resource=Resource.SUGGESTIONS,
                name="suggestions",
                json=body,
                params={"preferences": "apply"} if apply_preferences else None,
            )
            chosen: dict[str, str | None] = {}
            for item in data_list(payload, "suggestions"):
                if not isinstance(item, dict) or "key" not in item:
                    raise UpstreamBadResponse("suggestions: item without key")
                recipe_id = item.get("recipe_id")
                chosen[str(item["key"])] = None if recipe_id is None else str(recipe_id)
        except UpstreamError as error:
            if isinstance(error, UpstreamStatusError):
                raise_unknown_store(error)
                if error.status < 500:
                    raise
            stale = self._last_good(keys, restricted_key)
            if not any(stale.values()):
                raise
            log.warning("upstream failed, serving the last good suggestions: %s", error)
            served_stale("suggestions")
            return stale
        if identity.supplier_id is not None:
            self._keep(chosen, keys, restricted_key, payload, identity=identity, apply_preferences=apply_preferences)
        return chosen

    def _keep(
        self,
        chosen: dict[str, str | None],
        keys: dict[str, _StaleKeys],
        restricted_key: str,
        payload: object,
        *,
        identity: CallerIdentity,
        apply_preferences: bool,
    ) -> None:
        """Keeps the choices for an outage: the shopper's own under their key, anyone's under the shared one."""
        preferences_applied = payload.get("preferences_applied") if isinstance(payload, dict) else None
        likes_weighed = payload.get("likes_weighed") if isinstance(payload, dict) else None
        if isinstance(preferences_applied, bool) and isinstance(likes_weighed, bool):
            personal = preferences_applied or likes_weighed
        else:  # an upstream that does not say: whatever could have been the shopper's is
            personal = apply_preferences or (
                identity.profiling and (identity.authorization or "").startswith("user_id ")
            )
        entries: dict[str, object] = {
            (keys[key].own if personal else keys[key].shared): (rid,)
            for key, rid in chosen.items()
            if key in keys and rid
        }
        if apply_preferences and isinstance(preferences_applied, bool):
            entries[restricted_key] = (preferences_applied,)
        self.cache.set_many(entries, timeout=self.stale_ttl)

    def _last_good(self, keys: dict[str, _StaleKeys], restricted_key: str) -> dict[str, str | None]:
        """The last good choice of each context: the shopper's own, else anyone's unless the shopper's preferences
        restrict their choices (as they last did; unknown: anyone's, a card beats an empty slot)."""
        names = [restricted_key, *(name for k in keys.values() for name in (k.own, k.shared))]
        found = dict(zip(names, self.cache.get_many(*names), strict=True))
        restricted = bool(found[restricted_key] and found[restricted_key][0])
        last_good: dict[str, str | None] = {}
        for key, names_of in keys.items():
            value = found[names_of.own] or (None if restricted else found[names_of.shared])
            last_good[key] = value[0] if value else None
        return last_good


@dataclass(frozen=True)
class _StaleKeys:
    """Where a context's last good choice is kept: for the shopper (`own`), for anyone (`shared`)."""

    own: str
    shared: str

    @classmethod
    def of(
        cls,
        supplier_id: str | None,
        shopper: str | None,
        store_id: str | None,
        category_id: str | None,
        keyword: str | None,
        context: SuggestionContext,
    ) -> _StaleKeys:
        where = (
            store_id,
            category_id,
            keyword,
            sorted(context.surrounding_product_ids),
            sorted(context.current_product_ids),
        )
        return cls(
            own=cache_key("stale-suggestion", supplier_id, shopper, *where),
            shared=cache_key("stale-suggestion", supplier_id, None, *where),
        )
