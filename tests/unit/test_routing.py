"""URL rules (prerender/web/routing.py): a GET that acts (merges, makes or moves the shopper's basket or menu)
answers no HEAD, and says so the same way whatever the method."""

from __future__ import annotations

import pytest

from prerender.web.routing import RouteRule
from tests.conftest import HEADERS, allowed

MERGES = ["/v1/basket/merge-authless-basket", "/v2/basket/merge-authless-basket", "/v2/menu/merge-authless-menu"]


@pytest.mark.parametrize("path", MERGES)
@pytest.mark.parametrize("method", ["HEAD", "POST", "PUT", "DELETE"])
def test_a_merge_refuses_head_and_every_refusal_lists_the_same_methods(client, path, method):
    """A HEAD would merge too: it is refused as any method the route does not have, and no `Allow` lists it."""
    response = client.open(f"{path}?authless_id=visitor-1", method=method, headers=HEADERS)
    assert response.status_code == 405
    assert allowed(response) == {"GET", "OPTIONS"}


@pytest.mark.parametrize("path", MERGES)
def test_a_merges_options_lists_get_alone(client, path):
    assert allowed(client.options(path, headers=HEADERS)) == {"GET", "OPTIONS"}


# The GETs that make or move what the shopper has: the planner's pages and the menu make the menu when there is
# none, and with a store_id move it there; the basket and its preview move the basket to store_id.
MAKES_OR_MOVES = [
    "/v1/basket",
    "/v2/basket",
    "/v2/menu/current",
    "/v2/catalog/my-space/basket-preview",
    "/v2/planner",
    "/v2/planner/current-menu",
]


def test_every_merge_rule_has_no_head(app):
    """Whatever merges (an endpoint named for it) is declared `head=False`: nothing else keeps a HEAD from
    running the merge."""
    merges = [rule for rule in app.url_map.iter_rules() if "merge" in rule.endpoint]
    assert {rule.rule for rule in merges} == set(MERGES)
    assert all("HEAD" not in rule.methods for rule in merges)


def test_the_gets_that_act_are_exactly_those_without_head(app):
    """The list above is the whole of it: a rule without HEAD is one of them, and each of them has none."""
    without_head = {
        rule.rule for rule in app.url_map.iter_rules() if "GET" in rule.methods and "HEAD" not in rule.methods
    }
    assert without_head == set(MERGES) | set(MAKES_OR_MOVES)


@pytest.mark.parametrize("path", MAKES_OR_MOVES)
def test_a_get_that_makes_or_moves_refuses_head(client, path):
    """A link checker's or a monitor's HEAD, with a store_id, would move the basket or make the menu: refused by
    routing before any hook (no credential needed to be told), with an `Allow` that does not list it."""
    response = client.head(f"{path}?store_id=1002", headers=HEADERS)
    assert response.status_code == 405 and "GET" in allowed(response) and "HEAD" not in allowed(response)


def test_other_gets_keep_their_head(client):
    response = client.post("/v1/recipe-card", headers=HEADERS)
    assert response.status_code == 405 and "HEAD" in allowed(response)


def test_a_copied_rule_keeps_the_option():
    rule = RouteRule("/merge", methods=["GET"], head=False)
    assert rule.methods == {"GET"} and rule.empty().methods == {"GET"}
    assert RouteRule("/read", methods=["GET"]).methods == {"GET", "HEAD"}
