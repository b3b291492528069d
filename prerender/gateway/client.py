"""The upstream gateway: the only code that knows the upstream's routes (docs/upstream.md).

Reads are cached through flask-caching (supplier settings, recipe details per recipe, store, serves and
language); writes never are. Failures surface as the typed errors of `errors.py`.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import quote

from prerender.gateway.errors import UnknownStore, UpstreamBadResponse, UpstreamError, UpstreamStatusError
from prerender.gateway.guards import Resource
from prerender.gateway.http import UpstreamHttp
from prerender.gateway.models import Recipe, Store, Supplier, data_list, parse_recipe, parse_stores, parse_supplier
from prerender.gateway.read_cache import ReadCache, cache_key

log = logging.getLogger(__name__)

T = TypeVar("T")

API = "/api/v1"
# The upstream's detail when a service call names a supplier it does not know (docs/upstream.md).
UNKNOWN_SUPPLIER_ID = "Unknown Supplier-Id"
BATCH_LIMIT = 100


def segment(value: str) -> str:
    """An id made safe as one URL path segment."""
    return quote(value, safe="")


def service_headers(service_key: str, supplier_id: str) -> dict[str, str]:
    """How prerender calls the upstream for a supplier it knows by id only (a browser's credential)."""
    return {"X-Service-Key": service_key, "Supplier-Id": supplier_id}


@dataclass(frozen=True)
class CallerIdentity:
    """Who an upstream call is made for; built from the request headers by the guard."""

    authorization: str | None
    supplier_token: str | None = field(repr=False)
    supplier_id: str | None
    language: str
    session_id: str | None
    profiling: bool
    request_id: str
    # For a browser's credential: prerender calls as a service, naming the supplier by id (docs/upstream.md).
    service_key: str | None = field(default=None, repr=False)

    def headers(self) -> dict[str, str]:
        headers = {
            "Language-Id": self.language,
            "Profiling": "true" if self.profiling else "false",
            "X-Request-Id": self.request_id,
            "Accept": "application/json",
        }
        if self.authorization:
            headers["Authorization"] = self.authorization
        if self.supplier_token:
            headers["Supplier-Token"] = self.supplier_token
        elif self.service_key and self.supplier_id:
            headers.update(service_headers(self.service_key, self.supplier_id))
        if self.session_id:
            headers["Session-Id"] = self.session_id
        return headers


@dataclass(frozen=True)
class SuggestionContext:
    """One place on a page that wants a recipe: the products around it."""

    key: str
    surrounding_product_ids: tuple[str, ...]
    current_product_ids: tuple[str, ...] = ()


class UpstreamGateway:
    """Domain calls to the upstream, with read caching."""

    def __init__(
        self,
        *,
        http: UpstreamHttp,
        cache: ReadCache,
        pool: Executor,
        supplier_ttl: int,
        recipe_ttl: int,
        likes_ttl: int,
        stale_ttl: int,
        external_id_ttl: int = 5,
    ) -> None:
        self.http = http
        self.cache = cache
        # Runs a call concurrently with the request thread's next one (`start`).
        self.pool = pool
        self.supplier_ttl = supplier_ttl
        self.recipe_ttl = recipe_ttl
        # The lookup of a recipe by external id is cached 5 seconds, "no match" included (README.md, Limits).
        self.external_id_ttl = external_id_ttl
        # Like states are the user's: cached per (supplier, user, recipe) when likes_ttl > 0, updated by our
        # own like and unlike calls, and re-read after likes_ttl seconds for changes made elsewhere.
        self.likes_ttl = likes_ttl
        # How long the last good answers are kept to serve while the upstream fails (stale-if-error).
        self.stale_ttl = stale_ttl

    def start(self, call: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        """Run one of this gateway's calls on its pool; the caller goes on and collects the result later. The call
        runs in a copy of the caller's context, so the request's upstream budget (deadline.py) applies to it."""
        return self.pool.submit(contextvars.copy_context().run, call, *args, **kwargs)

    # --- suppliers -------------------------------------------------------------------------------

    def supplier(self, token: str, *, request_id: str) -> Supplier | None:
        """The supplier of a token, None when the upstream does not know it (cached, None included)."""
        return self._supplier_lookup(
            cache_key("supplier", token),
            {"Supplier-Token": token, "X-Request-Id": request_id},
            unknown=lambda error: error.status == 401,
        )

    def supplier_by_id(self, supplier_id: str, *, service_key: str, request_id: str) -> Supplier | None:
        """The supplier a credential names, None when the upstream no longer knows it (cached, None included).
        Only "no such supplier" is an answer; a refused service key is this deployment's mistake
        (UPSTREAM_SERVICE_KEY differs from the upstream's), raised and never cached."""
        return self._supplier_lookup(
            cache_key("supplier-id", supplier_id),
            {**service_headers(service_key, supplier_id), "X-Request-Id": request_id},
            unknown=lambda error: error.status == 401 and UNKNOWN_SUPPLIER_ID in str(error.problem.get("detail", "")),
        )

    def _supplier_lookup(
        self, key: str, headers: dict[str, str], *, unknown: Callable[[UpstreamStatusError], bool]
    ) -> Supplier | None:
        """GET /suppliers/me with these headers, cached under `key`; None (cached too) when `unknown` says the
        upstream's refusal means it knows no such supplier. While the upstream fails (unreachable, timeout, 5xx,
        refused by a guard), the last good answer is served for up to STALE_IF_ERROR_SECONDS: every request
        needs its supplier, so without it an outage would turn every fragment into a supplier-less one."""
        cached = self.cache.near_get(key)
        if cached is not None:
            known: Supplier | None = cached[0]
            return known
        try:
            payload = self.http.request(
                "GET",
                f"{API}/suppliers/me",
                resource=Resource.SUPPLIERS,
                name="supplier",
                idempotent=True,
                headers=headers,
            )
            supplier: Supplier | None = parse_supplier(payload)
        except UpstreamStatusError as error:
            if unknown(error):
                supplier = None
            elif error.status >= 500:
                return self._stale_supplier(key, error)
            else:
                raise
        except UpstreamError as error:
            return self._stale_supplier(key, error)
        self.cache.near_put(key, (supplier,), timeout=self.supplier_ttl)
        self.cache.set("stale:" + key, (supplier,), timeout=self.stale_ttl)
        return supplier

    def _stale_supplier(self, key: str, error: UpstreamError) -> Supplier | None:
        """The last good answer of a supplier lookup, or the error when there is none."""
        supplier: Supplier | None = self.cache.stale(key, error, what="supplier")
        return supplier

    # --- stores ----------------------------------------------------------------------------------

    def stores(self, identity: CallerIdentity) -> tuple[Store, ...]:
        """Every store of the upstream, for the publisher's store picker (cached like a recipe; the last good
        list is served while the upstream fails)."""

        def read() -> tuple[Store, ...]:
            payload = self.http.request(
                "GET",
                f"{API}/stores",
                resource=Resource.STORES,
                name="stores",
                headers=identity.headers(),
                idempotent=True,
            )
            return parse_stores(data_list(payload, "stores"))

        return self.cache.read_through(
            cache_key("stores", identity.language),
            read,
            ttl=self.recipe_ttl,
            stale_ttl=self.stale_ttl,
            what="store list",
        )

    # --- recipes ---------------------------------------------------------------------------------

    def recipe(
        self,
        identity: CallerIdentity,
        recipe_id: str,
        *,
        store_id: str | None,
        serves: int | None,
        summary: bool = False,
    ) -> Recipe | None:
        """One recipe detail at a store, None for an unknown recipe; with `summary`, without its
        ingredients and steps (a card's needs, a fraction of the size)."""
        key = self.recipe_key(identity, recipe_id, store_id, serves, summary=summary)
        cached = self.cache.near_get(key)
        if cached is not None:
            remembered: Recipe | None = cached[0]
            return remembered
        params = _params(store_id=store_id, serves=serves, view="summary" if summary else None)
        try:
            payload = self.http.request(
                "GET",
                f"{API}/recipes/{segment(recipe_id)}",
                resource=Resource.RECIPES,
                name="recipe",
                params=params,
                headers=identity.headers(),
                idempotent=True,
            )
            recipe: Recipe | None = parse_recipe(payload)
        except UpstreamStatusError as error:
            raise_unknown_store(error)
            if error.status >= 500:
                return self._stale_recipe(key, error)
            if error.status != 404:
                raise
            recipe = None
        except UpstreamError as error:
            return self._stale_recipe(key, error)
        self._remember({key: (recipe,)})
        return recipe

    def recipes(
        self,
        identity: CallerIdentity,
        recipe_ids: Sequence[str],
        *,
        store_id: str | None,
        serves: int | None,
        summary: bool = False,
    ) -> dict[str, Recipe]:
        """Many recipe details in at most one upstream call (cache misses only); unknown ids left out;
        `summary` as for `recipe`."""
        keys = {
            rid: self.recipe_key(identity, rid, store_id, serves, summary=summary) for rid in dict.fromkeys(recipe_ids)
        }
        found: dict[str, Recipe] = {}
        missing: list[str] = []
        for rid, cached in zip(keys, self.cache.get_many(*keys.values()), strict=True):
            if cached is None:
                missing.append(rid)
            elif cached[0] is not None:
                found[rid] = cached[0]
        for start in range(0, len(missing), BATCH_LIMIT):
            chunk = missing[start : start + BATCH_LIMIT]
            params = _params(ids=",".join(chunk), store_id=store_id, serves=serves, view="summary" if summary else None)
            chunk_keys = {rid: keys[rid] for rid in chunk}
            try:
                payload = self.http.request(
                    "GET",
                    f"{API}/recipes/batch",
                    resource=Resource.RECIPES,
                    name="recipes_batch",
                    params=params,
                    headers=identity.headers(),
                    idempotent=True,
                )
                loaded = {recipe.id: recipe for recipe in map(parse_recipe, data_list(payload, "recipes/batch"))}
            except UpstreamError as error:
                if isinstance(error, UpstreamStatusError):
                    raise_unknown_store(error)
                    if error.status < 500:
                        raise
                found.update(self._stale_recipes(chunk_keys, error))
                continue
            found.update(loaded)
            self._remember({key: (loaded.get(rid),) for rid, key in chunk_keys.items()})
        return found

    def recipe_id_by_external_id(self, identity: CallerIdentity, external_id: str) -> str | None:
        """The internal id of the recipe a publisher knows by `external_id`, None when none matches
        (cached, the None included: a publisher's page asks for the same ids again and again)."""
        key = cache_key("external-id", identity.supplier_id, external_id)
        cached = self.cache.get(key)
        if cached is not None:
            matched: str | None = cached[0]
            return matched
        try:
            payload = _object(
                self.http.request(
                    "GET",
                    f"{API}/recipes/by-external-id/{segment(external_id)}",
                    resource=Resource.RECIPES,
                    name="recipe_by_external_id",
                    headers=identity.headers(),
                    idempotent=True,
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

    # --- suggestions -----------------------------------------------------------------------------

    def suggest(
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
        # upstream fails (a card from another session's draw beats an empty slot).
        stale_keys = {
            c.key: cache_key(
                "stale-suggestion",
                identity.supplier_id,
                store_id,
                category_id,
                keyword,
                sorted(c.surrounding_product_ids),
                sorted(c.current_product_ids),
            )
            for c in contexts
        }
        try:
            payload = self.http.request(
                "POST",
                f"{API}/suggestions",
                resource=Resource.SUGGESTIONS,
                name="suggestions",
                json=body,
                params={"preferences": "apply"} if apply_preferences else None,
                headers=identity.headers(),
                idempotent=True,
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
            log.warning("upstream failed, serving the last good suggestions: %s", error)
            return {key: value[0] if value else None for key, value in stale.items()}
        self.cache.set_many(
            {stale_keys[key]: (rid,) for key, rid in chosen.items() if key in stale_keys and rid},
            timeout=self.stale_ttl,
        )
        return chosen

    # --- likes -----------------------------------------------------------------------------------

    def liked_recipe_ids(self, identity: CallerIdentity, recipe_ids: Iterable[str]) -> set[str]:
        """Which of these recipes the connected user likes: cached states, then one call for the rest."""
        ids = list(dict.fromkeys(recipe_ids))[:BATCH_LIMIT]
        keys = {rid: self.like_key(identity, rid) for rid in ids} if self.likes_ttl > 0 else {}
        liked: set[str] = set()
        missing: list[str] = []
        for rid, cached in zip(ids, self.cache.get_many(*keys.values()) if keys else [None] * len(ids), strict=True):
            if cached is None:
                missing.append(rid)
            elif cached[0]:
                liked.add(rid)
        if missing:
            payload = self.http.request(
                "GET",
                f"{API}/likes",
                resource=Resource.LIKES,
                name="likes",
                params={"recipe_ids": ",".join(missing)},
                headers=identity.headers(),
                idempotent=True,
            )
            answered = {str(rid) for rid in data_list(payload, "likes")} & set(missing)
            if keys:
                self.cache.set_many({keys[rid]: (rid in answered,) for rid in missing}, timeout=self.likes_ttl)
            liked |= answered
        return liked

    def like(self, identity: CallerIdentity, recipe_id: str, *, liked: bool) -> None:
        """Like or unlike a recipe for the connected user (idempotent both ways); a cached state follows.

        When the call fails, the upstream may or may not have applied it: the cached state is dropped so
        the next card asks the upstream."""
        key = self.like_key(identity, recipe_id)
        try:
            self.http.request(
                "PUT" if liked else "DELETE",
                f"{API}/likes/{segment(recipe_id)}",
                resource=Resource.LIKES,
                name="like",
                headers=identity.headers(),
                idempotent=True,
                expect_body=False,
            )
        except UpstreamError:
            if self.likes_ttl > 0:
                self.cache.delete(key)
            raise
        if self.likes_ttl > 0:
            self.cache.set(key, (liked,), timeout=self.likes_ttl)

    # --- baskets (never cached: they are the user's) --------------------------------------------

    def basket(self, identity: CallerIdentity, *, store_id: str) -> dict[str, Any]:
        """The identity's basket at a store."""
        try:
            return _object(
                self.http.request(
                    "GET",
                    f"{API}/basket",
                    resource=Resource.BASKETS,
                    name="basket",
                    params={"store_id": store_id},
                    headers=identity.headers(),
                    idempotent=True,
                ),
                "basket",
            )
        except UpstreamStatusError as error:
            raise_unknown_store(error)
            raise

    def basket_anywhere(self, identity: CallerIdentity) -> dict[str, Any]:
        """The identity's open basket at its own store, without moving it (`store_id` null when there is none):
        what a publisher's page, which knows no store, asks to show whether a recipe is in the basket."""
        return _object(
            self.http.request(
                "GET",
                f"{API}/basket",
                resource=Resource.BASKETS,
                name="basket",
                headers=identity.headers(),
                idempotent=True,
            ),
            "basket",
        )

    # --- analytics -------------------------------------------------------------------------------

    def store_events(self, identity: CallerIdentity, events: Sequence[dict[str, Any]]) -> int:
        """Store analytics events upstream; the number stored. Retried like a read when every event carries its id
        (the upstream stores an id once per supplier, docs/upstream.md); never otherwise."""
        payload = _object(
            self.http.request(
                "POST",
                f"{API}/events",
                resource=Resource.EVENTS,
                name="events",
                json={"events": list(events)},
                headers=identity.headers(),
                idempotent=all(event.get("id") for event in events),
            ),
            "events",
        )
        return int(payload.get("stored", 0))

    def _remember(self, values: dict[str, tuple[Recipe | None]]) -> None:
        """Cache fresh answers, and keep them longer as the stale copies served while the upstream fails."""
        self.cache.set_many(values, timeout=self.recipe_ttl)
        self.cache.set_many({"stale:" + key: value for key, value in values.items()}, timeout=self.stale_ttl)

    def _stale_recipe(self, key: str, error: UpstreamError) -> Recipe | None:
        """The last good copy of a recipe, or the error when there is none."""
        recipe: Recipe | None = self.cache.stale(key, error, what="recipe")
        return recipe

    def _stale_recipes(self, keys: dict[str, str], error: UpstreamError) -> dict[str, Recipe]:
        """The last good copies of some recipes, or the error when there is none at all."""
        stale = dict(zip(keys, self.cache.get_many(*("stale:" + key for key in keys.values())), strict=True))
        if not any(stale.values()):
            raise error
        log.warning("upstream failed, serving the last good recipes: %s", error)
        return {rid: value[0] for rid, value in stale.items() if value and value[0] is not None}

    @staticmethod
    def like_key(identity: CallerIdentity, recipe_id: str) -> str:
        """Per supplier (likes are kept per supplier), user and recipe; hashed, so no user id in clear."""
        return cache_key("like", identity.supplier_id, identity.authorization, recipe_id)

    @staticmethod
    def recipe_key(
        identity: CallerIdentity, recipe_id: str, store_id: str | None, serves: int | None, *, summary: bool = False
    ) -> str:
        """Per recipe, store, serves and language; per supplier too, since the token goes upstream."""
        kind = "recipe-summary" if summary else "recipe"
        return cache_key(kind, identity.supplier_id, recipe_id, store_id, serves, identity.language)


def _object(payload: Any, what: str) -> dict[str, Any]:
    if not isinstance(payload, dict):
        raise UpstreamBadResponse(f"{what}: expected an object")
    return payload


def _params(**values: Any) -> dict[str, Any]:
    return {name: value for name, value in values.items() if value is not None}


def raise_unknown_store(error: UpstreamStatusError) -> None:
    """An upstream 400 on `store_id` as the UnknownStore it is (the customer sees a 400); else nothing."""
    if error.status == 400 and (error.field_errors("query", "store_id") or error.field_errors("json", "store_id")):
        raise UnknownStore(error.status, error.problem, error.endpoint) from error
