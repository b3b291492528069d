"""The shelf asks prerender for its cards at once, not one after another: behind a proxy that holds every card
request until all of the page's card requests have arrived (a barrier), the page still gets all its cards. Asked
one after another, the first request would wait for the others, which would never come: the barrier breaks (its
wait is a safety net, not a measure) and the page would have no card. The sheets page asks the shop's own catalog
(its stores and its recipes) at once in the same way."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable

import requests
from flask import Flask, Response, request

from examples.shop.shelf import BAND_POSITIONS, SINGLE_SLOTS
from tests.faulty_upstream import FaultyPrerender, FaultyUpstream

from .conftest import soup_of
from .test_shelf_page import all_cards, visit

# The page's card requests: one a single slot, and the band's multiple request.
CARD_REQUESTS = len(SINGLE_SLOTS) + 1
# Well under the shop's read timeout in tests (10 s): a broken barrier answers 503, the page goes without.
SAFETY_WAIT_SECONDS = 8.0


class HeldCards:
    """Answers prerender's card routes with a card of a recipe of its own each, once every card request of the
    page is in progress; counts the requests in progress at most."""

    def __init__(self) -> None:
        self.barrier = threading.Barrier(CARD_REQUESTS, timeout=SAFETY_WAIT_SECONDS)
        self.lock = threading.Lock()
        self.in_progress = 0
        self.most_in_progress = 0
        self.served = 0

    def _held(self, answer: Callable[[], Response]) -> Response:
        with self.lock:
            self.in_progress += 1
            self.most_in_progress = max(self.most_in_progress, self.in_progress)
        try:
            self.barrier.wait()
        except threading.BrokenBarrierError:
            return Response(status=503)
        finally:
            with self.lock:
                self.in_progress -= 1
        return answer()

    def _card(self) -> str:
        with self.lock:
            self.served += 1
            recipe_id = f"held{self.served}"
        return f'<svc-recipe-card id="svc-recipe-card-{recipe_id}" class="svc-recipe-card"></svc-recipe-card>'

    def single(self) -> Response:
        return self._held(lambda: Response(self._card(), mimetype="text/html"))

    def multiple(self) -> Response:
        positions = [context["position"] for context in (request.get_json(silent=True) or {}).get("contexts", [])]
        return self._held(
            lambda: Response(
                json.dumps({"data": [{"position": p, "html": self._card()} for p in positions]}),
                mimetype="application/json",
            )
        )


def test_the_shelf_asks_its_cards_at_once(make_shop: Callable[..., Flask], faulty: Callable[..., FaultyPrerender]):
    held = HeldCards()
    proxy = faulty({"/v1/recipe-card": held.single, "/v1/recipe-card/multiple": held.multiple})
    soup = visit(make_shop(PRERENDER_URL=proxy.url).test_client())
    assert held.most_in_progress == CARD_REQUESTS
    assert sorted(proxy.failed) == sorted(["/v1/recipe-card"] * len(SINGLE_SLOTS) + ["/v1/recipe-card/multiple"])
    cards = all_cards(soup)
    assert len(cards) == len(SINGLE_SLOTS) + len(BAND_POSITIONS)
    assert len({card["id"] for card in cards}) == len(cards)


class HeldCatalog:
    """In front of coreapi for the shop's own catalog calls: holds each call of `paths` until all of them have
    arrived, then passes it through; a broken barrier answers 503 (the page then goes without)."""

    def __init__(self, coreapi_url: str, paths: list[str]) -> None:
        self.coreapi_url = coreapi_url
        self.barrier = threading.Barrier(len(paths), timeout=SAFETY_WAIT_SECONDS)
        self.faults = {path: self._held for path in paths}

    def _held(self) -> Response:
        try:
            self.barrier.wait()
        except threading.BrokenBarrierError:
            return Response(status=503)
        answer = requests.get(
            f"{self.coreapi_url}{request.path}", params=request.args, headers=dict(request.headers), timeout=10
        )
        return Response(answer.content, status=answer.status_code, mimetype=answer.headers.get("Content-Type"))


def test_the_sheets_page_asks_the_catalogs_stores_and_recipes_at_once(
    make_shop: Callable[..., Flask], coreapi_url: str
):
    """The shop's sheets ("Nos fiches maison") need the store picker's stores and the recipes, both from the shop's
    catalog: asked one after the other, a slow catalog would hold the page for two timeouts."""
    held = HeldCatalog(coreapi_url, ["/api/v1/stores", "/api/v1/recipes"])
    with FaultyUpstream(coreapi_url, held.faults) as proxy:
        soup = soup_of(make_shop(COREAPI_URL=proxy.url).test_client().get("/idees/fiches"))
    assert sorted(proxy.failed) == ["/api/v1/recipes", "/api/v1/stores"]
    assert soup.select('select[name="store_id"] option[value="1001"]')
    assert soup.select("main#content article.dm-recipe[data-recipe-id]")
