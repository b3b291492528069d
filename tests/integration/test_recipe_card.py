"""GET /{v}/recipe-card against the real coreapi: every rule of README.md for the single card."""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import re
import socket
import threading
import uuid
from decimal import Decimal

import pytest
import requests
from bs4 import BeautifulSoup
from flask import Response, g
from flask import request as flask_request

from prerender import create_app
from prerender.gateway import UpstreamTimeout
from prerender.gateway.read_cache import cache_key
from prerender.rendering.i18n import TextCatalog
from prerender.web.admission import UNVOUCHED_KEY
from tests.conftest import closed_port
from tests.faulty_upstream import status

from .conftest import RETAILER, UPSTREAM_READ_TIMEOUT, browser_headers, get_card, headers, record_upstream_calls

NO_PERSONALIZATION = "demo-nopers-token"  # the seed's supplier with personalization off

FR = TextCatalog(overrides_dir=None).translator("fr")


def card_of(response):
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    return BeautifulSoup(response.get_data(as_text=True), "html5lib").find("svc-recipe-card")


def test_fixed_recipe_with_store_shows_coreapi_price_per_guest(client, upstream):
    expected = upstream.recipe("1", store_id="1001")
    card = card_of(get_card(client, recipe_id="1", store_id="1001"))
    assert card["id"] == "svc-recipe-card-1"
    assert card.find(class_="svc-recipe-card__title").get_text(strip=True) == expected["title"]
    amount = card.find(class_="svc-recipe-pricing__amount").get_text(strip=True)
    assert amount == FR.money(Decimal(str(expected["pricing"]["price_per_guest"])))


def test_no_price_without_store(client):
    card = card_of(get_card(client, recipe_id="1"))
    assert card.find(class_="svc-recipe-pricing") is None


@pytest.mark.parametrize("blank", ["", "  "])
def test_an_empty_store_id_is_no_store(client, blank):
    """A template writes `store_id=` when its visitor chose no store: the specification's missing store (no error,
    no price), not a malformed one."""
    card = card_of(get_card(client, recipe_id="1", store_id=blank))
    assert card.find(class_="svc-recipe-pricing") is None
    assert str(card) == str(card_of(get_card(client, recipe_id="1")))


OPTIONAL_CARD_PARAMETERS = (
    "display_variant",
    "orientation",
    "serves",
    "current_products_ids",
    "surrounding_products_ids",
    "above_fold",
)


@pytest.mark.parametrize("name", OPTIONAL_CARD_PARAMETERS)
@pytest.mark.parametrize("blank", ["", " \t"])
def test_a_blank_optional_parameter_is_the_parameter_left_out(client, name, blank):
    """`display_variant=` is how a PHP or Java template writes a value it does not have: the card as without the
    parameter, as for `store_id=`, not a 400 that leaves the customer's page without its card."""
    card = card_of(get_card(client, recipe_id="1", store_id="1001", **{name: blank}))
    assert card is not None
    assert str(card) == str(card_of(get_card(client, recipe_id="1", store_id="1001")))


def test_a_blank_selector_is_a_missing_one(client):
    """Both selectors blank: the 400 of neither selector, naming both."""
    answer = get_card(client, recipe_id="", surrounding_products_ids=" ")
    assert answer.status_code == 400 and answer.mimetype == "application/problem+json"
    assert set(answer.get_json()["errors"]["query"]) == {"recipe_id", "surrounding_products_ids"}


def test_a_header_sent_twice_with_one_value_is_that_value(client):
    """An HTTP client that adds the supplier-token (or the language) to its defaults sends it twice: the same value
    twice is that value (the card keeps its supplier's heart, basket button and shopper credential), where it was a
    token nobody knows and a card quietly without them."""
    once = get_card(client, recipe_id="1", store_id="1001")
    twice = client.get(
        "/v1/recipe-card",
        query_string={"recipe_id": "1", "store_id": "1001"},
        headers=[*headers().items(), ("supplier-token", RETAILER), ("language-id", "fr")],
    )
    assert twice.status_code == 200
    card = card_of(twice)
    assert card.find(class_="svc-like-button") is not None and card.find(class_="svc-recipe-card-cta") is not None
    assert str(card) == str(card_of(once))
    assert BeautifulSoup(twice.get_data(as_text=True), "html5lib").find("svc-shopper") is not None


