"""The shopper's favorite products through prerender (GET and PUT /{v}/favorite-items), against the real coreapi:
validation, storage per shopper, who may call, and what they change upstream: a favorite candidate of an
ingredient is the product POST /basket/recipes adds. Also the recipes' tags, loaded into prerender's Recipe."""

from __future__ import annotations

import itertools
import json
import uuid

import pytest
from bs4 import BeautifulSoup

from prerender import create_app
from prerender.gateway import CallerIdentity, get_upstream
from tests.conftest import closed_port
from tests.problems import names

from .conftest import browser_headers, headers

_shoppers = itertools.count()
VERSIONS = ("v1", "v2")
PROBLEM = "application/problem+json"
# Recipe 5 (blanquette de veau): several of its ingredients have more than one candidate product at 1001.
RECIPE = "5"


@pytest.fixture
def user_id() -> str:
    """A connected user of this test only: favorites never leak between tests."""
    return f"favorites-user-{next(_shoppers)}-{uuid.uuid4().hex[:6]}"


@pytest.fixture
def user(client, user_id: str) -> dict[str, str]:
    """That user's browser: the headers with the credential the bootstrap gave the page."""
    return browser_headers(client, user=user_id)


def put(client, hdrs: dict[str, str], product_ids, version: str = "v1"):
    return client.put(f"/{version}/favorite-items", json={"product_ids": product_ids}, headers=hdrs)


def stored(client, hdrs: dict[str, str], version: str = "v1") -> list[str]:
    answer = client.get(f"/{version}/favorite-items", headers=hdrs)
    assert answer.status_code == 200, answer.get_data(as_text=True)
    assert answer.headers["Cache-Control"] == "no-store"
    product_ids: list[str] = answer.get_json()["product_ids"]
    return product_ids


def problem(answer) -> dict:
    assert answer.mimetype == PROBLEM, answer.get_data(as_text=True)
    return answer.get_json()


def drawer_data(client, recipe_id: str = RECIPE, store_id: str = "1001") -> dict:
    """The recipe's JSON in the drawer (the same for every shopper): its ingredients, candidates, chosen ones."""
    html = client.get(
        "/v1/recipe-details",
        query_string={"recipe_id": recipe_id, "guests": 4, "store_id": store_id},
        headers=headers(),
    ).get_data(as_text=True)
    return json.loads(BeautifulSoup(html, "html5lib").select_one("script.svc-recipe-details__data").string)


# --- the routes -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
def test_put_then_get_from_the_browser(client, user, version):
    assert stored(client, user, version) == []
    answer = put(client, user, ["100042", "100018", "100042", "100198"], version)
    assert answer.status_code == 200, answer.get_data(as_text=True)
    assert answer.headers["Cache-Control"] == "no-store"
    assert answer.get_json() == {"product_ids": ["100042", "100018", "100198"]}  # duplicates collapsed, in order
    assert stored(client, user, version) == ["100042", "100018", "100198"]
    # Replaced whole; [] forgets them.
    assert put(client, user, ["100041"], version).get_json() == {"product_ids": ["100041"]}
    assert put(client, user, [], version).get_json() == {"product_ids": []}
    assert stored(client, user, version) == []


def test_the_customer_s_server_stores_the_same_list_as_the_browser_reads(client, user, user_id):
    """A customer's server may keep the list in step with its own account pages: the specification's headers."""
    server = headers(user=user_id)
    answer = put(client, server, ["100041", "100199"])
    assert answer.status_code == 200 and answer.headers["Cache-Control"] == "no-store"
    assert stored(client, user) == ["100041", "100199"]
    assert stored(client, server, "v2") == ["100041", "100199"]


def test_ids_the_upstream_does_not_know_are_left_out(client, user):
    assert put(client, user, ["100041", "999999", "not-a-product"]).get_json() == {"product_ids": ["100041"]}


def test_another_shopper_is_not_affected(client, user, user_id):
    put(client, user, ["100041"])
    assert stored(client, browser_headers(client, user=user_id + "-other")) == []
    visitor = browser_headers(client, user=None, authless=f"favorites-visitor-{uuid.uuid4().hex[:8]}")
    assert stored(client, visitor) == []
    assert stored(client, browser_headers(client, user=user_id, token="demo-nopers-token")) == []
    put(client, visitor, ["100199"])
    assert stored(client, visitor) == ["100199"] and stored(client, user) == ["100041"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"product_ids": "100041"}, "product_ids"),
        ({"product_ids": None}, "product_ids"),
        ({"product_ids": {"0": "100041"}}, "product_ids"),
        ({}, "product_ids"),
        ({"product_ids": [str(100000 + n) for n in range(501)]}, "product_ids"),
        ({"product_ids": ["100041", "../x"]}, "product_ids"),
        ({"product_ids": ["100041", ""]}, "product_ids"),
        ({"product_ids": [100041]}, "product_ids"),
        ({"product_ids": ["x" * 65]}, "product_ids"),
        ({"product_ids": [], "colour": "red"}, "colour"),
    ],
)
def test_bad_bodies_are_400_naming_the_field(client, user, body, field):
    put(client, user, ["100041"])
    answer = client.put("/v2/favorite-items", json=body, headers=user)
    assert answer.status_code == 400
    assert names(problem(answer)["errors"]["json"], field)
    assert stored(client, user) == ["100041"]  # nothing changed


def test_500_ids_are_accepted(client, user, upstream):
    known = {str(p["id"]) for page in (1, 2, 3, 4) for p in upstream.get("/products", per_page=100, page=page)["data"]}
    given = [str(100000 + n) for n in range(500)]
    answer = put(client, user, given)
    assert answer.status_code == 200
    assert answer.get_json()["product_ids"] == [key for key in given if key in known]


