"""Likes at the upstream (docs/upstream.md, "Likes"): which recipes a logged-in user likes, and a like or unlike.
A user's like states are cached per (supplier, user, recipe) when `ttl` > 0, follow our own likes and unlikes,
and are read again after `ttl` seconds for changes made elsewhere."""

from __future__ import annotations

from collections.abc import Iterable

from prerender.gateway.calls import BATCH_LIMIT, CallerIdentity, segment, send
from prerender.gateway.errors import UpstreamError
from prerender.gateway.guards import Resource
from prerender.gateway.http import UpstreamHttp
from prerender.gateway.models import data_list
from prerender.gateway.read_cache import ReadCache, cache_key


class LikeGateway:
    """GET /likes, PUT and DELETE /likes/{recipe_id}."""

    def __init__(self, *, http: UpstreamHttp, cache: ReadCache, ttl: int) -> None:
        self.http = http
        self.cache = cache
        self.ttl = ttl

    def liked_among(self, identity: CallerIdentity, recipe_ids: Iterable[str]) -> set[str]:
        """Which of these recipes (the first 100) the user likes: cached states, then one call for the rest."""
        ids = list(dict.fromkeys(recipe_ids))[:BATCH_LIMIT]
        keys = {rid: self.key(identity, rid) for rid in ids} if self.ttl > 0 else {}
        liked: set[str] = set()
        missing: list[str] = []
        for rid, cached in zip(ids, self.cache.get_many(*keys.values()) if keys else [None] * len(ids), strict=True):
            if cached is None:
                missing.append(rid)
            elif cached[0]:
                liked.add(rid)
        if missing:
            payload = send(
                self.http,
                identity,
                "GET",
                "/likes",
                resource=Resource.LIKES,
                name="likes",
                params={"recipe_ids": ",".join(missing)},
            )
            answered = {str(rid) for rid in data_list(payload, "likes")} & set(missing)
            if keys:
                self.cache.set_many({keys[rid]: (rid in answered,) for rid in missing}, timeout=self.ttl)
            liked |= answered
        return liked

    def set_liked(self, identity: CallerIdentity, recipe_id: str, *, liked: bool) -> None:
        """Like or unlike a recipe for the user (idempotent both ways); a cached state follows.

        When the call fails, the upstream may or may not have applied it: the cached state is dropped so the
        next card asks the upstream."""
        key = self.key(identity, recipe_id)
        try:
            send(
                self.http,
                identity,
                "PUT" if liked else "DELETE",
                f"/likes/{segment(recipe_id)}",
                resource=Resource.LIKES,
                name="like",
                expect_body=False,
            )
        except UpstreamError:
            if self.ttl > 0:
                self.cache.delete(key)
            raise
        if self.ttl > 0:
            self.cache.set(key, (liked,), timeout=self.ttl)

    @staticmethod
    def key(identity: CallerIdentity, recipe_id: str) -> str:
        """Per supplier (likes are kept per supplier), user and recipe; hashed, so no user id in clear."""
        return cache_key("like", identity.supplier_id, identity.authorization, recipe_id)
