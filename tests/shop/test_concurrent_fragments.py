"""The shelf asks prerender for its cards at once, not one after another: behind a proxy that holds every card
request until all of the page's card requests have arrived (a barrier), the page still gets all its cards. Asked
one after another, the first request would wait for the others, which would never come: the barrier breaks (its
wait is a safety net, not a measure) and the page would have no card."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable

from flask import Flask, Response, request

from examples.shop.shelf import BAND_POSITIONS, SINGLE_SLOTS
from tests.faulty_upstream import FaultyPrerender

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