def test_a_body_that_is_not_json_is_415(client, user):
    answer = client.put("/v1/favorite-items", data="product_ids=1", headers=user)
    assert answer.status_code == 415 and problem(answer)["status"] == 415


def test_a_browser_needs_a_valid_credential(client):
    invalid = {"authorization": "Bearer nope", "language-id": "fr", "session-id": "s"}
    answer = client.get("/v1/favorite-items", headers=invalid)
    assert answer.status_code == 401 and "invalid_token" in answer.headers["WWW-Authenticate"]
    # Neither a credential nor anything of a server's (a page whose SDK has none yet): a 401 naming both, which the
    # SDK reads as "sign in again", not a 400 asking a browser for a server's headers.
    bare = client.get("/v1/favorite-items", headers={"language-id": "fr", "session-id": "s"})
    assert bare.status_code == 401 and problem(bare)["status"] == 401
    assert bare.headers["WWW-Authenticate"] == 'Bearer realm="prerender", SupplierToken realm="prerender"'
    # A server's request missing the identity header is still the guard's 400 naming it.
    server = client.get("/v1/favorite-items", headers={"language-id": "fr", "session-id": "s", "supplier-token": "t"})
    assert server.status_code == 400 and problem(server)["errors"]["headers"]


def test_without_a_known_supplier_there_is_no_shopper(client, user_id):
    unknown = headers(user=user_id, token="not-a-token")
    assert client.get("/v1/favorite-items", headers=unknown).status_code == 403
    answer = put(client, unknown, ["100041"])
    assert answer.status_code == 403 and problem(answer)["status"] == 403


def test_an_upstream_failure_is_a_503_problem(app_config, user_id, monkeypatch):
    app = create_app({**app_config, "UPSTREAM_RETRIES": 0})
    client = app.test_client()
    hdrs = browser_headers(client, user=user_id)
    assert stored(client, hdrs) == []  # the credential's supplier is known (and cached) from here on
    catalog = app.extensions["prerender.upstream"].catalog
    monkeypatch.setattr(catalog.http, "base_url", f"http://127.0.0.1:{closed_port()}")
    for answer in (client.get("/v1/favorite-items", headers=hdrs), put(client, hdrs, ["100041"])):
        assert answer.status_code == 503 and problem(answer)["status"] == 503
        # What failed, not where: neither the upstream's address nor its paths (the log has them, by request id).
        assert problem(answer)["detail"] == "The recipe service is unreachable.", problem(answer)
        assert answer.headers["X-Request-Id"]


# --- what they change -------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
def test_a_favorite_alternative_is_the_product_added_to_the_basket(client, user, version):
    shown = drawer_data(client)
    ingredient = next(i for i in shown["ingredients"] if i["chosen"] and len(i["products"]) >= 2)
    alternative = next(p for p in ingredient["products"] if p["id"] != ingredient["chosen"] and p["available"])
    assert put(client, user, [alternative["id"]], version).status_code == 200

    answer = client.post(
        f"/{version}/basket/recipes", json={"recipe_id": RECIPE, "guests": 4, "store_id": "1001"}, headers=user
    )
    assert answer.status_code == 200, answer.get_data(as_text=True)
    changes = {change["id"]: change["quantity"] for change in answer.get_json()["changes"]}
    assert changes.get(alternative["id"]) == alternative["packages"]
    assert ingredient["chosen"] not in changes
    (entry,) = answer.get_json()["basket"]["recipes"]
    lines = {line["ingredient_id"]: line["product_id"] for line in entry["lines"]}
    assert lines[ingredient["id"]] == alternative["id"]
    # The other ingredients get what the drawer shows, and the drawer (the same for everyone) did not change.
    assert all(lines[i["id"]] == i["chosen"] for i in shown["ingredients"] if i["chosen"] and i is not ingredient)
    assert drawer_data(client) == shown


def test_another_shopper_still_gets_the_first_available_product(client, user, user_id):
    shown = drawer_data(client)
    ingredient = next(i for i in shown["ingredients"] if i["chosen"] and len(i["products"]) >= 2)
    alternative = next(p for p in ingredient["products"] if p["id"] != ingredient["chosen"] and p["available"])
    put(client, user, [alternative["id"]])
    other = browser_headers(client, user=user_id + "-other")
    answer = client.post(
        "/v1/basket/recipes", json={"recipe_id": RECIPE, "guests": 4, "store_id": "1001"}, headers=other
    ).get_json()
    (entry,) = answer["basket"]["recipes"]
    assert {line["ingredient_id"]: line["product_id"] for line in entry["lines"]}[ingredient["id"]] == ingredient[
        "chosen"
    ]


# --- the recipes' tags ------------------------------------------------------------------------------------


def test_a_recipe_carries_its_tags(app, upstream):
    expected = upstream.recipe(RECIPE, store_id="1001")["tags"]
    assert expected and expected[0] == "Plat principal"
    identity = CallerIdentity(
        authorization=None,
        supplier_token=None,
        supplier_id=None,
        language="fr",
        session_id=None,
        profiling=True,
        request_id="tags",
    )
    with app.app_context():
        upstream = get_upstream()
        assert upstream.recipes.by_id(identity, RECIPE, store_id="1001", serves=None).tags == tuple(expected)
        assert upstream.recipes.by_ids(identity, [RECIPE], store_id="1001", serves=None, summary=True)[
            RECIPE
        ].tags == tuple(expected)