def test_a_supplier_token_sent_twice_with_two_values_is_no_token(client):
    """Which of two tokens the customer meant is a guess: as for an unknown token, the card without the supplier's
    features (logged, not refused: the specification's rule for a token on the card routes)."""
    answer = client.get(
        "/v1/recipe-card",
        query_string={"recipe_id": "1", "store_id": "1001"},
        headers=[*headers().items(), ("supplier-token", "demo-nopers-token")],
    )
    card = card_of(answer)
    assert card.find(class_="svc-like-button") is None and card.find(class_="svc-recipe-card-cta") is None


def test_a_store_given_twice_with_two_values_is_a_400_naming_it(client):
    """Priced at one store and filtered at the other, or the reverse: the caller's mistake, said as such."""
    answer = client.get("/v1/recipe-card?recipe_id=1&store_id=1001&store_id=1002", headers=headers())
    assert answer.status_code == 400 and answer.mimetype == "application/problem+json"
    assert list(answer.get_json()["errors"]["query"]) == ["store_id"]
    assert card_of(client.get("/v1/recipe-card?recipe_id=1&store_id=1001&store_id=1001", headers=headers()))


def test_serves_overrides_guests(client):
    card = card_of(get_card(client, recipe_id="1", store_id="1001", serves="7"))
    assert card["guests"] == "7"
    assert card.find(class_="svc-recipe-card__guests").get_text(strip=True) == "7 pers."


def title_in(upstream, recipe_id: str, language: str) -> str:
    response = requests.get(
        f"{upstream.base_url}/api/v1/recipes/{recipe_id}",
        headers={"Language-Id": language},
        timeout=UPSTREAM_READ_TIMEOUT,
    )
    return response.json()["title"]


def test_language_reaches_the_upstream_and_the_cache_key(client, upstream):
    """French then English in one app: a cache key without the language would serve French twice."""
    recipe_id = next(
        r["id"]
        for r in upstream.all_recipes()
        if title_in(upstream, r["id"], "fr") != title_in(upstream, r["id"], "en")
    )
    french = card_of(get_card(client, recipe_id=recipe_id))
    english = card_of(get_card(client, hdrs=headers(language="en"), recipe_id=recipe_id))
    assert french.find(class_="svc-recipe-card__title").get_text(strip=True) == title_in(upstream, recipe_id, "fr")
    assert english.find(class_="svc-recipe-card__title").get_text(strip=True) == title_in(upstream, recipe_id, "en")


def test_serves_reaches_the_upstream_and_the_cache_key(app, client, monkeypatch):
    calls = record_upstream_calls(app, monkeypatch)
    for serves in ("2", "7", "2"):
        get_card(client, recipe_id="1", store_id="1001", serves=serves)
    recipe_calls = [params for method, path, params in calls if path == "/api/v1/recipes/1"]
    assert [params.get("serves") for params in recipe_calls] == [2, 7]  # the third came from the cache


def test_unknown_recipe_is_an_empty_200(client):
    response = get_card(client, recipe_id="999999")
    assert response.status_code == 200 and response.data == b""


def test_unknown_store_is_a_400(client):
    response = get_card(client, recipe_id="1", store_id="999999")
    assert response.status_code == 400
    assert "store_id" in response.get_json()["errors"]["query"]


def incomplete_recipe_ids(upstream) -> list[str]:
    ids = [r["id"] for r in upstream.all_recipes()]
    return [rid for rid in ids if upstream.recipe(rid, store_id="1002")["available"] is False]


def test_completion_filter_on_a_fixed_recipe(client, upstream):
    recipe_id = incomplete_recipe_ids(upstream)[0]
    assert get_card(client, recipe_id=recipe_id, store_id="1002").data == b""
    assert card_of(get_card(client, recipe_id=recipe_id, store_id="1001")) is not None


def products_of(upstream, recipe_id: str) -> list[str]:
    detail = upstream.recipe(recipe_id)
    return [ingredient["products"][0]["id"] for ingredient in detail["ingredients"] if ingredient["products"]]


def test_suggested_card_needs_the_surrounding_products(client, upstream):
    pair = products_of(upstream, "1")[:2]
    card = card_of(get_card(client, surrounding_products_ids=json.dumps(pair), store_id="1001"))
    chosen = upstream.recipe(card["recipe-id"])
    needed = {p["id"] for ingredient in chosen["ingredients"] for p in ingredient["products"]}
    assert needed & set(pair)


def test_same_session_same_recipe(client, upstream):
    pair = json.dumps(products_of(upstream, "2")[:2])
    first = card_of(get_card(client, surrounding_products_ids=pair))["recipe-id"]
    for _ in range(3):
        assert card_of(get_card(client, surrounding_products_ids=pair))["recipe-id"] == first


