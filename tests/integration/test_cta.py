"""GET /{v}/no-supplier-add-to-cart-cta against the real coreapi: the publisher's own id resolved through the
external-id lookup (else taken as is), the guest count, and the in-basket state decided while rendering."""

from __future__ import annotations

import itertools
import json
import uuid
from collections.abc import Callable

import pytest
from bs4 import BeautifulSoup, Tag

from prerender.gateway import UpstreamStatusError

from .conftest import browser_headers, headers, record_upstream_calls

PUBLISHER = "demo-publisher-token"
TAG = "svc-no-supplier-add-to-cart-cta"
STORE = "1001"
_visitors = itertools.count()


@pytest.fixture
def visitor() -> str:
    """A new logged-out visitor of the publisher."""
    return f"pub-visitor-{next(_visitors)}-{uuid.uuid4().hex[:8]}"


def publisher_headers(visitor: str) -> dict[str, str]:
    """The headers the publisher's server sends for a logged-out visitor."""
    return {**headers(user=None, token=PUBLISHER), "authless-id": visitor}


def get_cta(client, visitor: str, version: str = "v1", **query: str):
    return client.get(f"/{version}/no-supplier-add-to-cart-cta", query_string=query, headers=publisher_headers(visitor))


def element_of(answer) -> Tag:
    assert answer.status_code == 200, answer.get_data(as_text=True)
    assert answer.mimetype == "text/html"
    found = BeautifulSoup(answer.get_data(as_text=True), "html.parser").find(TAG)
    assert isinstance(found, Tag), answer.get_data(as_text=True)
    return found


def data_of(element: Tag) -> dict:
    script = element.find("script", class_="svc-no-supplier-cta__data")
    assert isinstance(script, Tag)
    return json.loads(script.get_text())


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_the_publishers_id_is_resolved_through_the_external_id(client, visitor, version):
    element = element_of(get_cta(client, visitor, version, recipe_id="pub-ratatouille-provencale"))
    assert element["recipe-id"] == "3"
    assert element["external-id"] == "pub-ratatouille-provencale"
    assert element["in-basket"] == "false"
    assert "in-basket" not in element.get("class", [])
    assert data_of(element)["title"] == "Ratatouille provençale"


@pytest.mark.parametrize("language", ["fr", "en"])
def test_the_button_says_its_language(client, visitor, language):
    """Read aloud in its own language on a page written in another (the card's test says why)."""
    answer = client.get(
        "/v1/no-supplier-add-to-cart-cta",
        query_string={"recipe_id": "10"},
        headers={**publisher_headers(visitor), "language-id": language},
    )
    assert element_of(answer)["lang"] == language


def test_without_a_match_the_value_is_the_recipe_id(client, visitor):
    element = element_of(get_cta(client, visitor, recipe_id="10"))
    assert element["recipe-id"] == "10"
    assert data_of(element)["title"] == "Mousse au chocolat"


@pytest.mark.parametrize("recipe_id", ["no-such-recipe", "999999", "une recette à moi", "../5"])
def test_an_unknown_recipe_is_an_empty_answer(client, visitor, recipe_id):
    answer = get_cta(client, visitor, recipe_id=recipe_id)
    assert answer.status_code == 200
    assert answer.get_data(as_text=True) == ""


def test_recipe_id_is_required(client, visitor):
    answer = client.get("/v1/no-supplier-add-to-cart-cta", headers=publisher_headers(visitor))
    assert answer.status_code == 400
    assert answer.mimetype == "application/problem+json"
    assert "recipe_id" in answer.get_json()["errors"]["query"]


@pytest.mark.parametrize(
    ("recipe_id", "message"),
    [
        ("", "Missing data for required field."),  # a blank parameter is one left out (README.md)
        (" ", "Missing data for required field."),
        ("x" * 121, "Length must be between 1 and 120."),
        ("tab\there", "Must not contain control characters."),
        ("a\x85b", "Must not contain control characters."),  # C1 (NEL) as well as C0 and DEL
        # The id is one segment of the upstream's path, where these two would go up it (gateway/calls.py).
        (".", "Must not be '.' or '..'."),
        ("..", "Must not be '.' or '..'."),
    ],
)
def test_a_bad_recipe_id_is_refused_with_what_is_wrong_with_it(client, visitor, recipe_id, message):
    """Each message says what is wrong with this value, and only that (an empty id has no control character)."""
    answer = get_cta(client, visitor, recipe_id=recipe_id)
    assert answer.status_code == 400 and answer.mimetype == "application/problem+json"
    assert answer.get_json()["errors"]["query"]["recipe_id"] == [message]


def test_the_guest_count_applies(client, visitor):
    element = element_of(get_cta(client, visitor, recipe_id="pub-crepes", guests="3"))
    assert element["guests"] == "3"


