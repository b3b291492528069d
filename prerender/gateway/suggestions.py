"""Suggestions at the upstream (docs/upstream.md, "Suggestions"): the recipe for each place of a page, from the
products around it; the last good choice for the same products is served while the upstream fails."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from prerender.gateway.calls import APPLY_PREFERENCES, CallerIdentity, raise_unknown_store, send
from prerender.gateway.errors import UpstreamBadResponse, UpstreamError, UpstreamStatusError
from prerender.gateway.fallbacks import served_stale, stale_level
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
        # without one, anyone could keep a key a day with each made-up product id. Where the shopper's own data may
        # shape the choice (their preferences applied; with profiling on, a user's likes: docs/upstream.md), it is
        # kept for that shopper, and they are served their own only: another shopper's could ignore their diet (set a
        # moment ago, maybe on another worker) and hint at the other's likes. As the catalog's pages are.
        personal = apply_preferences or identity.profiling
        stale_keys = {
            c.key: cache_key(
                "stale-suggestion",
                identity.supplier_id,
                identity.authorization if personal else None,
                store_id,
                category_id,
                keyword,
                sorted(c.surrounding_product_ids),
                sorted(c.current_product_ids),
            )
            for c in contexts
        }
        try:
            payload = send(
                self.http,
                identity,
                "POST",
                "/suggestions",
                resource=Resource.SUGGESTIONS,
                name="suggestions",
                json=body,
                params={"preferences": APPLY_PREFERENCES} if apply_preferences else None,
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
            stale = dict(zip(stale_keys, self.cache.get_many(*stale_keys.values()), strict=True))
            if not any(stale.values()):
                raise
            log.log(stale_level(error), "upstream failed, serving the last good suggestions: %s", error)
            served_stale("suggestions")
            return {key: value[0] if value else None for key, value in stale.items()}
        if identity.supplier_id is not None:
            self.cache.set_many(
                {stale_keys[key]: (rid,) for key, rid in chosen.items() if key in stale_keys and rid},
                timeout=self.stale_ttl,
            )
        return chosen