def test_suggestions_respect_the_completion_filter(client, upstream):
    shown = 0
    for recipe_id in incomplete_recipe_ids(upstream)[:6]:
        pair = json.dumps(products_of(upstream, recipe_id)[:2])
        response = get_card(client, surrounding_products_ids=pair, store_id="1002")
        card = BeautifulSoup(response.get_data(as_text=True), "html5lib").find("svc-recipe-card")
        if card is not None:
            shown += 1
            assert card["recipe-id"] != recipe_id
            assert upstream.recipe(card["recipe-id"], store_id="1002")["available"] is True
    assert shown  # products of incomplete recipes still lead to other, complete recipes


def test_unmatched_products_give_an_empty_200(client):
    response = get_card(client, surrounding_products_ids='["nope-1","nope-2"]')
    assert response.status_code == 200 and response.data == b""


def test_heart_for_connected_users_only(client):
    assert card_of(get_card(client, recipe_id="1")).find(class_="svc-like-button") is not None
    anonymous = card_of(get_card(client, hdrs=headers(user=None), recipe_id="1"))
    assert anonymous.find(class_="svc-like-button") is None


def test_the_heart_is_the_same_for_every_connected_user(client, upstream):
    """The browser fills in like states (one batched call per page): the card does not depend on who asks."""
    upstream.like("it-liker", "3")
    liker = get_card(client, hdrs=headers(user="it-liker"), recipe_id="3")
    other = get_card(client, hdrs=headers(user="it-someone-else"), recipe_id="3")
    heart = card_of(liker).find(class_="svc-like-button")
    assert heart["aria-pressed"] == "false" and heart["data-like-state"] == "unknown"
    assert str(card_of(liker)) == str(card_of(other))  # the credential element after the card differs


@pytest.mark.parametrize("token", ["demo-nopers-token", None, "not-a-real-token"])
def test_no_like_no_cta_without_personalization(client, token, caplog):
    card = card_of(get_card(client, hdrs=headers(token=token), recipe_id="1", store_id="1001"))
    assert card.find(class_="svc-like-button") is None
    assert card.find(class_="svc-recipe-card-cta") is None
    assert card.find(class_="svc-recipe-pricing") is not None
    if token != "demo-nopers-token":
        assert "supplier-token" in caplog.text


def test_retailer_gets_like_and_cta(client):
    card = card_of(get_card(client, recipe_id="1", store_id="1001"))
    assert card.find(class_="svc-recipe-card-cta") is not None


def test_v2_variant_4(client):
    card = card_of(get_card(client, version="v2", recipe_id="1", display_variant="4"))
    assert card["display-variant"] == "3"
    assert card.find(class_="svc-recipe-card__badge") is not None


def module_links(soup: BeautifulSoup) -> list[str]:
    """The URLs of the fragment's module scripts, then of the modules it preloads."""
    return [s["src"] for s in soup.find_all("script")] + [
        link["href"] for link in soup.find_all("link", rel="modulepreload")
    ]


def test_module_scripts_are_served(client):
    soup = BeautifulSoup(get_card(client, recipe_id="1").get_data(as_text=True), "html5lib")
    # The module the card's script imports at once, announced before the scripts so that it comes with them.
    preloads = [link["href"].rsplit("/", 2)[1:] for link in soup.find_all("link", rel="modulepreload")]
    assert preloads == [["components", "ui.js"]]
    assert soup.find("link", rel="modulepreload").find_next("script") is not None
    for url in module_links(soup):
        path = url.split("://", 1)[1].split("/", 1)[1]
        response = client.get("/" + path)
        assert response.status_code == 200
        assert response.mimetype in ("text/javascript", "application/javascript")
        assert "immutable" in response.headers["Cache-Control"]


def test_a_likes_outage_keeps_the_card(app, client, monkeypatch):
    likes = app.extensions["prerender.upstream"].likes

    def timeout(*args, **kwargs):
        raise UpstreamTimeout("likes timed out")

    monkeypatch.setattr(likes, "liked_among", timeout)  # fault injection: never asked by a card now
    card = card_of(get_card(client, recipe_id="1", store_id="1001"))
    assert card.find(class_="svc-like-button")["aria-pressed"] == "false"