@pytest.mark.parametrize("guests", ["abc", "0", "51", "2.5", "", " 4", "-3", "1e1", "4,5"])
def test_a_bad_guest_count_is_ignored_never_refused(client, visitor, guests):
    element = element_of(get_cta(client, visitor, recipe_id="pub-crepes", guests=guests))
    assert element["guests"] == "6"  # the recipe's own (the seed's crêpes serve 6)


def test_a_guest_count_given_twice_is_ignored_unless_both_agree(client, visitor):
    """Two different counts are a guess (which did the page mean?): ignored as any bad count, never a 400; the same
    count twice is that count."""
    path = "/v1/no-supplier-add-to-cart-cta?recipe_id=pub-crepes&guests="
    differ = client.get(f"{path}3&guests=5", headers=publisher_headers(visitor))
    assert element_of(differ)["guests"] == "6"
    agree = client.get(f"{path}3&guests=3", headers=publisher_headers(visitor))
    assert element_of(agree)["guests"] == "3"
    # The rule of every other parameter stays: a recipe id given twice, with two values, is the caller's 400.
    assert client.get(f"{path}3&recipe_id=pub-tarte", headers=publisher_headers(visitor)).status_code == 400


def test_the_fragment_is_private_and_brings_the_visitors_credential(client, visitor):
    answer = get_cta(client, visitor, recipe_id="pub-crepes")
    assert "private" in answer.headers["Cache-Control"]
    assert BeautifulSoup(answer.get_data(as_text=True), "html.parser").find("svc-shopper") is not None


def test_two_identical_buttons_named_by_the_buy_label(client, visitor):
    element = element_of(get_cta(client, visitor, recipe_id="pub-crepes"))
    buttons = element.find_all("button")
    assert len(buttons) == 2
    assert [b.get_text(strip=True) for b in buttons] == ["Acheter les ingrédients"] * 2
    assert all("svc-ds-button--primary" in b["class"] for b in buttons)
    # The icon is decoration: the visible label alone names the button (a screen-reader check heard the icon's
    # text first, "Ajouter les ingrédients au panier Acheter les ingrédients").
    assert all(b.find("svg")["aria-hidden"] == "true" and not b.find("svg").has_attr("aria-label") for b in buttons)
    assert all(b["aria-haspopup"] == "dialog" for b in buttons)  # it opens the drawer
    fixed = element.find(class_="svc-no-supplier-cta__fixed")
    assert fixed.has_attr("hidden") and fixed["aria-hidden"] == "true"


def test_the_transfer_offer_names_the_affiliated_retailer_and_no_store(app, client, visitor, monkeypatch):
    """The fragment says where the basket can go; the stores are read when the drawer opens (a retailer's 3 000
    stores would weigh 500 KB in every button), so the fragment neither carries nor reads them."""
    calls = record_upstream_calls(app, monkeypatch)
    transfer = data_of(element_of(get_cta(client, visitor, recipe_id="pub-crepes")))["transfer"]
    # (An empty list, said not loaded, for the drawer of the release before during a rolling deploy.)
    assert transfer == {"available": True, "retailer": "Demo Market", "stores": [], "stores_loaded": False}
    assert not [path for _, path, _ in calls if path.endswith("/stores")]


def get_stores(client, visitor: str, version: str = "v1", **extra: str):
    """The drawer's read of the affiliated retailer's stores, with the publisher's visitor's credential."""
    hdrs = browser_headers(client, user=None, token=PUBLISHER, authless=visitor, **extra)
    return client.get(f"/{version}/basket/transfers/stores", headers=hdrs)


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_the_drawer_reads_the_retailers_stores_with_their_coordinates(client, visitor, upstream, version):
    """What the drawer's picker lists, nearest first once the page gave the shopper's location (user.setLocation)."""
    answer = get_stores(client, visitor, version)
    assert answer.status_code == 200, answer.get_json()
    body = answer.get_json()
    assert body["retailer"] == "Demo Market"
    assert body["stores"] == [
        {key: store[key] for key in ("id", "name", "city", "latitude", "longitude")}
        for store in upstream.get("/stores")["data"]
    ]
    paris = {
        "id": STORE,
        "name": "Demo Market Paris Bastille",
        "city": "Paris",
        "latitude": 48.8533,
        "longitude": 2.3692,
    }
    assert paris in body["stores"]
    # The same for every reader of the publisher in a language: the browser keeps it a while, per credential, then
    # revalidates it (a 304, not the whole list again).
    assert answer.headers["Cache-Control"] == "private, max-age=300"
    assert {"Authorization", "language-id"} <= {value.strip() for value in answer.headers["Vary"].split(",")}
    hdrs = {
        **browser_headers(client, user=None, token=PUBLISHER, authless=visitor),
        "If-None-Match": answer.headers["ETag"],
    }
    assert client.get(f"/{version}/basket/transfers/stores", headers=hdrs).status_code == 304


