"""Recipe details at the upstream (docs/upstream.md, "GET /recipes/<id>" and "GET /recipes/batch"): one recipe or a
batch, priced at a store and scaled to a count of guests, cached per supplier, store, guests and language and served
stale while the upstream fails; and a publisher's own recipe id looked up (the catalog's searches are in catalog.py)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from prerender.gateway.calls import (
    BATCH_LIMIT,
    CallerIdentity,
    expect_object,
    present,
    raise_unknown_store,
    segment,
    send,
)
from prerender.gateway.errors import UpstreamBadResponse, UpstreamError, UpstreamStatusError
from prerender.gateway.fallbacks import served_stale, stale_level
from prerender.gateway.guards import Resource
from prerender.gateway.http import UpstreamHttp
from prerender.gateway.models import Recipe, data_list, parse_recipe
from prerender.gateway.read_cache import ReadCache, cache_key

log = logging.getLogger(__name__)

# Marks a cached outcome of a recipe the upstream sent malformed (`RecipeGateway._hold_malformed`): `(None,
# MALFORMED)` is "left out", not "unknown".
MALFORMED = "malformed"


class RecipeGateway:
    """GET /recipes/{id}, /recipes/batch and /recipes/by-external-id/{id}."""

    def __init__(self, *, http: UpstreamHttp, cache: ReadCache, ttl: int, stale_ttl: int, external_id_ttl: int) -> None:
        self.http = http
        self.cache = cache
        self.ttl = ttl
        # How long the last good answers are kept to serve while the upstream fails (stale-if-error).
        self.stale_ttl = stale_ttl
        # The lookup of a recipe by external id is cached (CacheTimes.external_id), "no match" included.
        self.external_id_ttl = external_id_ttl

    def by_id(
        self,
        identity: CallerIdentity,
        recipe_id: str,
        *,
        store_id: str | None,
        serves: int | None,
        summary: bool = False,
    ) -> Recipe | None:
        """One recipe's detail at a store, None for an unknown recipe; with `summary`, without its ingredients
        and steps (a card's needs, a fraction of the size)."""
        key = self.key(identity, recipe_id, store_id, serves, summary=summary)
        cached = self.cache.near_get(key)
        if cached == (None, MALFORMED):
            # Sent malformed within the TTL, and no good copy: it fails as it did, without asking again. Not
            # "unknown" (None): that would be an answer the upstream never gave.
            raise UpstreamBadResponse(f"recipe {recipe_id}: sent malformed, held for the recipes' TTL")
        if cached is not None:
            remembered: Recipe | None = _held(cached)
            return remembered
        params = present(store_id=store_id, serves=serves, view="summary" if summary else None)
        try:
            payload = send(
                self.http,
                identity,
                "GET",
                f"/recipes/{segment(recipe_id)}",
                resource=Resource.RECIPES,
                name="recipe",
                params=params,
            )
        except UpstreamStatusError as error:
            raise_unknown_store(error)
            if error.status >= 500:
                return self._stale(key, error)
            if error.status != 404:
                raise
            recipe = None
        except UpstreamError as error:
            return self._stale(key, error)
        else:
            try:
                recipe = parse_recipe(payload)
            except UpstreamBadResponse as error:
                held = self._hold_malformed({recipe_id: key}).get(recipe_id)
                if held is None:
                    raise
                log.warning("the upstream sent recipe %s malformed, serving its last good copy: %s", recipe_id, error)
                return held
        self._remember({key: (recipe,)})
        return recipe

    def by_ids(
        self,
        identity: CallerIdentity,
        recipe_ids: Sequence[str],
        *,
        store_id: str | None,
        serves: int | None,
        summary: bool = False,
    ) -> dict[str, Recipe]:
        """Many recipes' details by id, in at most one upstream call per 100 cache misses; unknown ids left out;
        `summary` as for `by_id`."""
        keys = {rid: self.key(identity, rid, store_id, serves, summary=summary) for rid in dict.fromkeys(recipe_ids)}
        found: dict[str, Recipe] = {}
        missing: list[str] = []
        for rid, cached in zip(keys, self.cache.get_many(*keys.values()), strict=True):
            if cached is None:
                missing.append(rid)
            elif cached[0] is not None:
                found[rid] = _held(cached)
        for start in range(0, len(missing), BATCH_LIMIT):
            chunk = missing[start : start + BATCH_LIMIT]
            params = present(ids=",".join(chunk), store_id=store_id, serves=serves, view="summary" if summary else None)
            chunk_keys = {rid: keys[rid] for rid in chunk}
            try:
                payload = send(
                    self.http,
                    identity,
                    "GET",
                    "/recipes/batch",
                    resource=Resource.RECIPES,
                    name="recipes_batch",
                    params=params,
                )
                loaded, malformed = _parse_batch(data_list(payload, "recipes/batch"))
            except UpstreamError as error:
                if isinstance(error, UpstreamStatusError):
                    raise_unknown_store(error)
                    if error.status < 500:
                        raise
                found.update(self._stale_many(chunk_keys, error))
                continue
            found.update(loaded)
            self._remember({key: (loaded.get(rid),) for rid, key in chunk_keys.items() if rid not in malformed})
            found.update(self._hold_malformed({rid: key for rid, key in chunk_keys.items() if rid in malformed}))
        return found

    def id_by_external_id(self, identity: CallerIdentity, external_id: str) -> str | None:
        """The id of the recipe a publisher knows by `external_id`, None when none matches (cached, the None
        included: a publisher's page asks for the same ids again and again)."""
        key = cache_key("external-id", identity.supplier_id, external_id)
        cached = self.cache.get(key)
        if cached is not None:
            matched: str | None = cached[0]
            return matched
        try:
            payload = expect_object(
                send(
                    self.http,
                    identity,
                    "GET",
                    f"/recipes/by-external-id/{segment(external_id)}",
                    resource=Resource.RECIPES,
                    name="recipe_by_external_id",
                ),
                "recipe by external id",
            )
        except UpstreamStatusError as error:
            if error.status != 404:
                raise
            found: str | None = None
        else:
            if not isinstance(payload.get("id"), (str, int)) or isinstance(payload.get("id"), bool):
                raise UpstreamBadResponse("recipe by external id: no id")
            found = str(payload["id"])
        self.cache.set(key, (found,), timeout=self.external_id_ttl)
        return found

    @staticmethod
    def key(
        identity: CallerIdentity, recipe_id: str, store_id: str | None, serves: int | None, *, summary: bool = False
    ) -> str:
        """A recipe's cache key: per recipe, store, serves and language; per supplier too, since the token goes
        upstream."""
        kind = "recipe-summary" if summary else "recipe"
        return cache_key(kind, identity.supplier_id, recipe_id, store_id, serves, identity.language)

    def _remember(self, values: dict[str, tuple[Recipe | None]]) -> None:
        """Cache fresh answers, and keep the recipes found longer, as the stale copies served while the upstream
        fails. A recipe not found drops its stale copy rather than keeping a "not found" one: an outage then
        gives the same empty card (never a recipe since unpublished), and any id a caller makes up would
        otherwise hold a shared cache entry for a day (a delete creates none)."""
        self.cache.set_many(values, timeout=self.ttl)
        found = {key: value[0] for key, value in values.items() if value[0] is not None}
        self.cache.keep_last_good_many(found, timeout=self.stale_ttl)
        self.cache.drop_last_good(*(key for key, value in values.items() if value[0] is None))

    def _hold_malformed(self, keys: dict[str, str]) -> dict[str, Recipe]:
        """The recipes the upstream sent malformed: served from their last good copies, or left out, and that
        outcome held for the recipes' TTL as a good answer is, so that a page listing a broken recipe does not send
        a batch call on every render. Neither is remembered as unknown (their stale copies stay), and past the TTL
        they are asked again."""
        copies = self._stale_copies(keys)
        if keys:
            self.cache.set_many({key: (copies.get(rid), MALFORMED) for rid, key in keys.items()}, timeout=self.ttl)
        return copies

    def _stale(self, key: str, error: UpstreamError) -> Recipe | None:
        """The last good copy of a recipe, or the error when there is none."""
        recipe: Recipe | None = self.cache.stale(key, error, what="recipe")
        return recipe

    def _stale_many(self, keys: dict[str, str], error: UpstreamError) -> dict[str, Recipe]:
        """The last good copies of some recipes, or the error when there is none at all."""
        stale = self._stale_copies(keys)
        if not stale:
            raise error
        log.log(stale_level(error), "upstream failed, serving the last good recipes: %s", error)
        return stale

    def _stale_copies(self, keys: dict[str, str]) -> dict[str, Recipe]:
        """The last good copies there are of some recipes (none for an empty `keys`)."""
        if not keys:
            return {}
        stale = dict(zip(keys, self.cache.last_good_many(*keys.values()), strict=True))
        copies = {rid: recipe for rid, recipe in stale.items() if recipe is not None}
        if copies:
            served_stale("recipes")
        return copies


def _held(cached: tuple[Any, ...]) -> Any:
    """The recipe of a cache entry; a malformed recipe's last good copy, held (`_hold_malformed`), is served as
    the stale copy it is: the answer says so (`X-Degraded: stale`, never shared), at each read, not the first only."""
    if cached[1:] == (MALFORMED,) and cached[0] is not None:
        served_stale("recipes")
    return cached[0]


def _parse_batch(items: list[Any]) -> tuple[dict[str, Recipe], set[str]]:
    """The recipes of a batch answer by id, and the ids of the items that are not the contract: one malformed
    recipe (a field the contract does not allow) is left out, logged, rather than failing every card of the page.
    An item without an id fails the whole answer (UpstreamBadResponse): what it stands for cannot be told."""
    loaded: dict[str, Recipe] = {}
    malformed: set[str] = set()
    for item in items:
        try:
            recipe = parse_recipe(item)
        except UpstreamBadResponse as error:
            recipe_id = item.get("id") if isinstance(item, dict) else None
            if not isinstance(recipe_id, str | int) or isinstance(recipe_id, bool):
                raise
            log.warning("recipes/batch: recipe %s left out: %s", recipe_id, error)
            malformed.add(str(recipe_id))
            continue
        loaded[recipe.id] = recipe
    return loaded, malformed