def test_redis_down_hands_over_to_the_workers_memory(app_config, monkeypatch, caplog):
    """Refused connections: the card is served, and for a while the worker keeps its own copies (as the default
    configuration does), so the next cards are neither an upstream call per cached read nor a failed Redis call
    per read, nor a log line each."""
    config = {**app_config, "CACHE_REDIS_URL": f"redis://127.0.0.1:{closed_port()}/0", "NEAR_CACHE_SECONDS": 0}
    app = create_app(config)  # no near cache: the worker's copies alone serve the reads below
    client = app.test_client()
    assert card_of(get_card(client, recipe_id="1", store_id="1001"))["recipe-id"] == "1"
    calls = record_upstream_calls(app, monkeypatch)
    for _ in range(5):
        assert card_of(get_card(client, recipe_id="1", store_id="1001"))["recipe-id"] == "1"
    assert not [c for c in calls if c[1].startswith("/recipes") or c[1].startswith("/suppliers")], calls
    failures = [r for r in caplog.records if "shared cache" in r.getMessage()]
    assert len(failures) == 1 and "keeps its own copies" in failures[0].getMessage()


def test_a_redis_that_never_answers_holds_no_request(app_config):
    """A Redis that accepts connections and never answers (stopped, or a network that drops packets): each call
    to it is bounded (CACHE_REDIS_TIMEOUT), and the first failure hands over to the worker's memory, so the
    requests that follow do not ask it again. Before, each read waited for as long as the operating system kept
    the connection (about 20 s per card here)."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        silent.settimeout(0.2)
        accepted: list[socket.socket] = []
        done = threading.Event()

        def accept_and_say_nothing() -> None:
            while not done.is_set():
                try:
                    accepted.append(silent.accept()[0])
                except TimeoutError:
                    continue

        listener = threading.Thread(target=accept_and_say_nothing, daemon=True)
        listener.start()
        app = create_app({**app_config, "CACHE_REDIS_URL": f"redis://127.0.0.1:{silent.getsockname()[1]}/0"})
        answers: list[int] = []

        def three_cards() -> None:
            for recipe_id in ("1", "2", "3"):
                answers.append(get_card(app.test_client(), recipe_id=recipe_id, store_id="1001").status_code)

        requests_thread = threading.Thread(target=three_cards, daemon=True)
        requests_thread.start()
        requests_thread.join(timeout=60)  # only so that a hang fails this test instead of the suite
        done.set()
        listener.join()
        for connection in accepted:
            connection.close()
    assert answers == [200, 200, 200]
    assert len(accepted) == 1, "Redis was asked again while it was known not to answer"


def test_redis_cache_is_shared_between_apps(app_config, redis_namespace, monkeypatch):
    """Two apps on one Redis prefix (a new one, so it starts cold), whatever the stack's own cache."""
    config = {**app_config, **redis_namespace.cache_config()}
    first, second = create_app(config), create_app(config)
    get_card(first.test_client(), recipe_id="2", store_id="1001")
    calls = record_upstream_calls(second, monkeypatch)
    card_of(get_card(second.test_client(), recipe_id="2", store_id="1001"))
    assert not [c for c in calls if c[1].startswith("/api/v1/recipes")]  # served from Redis


def test_non_default_prefix(app_config):
    app = create_app({**app_config, "ELEMENT_PREFIX": "acme"})
    soup = BeautifulSoup(get_card(app.test_client(), recipe_id="1").get_data(as_text=True), "html5lib")
    assert soup.find("acme-recipe-card")["id"] == "acme-recipe-card-1"
    segment = "~" + base64.urlsafe_b64encode(b"prefix=acme").decode().rstrip("=")
    assert [url.split("/")[5] for url in module_links(soup)] == [segment] * 3  # the preload's too
    assert not any("?" in url for url in module_links(soup))


def test_public_url_wins_over_the_host_header(app_config):
    app = create_app({**app_config, "PUBLIC_URL": "https://fragments.example"})
    response = get_card(app.test_client(), hdrs={**headers(), "Host": "evil.example"}, recipe_id="1")
    sources = module_links(BeautifulSoup(response.get_data(as_text=True), "html5lib"))
    assert len(sources) == 3 and all(src.startswith("https://fragments.example/static/") for src in sources)


def test_cdn_modules_know_the_api(app_config):
    app = create_app({**app_config, "PUBLIC_URL": "https://fragments.example", "CDN_URL": "https://cdn.example"})
    soup = BeautifulSoup(get_card(app.test_client(), recipe_id="1").get_data(as_text=True), "html5lib")
    urls = module_links(soup)
    segment = "~" + base64.urlsafe_b64encode(b"api=https%3A%2F%2Ffragments.example").decode().rstrip("=")
    assert len(urls) == 3 and all(
        url.startswith("https://cdn.example/static/") and url.split("/")[5] == segment for url in urls
    )