def test_a_store_the_upstream_does_not_place_has_no_coordinates(app, client, visitor, monkeypatch):
    http = app.extensions["prerender.upstream"].http
    real = http.request

    def unplaced(method, path, **kwargs):
        payload = real(method, path, **kwargs)
        if path.endswith("/stores"):  # the upstream does not know where 1002 is, nor half of 1001
            for store in payload["data"]:
                if store["id"] == "1002":
                    store["latitude"] = store["longitude"] = None
                elif store["id"] == STORE:
                    del store["longitude"]
        return payload

    monkeypatch.setattr(http, "request", unplaced)
    by_id = {store["id"]: store for store in get_stores(client, visitor).get_json()["stores"]}
    assert by_id["1002"] == {"id": "1002", "name": "Demo Market Lyon Part-Dieu", "city": "Lyon"}
    assert by_id[STORE] == {"id": STORE, "name": "Demo Market Paris Bastille", "city": "Paris"}


def test_the_stores_of_a_retailer_without_affiliate_are_a_409_and_need_a_credential(client):
    # A retailer's own shopper: no affiliated retailer to hand a basket to.
    answer = client.get("/v1/basket/transfers/stores", headers=browser_headers(client))
    assert answer.status_code == 409 and answer.mimetype == "application/problem+json"
    assert answer.get_json()["reason"] == "no-affiliate"
    # No credential: the browser routes' 401.
    refused = client.get("/v1/basket/transfers/stores", headers={"language-id": "fr", "session-id": "s"})
    assert refused.status_code == 401 and refused.mimetype == "application/problem+json"


def fail_upstream(app, monkeypatch, fails: Callable[[str], bool], status: int = 503) -> None:
    """The gateway's calls whose path `fails` get the upstream's `status` (fault injection); the others go to the
    live coreapi."""
    http = app.extensions["prerender.upstream"].http
    real = http.request

    def failing(method, path, **kwargs):
        if fails(path):
            raise UpstreamStatusError(status, None, path)
        return real(method, path, **kwargs)

    monkeypatch.setattr(http, "request", failing)


def test_an_unreadable_store_list_is_the_upstream_failures_problem(app, client, visitor, monkeypatch):
    fail_upstream(app, monkeypatch, lambda path: path.endswith("/stores"))
    answer = get_stores(client, visitor)
    assert answer.status_code in (502, 503) and answer.mimetype == "application/problem+json"
    assert "Traceback" not in answer.get_data(as_text=True)


def test_a_retailer_calling_the_cta_gets_no_transfer(client):
    answer = client.get("/v1/no-supplier-add-to-cart-cta?recipe_id=5", headers=headers())
    assert data_of(element_of(answer))["transfer"] is None


def test_in_basket_is_decided_while_rendering(client, visitor):
    browser = browser_headers(client, user=None, token=PUBLISHER, authless=visitor)
    added = client.post("/v1/basket/recipes", json={"recipe_id": "3", "guests": 4, "store_id": STORE}, headers=browser)
    assert added.status_code == 200, added.get_json()

    element = element_of(get_cta(client, visitor, recipe_id="pub-ratatouille-provencale"))
    assert element["in-basket"] == "true"
    assert "in-basket" in element["class"]
    assert element["store-id"] == STORE  # the store the basket is priced at: the page's store once hydrated
    buttons = element.find_all("button")
    assert [b.get_text(strip=True) for b in buttons] == ["Voir les ingrédients"] * 2
    assert all("svc-ds-button--secondary" in b["class"] for b in buttons)
    assert all(b.find("svg")["aria-hidden"] == "true" for b in buttons)

    # Another recipe of the same visitor, and the same recipe of another visitor: not in the basket.
    assert element_of(get_cta(client, visitor, recipe_id="pub-crepes"))["in-basket"] == "false"
    other = element_of(get_cta(client, f"{visitor}-other", recipe_id="pub-ratatouille-provencale"))
    assert other["in-basket"] == "false"


def test_an_upstream_failure_is_an_empty_cta_not_an_error(app, client, visitor, monkeypatch):
    fail_upstream(app, monkeypatch, lambda path: "/recipes/" in path, status=500)
    answer = get_cta(client, visitor, recipe_id="pub-quiche-lorraine")
    assert answer.status_code == 200
    assert answer.get_data(as_text=True) == ""


def test_a_basket_failure_renders_not_in_basket(app, client, visitor, monkeypatch):
    fail_upstream(app, monkeypatch, lambda path: path.endswith("/basket"))
    element = element_of(get_cta(client, visitor, recipe_id="pub-quiche-lorraine"))
    assert element["in-basket"] == "false"


def test_the_recipe_card_styles_include_the_cta(client):
    answer = client.get("/v1/styles/recipe-card", headers=headers())
    assert "no-supplier-cta" in answer.get_data(as_text=True)