def test_upstream_outage_serves_the_last_good_cards(app, client, upstream, monkeypatch):
    """stale-if-error: after the recipe cache expires, an upstream outage still shows the last good card,
    for a fixed recipe and for a suggestion of the same products (from any session)."""
    pair = json.dumps(products_of(upstream, "3")[:2])
    fresh = get_card(client, recipe_id="3", store_id="1001")
    assert "X-Degraded" not in fresh.headers
    fixed = card_of(fresh)
    suggested = card_of(get_card(client, surrounding_products_ids=pair, store_id="1001"))
    gateway = app.extensions["prerender.upstream"]
    with app.app_context():
        for recipe_id in {"3", suggested["recipe-id"]}:
            gateway.recipes.cache.delete(gateway.recipes.key(ctx_identity(app), recipe_id, "1001", None, summary=True))
    monkeypatch.setattr(gateway.http, "base_url", f"http://127.0.0.1:{closed_port()}")  # the outage
    stale = get_card(client, recipe_id="3", store_id="1001")
    assert card_of(stale)["recipe-id"] == fixed["recipe-id"]
    other_session = headers(session="another-session")
    stale_suggestion = get_card(client, hdrs=other_session, surrounding_products_ids=pair, store_id="1001")
    assert card_of(stale_suggestion)["recipe-id"] == suggested["recipe-id"]
    # Whole, but maybe out of date: said so, and kept by no cache (the first request after the outage is fresh).
    for answer in (stale, stale_suggestion):
        assert answer.headers["X-Degraded"] == "stale"
        assert answer.headers["Cache-Control"] == "private, no-store" and "ETag" not in answer.headers


def test_an_outage_serves_a_shopper_whose_preferences_may_apply_their_own_suggestion_only(
    app, client, upstream, monkeypatch
):
    """At a supplier with personalization, a shopper's suggestions follow their preferences and likes: during an
    outage each is served their own last good choice only, never another shopper's (a vegetarian would get veal, and
    a choice another's likes weighed would hint at them), even a diet set a moment ago and not yet seen by a card.
    At a supplier without personalization, nobody's data shapes a choice: another session's draw is anyone's."""
    vegetarian = upstream.get("/recipes", category="vegetarien", per_page=1)["data"][0]["id"]
    hers, other = (json.dumps(products_of(upstream, str(r))[:2]) for r in (vegetarian, "5"))
    names = {name: f"stale-{name}-{uuid.uuid4().hex[:8]}" for name in ("alice", "bob")}
    alice, bob = (headers(user=user) for user in names.values())
    her_card = card_of(get_card(client, hdrs=alice, surrounding_products_ids=hers, store_id="1001"))
    card_of(get_card(client, hdrs=bob, surrounding_products_ids=other, store_id="1001"))
    nopers = headers(user=names["bob"], token=NO_PERSONALIZATION)
    drawn = card_of(get_card(client, hdrs=nopers, surrounding_products_ids=other, store_id="1001"))
    saved = client.put(
        "/v2/preferences", json={"diets": ["vegetarien"]}, headers=browser_headers(client, user=names["alice"])
    )
    assert saved.status_code == 200, saved.get_json()
    gateway = app.extensions["prerender.upstream"]
    monkeypatch.setattr(gateway.http, "base_url", f"http://127.0.0.1:{closed_port()}")  # the outage

    again = get_card(client, hdrs={**alice, "session-id": "her-phone"}, surrounding_products_ids=hers, store_id="1001")
    assert card_of(again)["recipe-id"] == her_card["recipe-id"] and again.headers["X-Degraded"] == "stale"
    # Not bob's choice of products she never asked for: it may be anything her new diet leaves out.
    not_hers = get_card(client, hdrs=alice, surrounding_products_ids=other, store_id="1001")
    assert not_hers.status_code == 200 and not_hers.get_data() == b"" and not_hers.headers["X-Degraded"] == "upstream"
    anyone = headers(user=f"stale-carol-{uuid.uuid4().hex[:8]}", token=NO_PERSONALIZATION)
    anyones = get_card(client, hdrs=anyone, surrounding_products_ids=other, store_id="1001")
    assert card_of(anyones)["recipe-id"] == drawn["recipe-id"] and anyones.headers["X-Degraded"] == "stale"


def test_callers_no_supplier_vouches_for_cannot_take_the_customers_places(app_config):
    """Anyone may ask for fragments without a supplier-token, or with a made-up one (the specification only logs
    it): such requests have a share of their own of the worker's places. With that share taken, they are shed (the
    fragment from what is cached, here nothing: empty) while a customer's server, whose token the upstream knows,
    is served whole."""
    app = create_app(app_config)
    app.extensions[UNVOUCHED_KEY].limit = 0  # the share taken, by a flood
    client = app.test_client()
    customer = get_card(client, recipe_id="1", store_id="1001")
    assert card_of(customer)["recipe-id"] == "1" and "X-Degraded" not in customer.headers
    for token in (None, "no-such-token"):
        anyone = get_card(client, hdrs=headers(token=token), recipe_id="1", store_id="1001")
        assert anyone.status_code == 200 and anyone.headers["X-Degraded"] == "shed"
        assert anyone.get_data() == b""


def test_made_up_tokens_are_looked_up_few_at_a_time_and_a_customers_always(app_config, monkeypatch):
    """Anyone may send a fresh made-up supplier-token with each request: the lookups of tokens never seen valid are
    few at once per worker (prerender/gateway/suppliers.py, `FirstLookups`), past which the request goes on without
    a supplier, its token unsent. A customer's token, known once, keeps its last good copy and is always looked up."""
    app = create_app(app_config)
    calls = record_upstream_calls(app, monkeypatch)
    client = app.test_client()
    assert card_of(get_card(client, recipe_id="1", store_id="1001"))["recipe-id"] == "1"  # the customer's token known
    suppliers = app.extensions["prerender.upstream"].suppliers
    suppliers.first_lookups.limit = 0  # every place taken by a flood of made-up tokens
    suppliers.cache.delete(cache_key("supplier", RETAILER))  # its fresh entry gone: only its last good copy left
    calls.clear()

    made_up = get_card(client, hdrs=headers(token=f"made-up-{uuid.uuid4().hex}"), recipe_id="1", store_id="1001")
    assert made_up.status_code == 200 and not [call for call in calls if call[1].endswith("/suppliers/me")]
    customer = get_card(client, recipe_id="1", store_id="1001")
    assert card_of(customer).find(class_="svc-recipe-card-cta") is not None  # its supplier's features
    assert [call for call in calls if call[1].endswith("/suppliers/me")], "the customer's token was looked up"


def ctx_identity(app):
    """The upstream identity of the default test headers (the recipe cache key depends on its supplier)."""
    with app.test_request_context("/v1/recipe-card", headers=headers()):
        app.preprocess_request()
        return g.ctx.upstream


def test_a_lone_surrogate_in_an_upstream_text_is_shown_as_a_replacement_character(app_config, coreapi_url, proxy):
    """JSON may escape half a UTF-16 pair (`"\\ud800"`). Decoded as is, that text has no UTF-8 form, and a
    recipe's title holding one made the card (and a catalog page of it) a 500. It reads as U+FFFD, as a
    browser decodes it; the rest of the card is there."""

    def with_a_lone_surrogate_in_titles(value):
        if isinstance(value, dict):
            return {key: marked(key, item) for key, item in value.items()}
        if isinstance(value, list):
            return [with_a_lone_surrogate_in_titles(item) for item in value]
        return value

    def marked(key, item):
        return item + "\ud800" if key == "title" and isinstance(item, str) else with_a_lone_surrogate_in_titles(item)

    def recipe_with_a_lone_surrogate():
        answer = requests.get(
            f"{coreapi_url}{flask_request.path}",
            params=flask_request.args,
            headers={k: v for k, v in flask_request.headers if k.lower() not in ("host", "content-length")},
            timeout=10,
        )
        body = json.dumps(with_a_lone_surrogate_in_titles(answer.json()))  # ASCII: the surrogate as `\ud800`
        assert "\\ud800" in body
        return Response(body, status=answer.status_code, mimetype="application/json")

    proxy.faults["/api/v1/recipes/1"] = recipe_with_a_lone_surrogate
    client = create_app({**app_config, "UPSTREAM_URL": proxy.url}).test_client()
    card = card_of(get_card(client, recipe_id="1", store_id="1001"))
    assert proxy.failed, "the recipe was not asked through the fault"
    title = card.find(class_="svc-recipe-card__title-text").get_text()
    assert title.endswith("\ufffd") and len(title) > 1
    assert card.find(class_="svc-recipe-card__time") is not None and card.find(class_="svc-recipe-card__footer")


def test_unknown_ids_and_tokens_keep_no_day_long_copy(app_config, redis_namespace):
    """A recipe or supplier the upstream does not know is cached for its short TTL only: its stale copy (kept a
    day, for outages) would let anyone fill Redis with made-up ids, and would change nothing during an outage."""
    app = create_app({**app_config, **redis_namespace.cache_config()})
    client = app.test_client()
    assert card_of(get_card(client, recipe_id="1"))["recipe-id"] == "1"
    known = set(redis_namespace.keys())
    assert [key for key in known if b":stale:recipe-summary:" in key], "a recipe found keeps its copy"
    assert [key for key in known if b":stale:supplier:" in key], "a supplier found keeps its copy"

    for unknown in ("999999", "999998"):
        assert get_card(client, recipe_id=unknown).get_data() == b""
    client.get("/v1/recipe-card?recipe_id=999997", headers=headers(token="no-such-token"))
    added = set(redis_namespace.keys()) - known
    assert [key for key in added if b":recipe-summary:" in key], "the unknown recipes were not cached"
    assert [key for key in added if b":supplier:" in key], "the unknown token was not cached"
    assert not [key for key in added if b":stale:" in key], sorted(added)


def test_a_caller_without_a_known_supplier_keeps_no_day_long_copy(app_config, redis_namespace):
    """Without a supplier-token (or with an unknown one) anyone may call, naming any shopper and any product: a
    catalog page per made-up user, or a suggestion per made-up product id, would each keep a key a day. The
    customer's server, with its token, keeps them for its outages."""
    client = create_app({**app_config, **redis_namespace.cache_config()}).test_client()
    before = set(redis_namespace.keys())

    def stale_keys() -> set[bytes]:
        added = set(redis_namespace.keys()) - before
        return {key for key in added if b":stale:catalog-page:" in key or b":stale-suggestion:" in key}

    def ask(token: str | None, user: str, product: str) -> None:
        hdrs = headers(user=user, token=token)
        assert client.get("/v2/catalog/list", headers=hdrs).status_code == 200
        suggested = get_card(
            client, hdrs=hdrs, surrounding_products_ids='["100001","100002"]', current_products_ids=f'["{product}"]'
        )
        assert suggested.status_code == 200 and suggested.get_data(), "a card was suggested"

    for anyone in range(3):
        ask(None, f"made-up-{anyone}", f"made-up-product-{anyone}")
        ask("no-such-token", f"made-up-again-{anyone}", f"made-up-again-product-{anyone}")
    assert stale_keys() == set()
    ask(RETAILER, "a-shopper", "100003")
    kept = stale_keys()
    assert [key for key in kept if b":stale:catalog-page:" in key] and [key for key in kept if b"suggestion" in key]


@pytest.mark.parametrize("language", ["fr", "en"])
def test_each_fragment_says_its_language(client, language):
    """A French card inserted in an English page (or the reverse) is read aloud in its own language: the card,
    the drawer's content and the publisher's button carry `lang`, as the planner and catalog fragments do."""
    hdrs = headers(language=language)
    card = card_of(get_card(client, hdrs=hdrs, recipe_id="1", store_id="1001"))
    assert card["lang"] == language
    details = client.get("/v1/recipe-details", query_string={"recipe_id": "1", "store_id": "1001"}, headers=hdrs)
    assert details.status_code == 200
    root = BeautifulSoup(details.get_data(as_text=True), "html5lib").find("svc-recipe-details")
    assert root["lang"] == language


def test_a_recipe_unpublished_before_an_outage_is_not_shown_during_it(app_config, proxy):
    """The last good copy of a recipe goes when the upstream says it no longer knows it: an outage after that
    gives the empty card, never the recipe as it was before it was unpublished."""
    app = create_app({**app_config, "UPSTREAM_URL": proxy.url, "NEAR_CACHE_SECONDS": 0})
    client = app.test_client()
    gateway = app.extensions["prerender.upstream"]
    fresh_key = gateway.recipes.key(ctx_identity(app), "3", "1001", None, summary=True)

    assert card_of(get_card(client, recipe_id="3", store_id="1001"))["recipe-id"] == "3"
    with app.app_context():
        gateway.recipes.cache.delete(fresh_key)
    proxy.faults["/api/v1/recipes/3"] = status(404)  # unpublished
    assert get_card(client, recipe_id="3", store_id="1001").get_data() == b""
    with app.app_context():
        gateway.recipes.cache.delete(fresh_key)
    proxy.faults["/api/v1/recipes/3"] = status(503)  # then the outage
    during = get_card(client, recipe_id="3", store_id="1001")
    assert during.status_code == 200 and during.get_data() == b""
    assert during.headers["X-Degraded"] == "upstream"


def test_a_token_revoked_before_an_outage_is_not_accepted_during_it(app_config, proxy):
    """As for a recipe: the last good copy of a supplier goes when the upstream refuses its token, so an outage
    after that does not bring the revoked supplier back (its prices, features, credentials)."""
    app = create_app({**app_config, "UPSTREAM_URL": proxy.url, "NEAR_CACHE_SECONDS": 0})
    client = app.test_client()
    gateway = app.extensions["prerender.upstream"]
    assert card_of(get_card(client, recipe_id="3", store_id="1001")).find(class_="svc-recipe-card-cta") is not None
    with app.app_context():
        gateway.suppliers.cache.delete(cache_key("supplier", RETAILER))
    proxy.faults["/api/v1/suppliers/me"] = status(401)  # revoked
    assert get_card(client, recipe_id="3", store_id="1001").status_code == 200
    with app.app_context():
        gateway.suppliers.cache.delete(cache_key("supplier", RETAILER))
    proxy.faults["/api/v1/suppliers/me"] = status(503)  # then the outage
    during = get_card(client, recipe_id="3", store_id="1001")
    assert during.headers["X-Degraded"] == "upstream"  # made without its supplier: the lookup failed
    assert "svc-shopper" not in during.get_data(as_text=True)


def test_a_drawer_made_from_the_last_good_recipe_is_marked_and_not_shared(app_config, proxy):
    """The drawer's content is public when fresh; made from the recipe's last good copy during an outage it says
    so (`X-Degraded: stale`) and no cache keeps it past the outage."""
    app = create_app({**app_config, "UPSTREAM_URL": proxy.url, "NEAR_CACHE_SECONDS": 0})
    client = app.test_client()
    gateway = app.extensions["prerender.upstream"]
    query = {"recipe_id": "3", "store_id": "1001", "guests": "4"}
    fresh = client.get("/v1/recipe-details", query_string=query, headers=headers())
    assert fresh.status_code == 200 and "X-Degraded" not in fresh.headers
    assert "public" in fresh.headers["Cache-Control"]
    with app.app_context():
        gateway.recipes.cache.delete(gateway.recipes.key(ctx_identity(app), "3", "1001", 4))
    proxy.faults["/api/v1/recipes/3"] = status(503)
    stale = client.get("/v1/recipe-details", query_string=query, headers=headers())
    assert stale.status_code == 200 and stale.get_data() == fresh.get_data()
    assert stale.headers["X-Degraded"] == "stale"
    assert stale.headers["Cache-Control"] == "private, no-store" and "ETag" not in stale.headers


def test_a_card_made_with_the_suppliers_last_good_copy_is_marked_stale(app_config, proxy):
    """The supplier is looked up before the view renders: its last good copy, served during an outage, marks
    the card too."""
    app = create_app({**app_config, "UPSTREAM_URL": proxy.url, "NEAR_CACHE_SECONDS": 0})
    client = app.test_client()
    gateway = app.extensions["prerender.upstream"]
    assert "X-Degraded" not in get_card(client, recipe_id="3", store_id="1001").headers
    with app.app_context():
        gateway.suppliers.cache.delete(cache_key("supplier", RETAILER))
    proxy.faults["/api/v1/suppliers/me"] = status(503)
    during = get_card(client, recipe_id="3", store_id="1001")
    assert card_of(during)["recipe-id"] == "3"
    assert during.headers["X-Degraded"] == "stale"


def test_an_unknown_token_is_logged_by_its_fingerprint_and_counted(client, caplog):
    # An on-call with several customers tells whose token broke (its SHA-256's first 8 hex digits, computed from
    # each customer's configured token: docs/operations.md), and never reads the token itself.
    token = f"mistyped-{uuid.uuid4().hex}"
    before = unvouched(client, "invalid")
    caplog.set_level(logging.WARNING, logger="prerender.web.context")
    assert client.get("/v1/recipe-card?recipe_id=5&store_id=1001", headers=headers(token=token)).status_code == 200
    fingerprint = hashlib.sha256(token.encode()).hexdigest()[:8]
    lines = [r.getMessage() for r in caplog.records if "invalid supplier-token" in r.getMessage()]
    assert lines == [f"invalid supplier-token sha256:{fingerprint} on /v1/recipe-card"]
    assert token not in caplog.text
    assert unvouched(client, "invalid") == before + 1


def unvouched(client, reason: str) -> float:
    """prerender_unvouched_requests_total{reason} as /metrics says it."""
    text = client.get("/metrics").get_data(as_text=True)
    found = re.search(rf'^prerender_unvouched_requests_total\{{reason="{reason}"\}} (\S+)$', text, re.MULTILINE)
    return float(found[1]) if found else 0.0
