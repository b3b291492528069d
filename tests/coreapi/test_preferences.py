"""Preferences: what a shopper can choose from, its stored preferences (per supplier and identity,
personalization on only), and ``preferences=apply`` on the recipe list, the suggestions and the menus.

What a preference keeps is computed from the seed JSON (``seed``), never through coreapi's own code.
"""

from __future__ import annotations

import threading
import unicodedata
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from coreapi.extensions import db
from coreapi.models import Ingredient, Preferences
from coreapi.services import menus
from coreapi.services import preferences as preferences_service

from .test_service_key import as_service, supplier_id
from .test_suggestions import context

PATH = "/api/v1/preferences"
OPTIONS = "/api/v1/preferences/options"
PROBLEM = "application/problem+json"
RETAILER_TOKEN = "demo-retailer-token"
NOPERS_TOKEN = "demo-nopers-token"  # personalization off
PUBLISHER_TOKEN = "demo-publisher-token"
DEFAULTS = {
    "diets": [],
    "avoided_ingredients": [],
    "missing_equipment": [],
    "guests": None,
    "enabled": True,
    "updated_at": None,
}
DISABLED = "Personalization is disabled for this supplier."

Recipe = dict[str, Any]


def shopper(identity: str, token: str = RETAILER_TOKEN, kind: str = "user_id") -> dict[str, str]:
    return {"Authorization": f"{kind} {identity}", "Supplier-Token": token}


@pytest.fixture
def user(user_id: str) -> dict[str, str]:
    return shopper(user_id)


def put(client: FlaskClient, headers: dict[str, str], body: Any) -> dict[str, Any]:
    response = client.put(PATH, json=body, headers=headers)
    assert response.status_code == 200, response.json
    return response.json


def stored(app: Flask, supplier: str, identity: str, kind: str = "user_id") -> Preferences | None:
    with app.app_context():
        return db.session.scalars(
            select(Preferences).where(
                Preferences.supplier_id == int(supplier),
                Preferences.identity_kind == kind,
                Preferences.identity_id == identity,
            )
        ).one_or_none()


def store_directly(app: Flask, supplier: str, identity: str, **values: Any) -> None:
    """Preferences stored without the API (which refuses them where personalization is off)."""
    with app.app_context():
        db.session.add(
            Preferences(
                supplier_id=int(supplier),
                identity_kind="user_id",
                identity_id=identity,
                diets=values.get("diets", []),
                avoided_ingredients=values.get("avoided_ingredients", []),
                missing_equipment=values.get("missing_equipment", []),
                guests=values.get("guests"),
            )
        )
        db.session.commit()


# --- the options -----------------------------------------------------------------------------


def plain(value: str) -> str:
    """Lower-cased and accent-free, as the options are sorted."""
    decomposed = unicodedata.normalize("NFKD", value.casefold().replace("œ", "oe").replace("æ", "ae"))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@pytest.mark.parametrize("language", ["fr", "en"])
def test_the_options_are_the_catalog_s_choices(client: FlaskClient, seed: Any, language: str) -> None:
    """A catalog read: no header needed, names localised."""

    def name(row: dict[str, Any]) -> str:
        return str(row["name_en"] if language == "en" else row["name"])

    response = client.get(OPTIONS, headers={"Language-Id": language})
    assert response.status_code == 200
    body = response.json
    assert set(body) == {"diets", "ingredients", "equipment", "guests"}
    assert body["diets"] == [{"id": c["id"], "name": name(c)} for c in seed.categories if c["diet"]]
    assert [d["id"] for d in body["diets"]] == ["vegetarien", "sans-gluten"]
    assert body["equipment"] == [{"id": e["id"], "name": name(e)} for e in seed.equipment]
    used = {item["id"] for recipe in seed.recipes.values() for item in recipe["ingredients"]}
    expected = sorted(
        ({"id": i, "name": name(seed.ingredients[i])} for i in used), key=lambda o: (plain(o["name"]), o["id"])
    )
    assert body["ingredients"] == expected
    assert body["guests"] == {"min": 1, "max": 12}


def test_the_options_read_the_same_for_any_caller(client: FlaskClient, user: dict[str, str]) -> None:
    anonymous = client.get(OPTIONS)
    assert client.get(OPTIONS, headers=user).json == anonymous.json
    assert client.get(OPTIONS, headers=shopper("x", NOPERS_TOKEN)).json == anonymous.json
    unknown = client.get(OPTIONS, headers={"Supplier-Token": "nope"})
    assert unknown.status_code == 401 and unknown.mimetype == PROBLEM


def test_the_options_list_only_the_ingredients_some_recipe_uses(empty_app: Flask) -> None:
    assert empty_app.test_cli_runner().invoke(args=["init-db"]).exit_code == 0
    with empty_app.app_context():
        db.session.add(Ingredient(id="zz-unused", name="Ingrédient inutilisé", unit="g"))
        db.session.commit()
    ids = [option["id"] for option in empty_app.test_client().get(OPTIONS).json["ingredients"]]
    assert "zz-unused" not in ids and ids


# --- headers ---------------------------------------------------------------------------------

ROUTES = [("get", None), ("put", {"diets": ["vegetarien"]}), ("delete", None)]


def call(client: FlaskClient, method: str, body: Any, headers: dict[str, str]) -> Any:
    kwargs: dict[str, Any] = {"headers": headers}
    if body is not None:
        kwargs["json"] = body
    return getattr(client, method)(PATH, **kwargs)


@pytest.mark.parametrize(("method", "body"), ROUTES)
def test_every_route_needs_a_known_supplier(client: FlaskClient, method: str, body: Any) -> None:
    for headers in ({"Authorization": "user_id u-prefs"}, {}):
        response = call(client, method, body, headers)
        assert response.status_code == 401 and response.mimetype == PROBLEM
        assert response.json["detail"] == "This route needs a Supplier-Token header."
    unknown = call(client, method, body, {"Authorization": "user_id u-prefs", "Supplier-Token": "nope"})
    assert unknown.status_code == 401
    assert unknown.json["detail"] == "Unknown Supplier-Token."


@pytest.mark.parametrize(("method", "body"), ROUTES)
def test_every_route_needs_an_identity(client: FlaskClient, method: str, body: Any) -> None:
    response = call(client, method, body, {"Supplier-Token": RETAILER_TOKEN})
    assert response.status_code == 401 and response.mimetype == PROBLEM
    assert "Authorization" in response.json["detail"]
    assert response.headers["WWW-Authenticate"] == "user_id, authless_id"


def test_headers_are_checked_before_the_body(client: FlaskClient) -> None:
    bad = {"diets": ["nope"], "guests": 0}
    assert client.put(PATH, json=bad).status_code == 401
    assert client.put(PATH, json=bad, headers={"Supplier-Token": RETAILER_TOKEN}).status_code == 401
    headers = {**shopper("u-order"), "Idempotency-Key": "has space"}
    response = client.put(PATH, json=bad, headers=headers)
    assert response.status_code == 400
    assert set(response.json["errors"]) == {"headers"}


def test_a_malformed_authorization_is_400(client: FlaskClient) -> None:
    response = client.get(PATH, headers={"Authorization": "bearer x", "Supplier-Token": RETAILER_TOKEN})
    assert response.status_code == 400
    assert "Authorization" in response.json["errors"]["headers"]


# --- storing them ----------------------------------------------------------------------------


def test_a_shopper_without_preferences_reads_the_defaults(client: FlaskClient, user: dict[str, str]) -> None:
    response = client.get(PATH, headers=user)
    assert response.status_code == 200
    assert response.json == DEFAULTS


@pytest.mark.parametrize("kind", ["user_id", "authless_id"])
def test_put_stores_and_get_reads_them(client: FlaskClient, kind: str) -> None:
    headers = shopper(f"prefs-{uuid.uuid4().hex}", kind=kind)
    body = {
        "diets": ["sans-gluten", "vegetarien"],
        "avoided_ingredients": ["ail", "oignon"],
        "missing_equipment": ["mixeur"],
        "guests": 6,
    }
    answer = put(client, headers, body)
    assert {key: answer[key] for key in body} == body
    assert answer["enabled"] is True
    assert answer["updated_at"].endswith("+00:00")
    assert client.get(PATH, headers=headers).json == answer


def test_put_replaces_everything(client: FlaskClient, user: dict[str, str]) -> None:
    put(client, user, {"diets": ["vegetarien"], "avoided_ingredients": ["ail"], "missing_equipment": ["four"]})
    first = client.get(PATH, headers=user).json
    answer = put(client, user, {"guests": 2})
    assert answer == {**DEFAULTS, "guests": 2, "updated_at": answer["updated_at"]}
    assert answer["updated_at"] >= first["updated_at"]
    assert put(client, user, {}) == {**DEFAULTS, "updated_at": client.get(PATH, headers=user).json["updated_at"]}


def test_duplicates_are_collapsed(client: FlaskClient, user: dict[str, str]) -> None:
    body = {
        "diets": ["vegetarien", "vegetarien"],
        "avoided_ingredients": ["ail"] * 80 + ["oignon", "ail"],
        "missing_equipment": ["four", "cocotte", "four"],
    }
    answer = put(client, user, body)
    assert answer["diets"] == ["vegetarien"]
    assert answer["avoided_ingredients"] == ["ail", "oignon"]
    assert answer["missing_equipment"] == ["four", "cocotte"]


def test_at_most_50_distinct_ids(client: FlaskClient, seed: Any, user: dict[str, str]) -> None:
    ingredients = sorted(seed.ingredients)
    assert put(client, user, {"avoided_ingredients": ingredients[:50]})["avoided_ingredients"] == ingredients[:50]
    response = client.put(PATH, json={"avoided_ingredients": ingredients[:51]}, headers=user)
    assert response.status_code == 400
    assert response.json["errors"] == {"json": {"avoided_ingredients": ["At most 50 distinct ids."]}}


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("diets", ["rapide"], "Not a diet: rapide."),  # a category, not a diet
        ("diets", ["vegetarien", "nope", "ete"], "Not a diet: nope, ete."),
        ("diets", "vegetarien", "Not a valid list."),
        ("diets", None, "Field may not be null."),
        ("avoided_ingredients", ["ail", "no-such-ingredient"], "Unknown ingredient: no-such-ingredient."),
        ("avoided_ingredients", {"ail": True}, "Not a valid list."),
        ("missing_equipment", ["robot"], "Unknown equipment: robot."),  # nothing needs one
        ("missing_equipment", ["Four"], "Unknown equipment: Four."),
        ("guests", 0, None),
        ("guests", 13, None),
        ("guests", "4", None),
        ("guests", 2.5, None),
        ("guests", True, None),
    ],
)
def test_bad_values_are_400_naming_the_field(
    app: Flask, client: FlaskClient, user_id: str, field: str, value: Any, message: str | None
) -> None:
    headers = shopper(user_id)
    response = client.put(PATH, json={field: value}, headers=headers)
    assert response.status_code == 400 and response.mimetype == PROBLEM
    assert list(response.json["errors"]) == ["json"]
    assert list(response.json["errors"]["json"]) == [field]
    if message is not None:
        assert response.json["errors"]["json"][field] == [message]
    assert stored(app, "1", user_id) is None


@pytest.mark.parametrize(("value", "field"), [([1], "diets.0"), ([""], "avoided_ingredients.0")])
def test_ids_are_non_empty_strings(client: FlaskClient, user: dict[str, str], value: Any, field: str) -> None:
    name = field.split(".")[0]
    response = client.put(PATH, json={name: value}, headers=user)
    assert response.status_code == 400
    assert field in response.json["errors"]["json"]


def test_a_body_that_is_not_json_is_400(client: FlaskClient, user: dict[str, str]) -> None:
    response = client.put(PATH, data="{", content_type="application/json", headers=user)
    assert response.status_code == 400 and response.mimetype == PROBLEM


def test_null_guests_and_unknown_fields(client: FlaskClient, user: dict[str, str]) -> None:
    put(client, user, {"guests": 4})
    answer = put(client, user, {"guests": None, "favourite_colour": "blue"})
    assert answer["guests"] is None and "favourite_colour" not in answer


def test_delete_forgets_them_and_is_idempotent(app: Flask, client: FlaskClient, user_id: str) -> None:
    headers = shopper(user_id)
    put(client, headers, {"diets": ["vegetarien"], "guests": 3})
    for _ in range(2):
        response = client.delete(PATH, headers=headers)
        assert response.status_code == 204 and response.data == b""
    assert client.get(PATH, headers=headers).json == DEFAULTS
    assert stored(app, "1", user_id) is None


def test_preferences_are_per_supplier_and_identity(client: FlaskClient, user_id: str) -> None:
    retailer = shopper(user_id)
    put(client, retailer, {"diets": ["vegetarien"], "guests": 2})
    assert client.get(PATH, headers=shopper(user_id, PUBLISHER_TOKEN)).json == DEFAULTS
    assert client.get(PATH, headers=shopper(user_id, kind="authless_id")).json == DEFAULTS
    assert client.get(PATH, headers=shopper(f"{user_id}-other")).json == DEFAULTS

    put(client, shopper(user_id, PUBLISHER_TOKEN), {"missing_equipment": ["four"]})
    assert client.delete(PATH, headers=shopper(user_id, PUBLISHER_TOKEN)).status_code == 204
    assert client.get(PATH, headers=retailer).json["diets"] == ["vegetarien"]


def test_a_service_reaches_the_supplier_s_shopper(client: FlaskClient, seed: Any, user_id: str) -> None:
    authorization = {"Authorization": f"user_id {user_id}"}
    service = as_service(supplier_id(seed, RETAILER_TOKEN), **authorization)
    answer = put(client, service, {"avoided_ingredients": ["ail"]})
    assert client.get(PATH, headers=shopper(user_id)).json == answer


# --- personalization off ---------------------------------------------------------------------


def test_personalization_off_reads_the_defaults_and_refuses_writes(app: Flask, client: FlaskClient, seed: Any) -> None:
    identity = f"nopers-{uuid.uuid4().hex}"
    nopers = supplier_id(seed, NOPERS_TOKEN)
    store_directly(app, nopers, identity, diets=["vegetarien"], guests=5)
    headers = shopper(identity, NOPERS_TOKEN)

    assert client.get(PATH, headers=headers).json == {**DEFAULTS, "enabled": False}
    response = client.put(PATH, json={"diets": ["sans-gluten"], "guests": 2}, headers=headers)
    assert response.status_code == 409 and response.mimetype == PROBLEM
    assert response.json["detail"] == DISABLED
    row = stored(app, nopers, identity)
    assert row is not None and (row.diets, row.guests) == (["vegetarien"], 5)  # nothing stored

    fresh = shopper(f"nopers-{uuid.uuid4().hex}", NOPERS_TOKEN)
    assert client.put(PATH, json={}, headers=fresh).status_code == 409
    with app.app_context():
        count = db.session.scalar(
            select(func.count()).select_from(Preferences).where(Preferences.identity_id == fresh["Authorization"][8:])
        )
    assert count == 0


def test_bad_values_come_before_the_personalization_check(client: FlaskClient) -> None:
    response = client.put(PATH, json={"guests": 0}, headers=shopper("u", NOPERS_TOKEN))
    assert response.status_code == 400


# --- idempotency keys ------------------------------------------------------------------------


def test_put_honors_an_idempotency_key(client: FlaskClient, user: dict[str, str]) -> None:
    keyed = {**user, "Idempotency-Key": f"k-{uuid.uuid4().hex}"}
    first = client.put(PATH, json={"diets": ["vegetarien"]}, headers=keyed)
    assert first.status_code == 200 and "Idempotent-Replayed" not in first.headers
    put(client, user, {"guests": 7})  # another write meanwhile
    again = client.put(PATH, json={"diets": ["vegetarien"]}, headers=keyed)
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json == first.json
    assert client.get(PATH, headers=user).json["guests"] == 7  # not applied twice
    other = client.put(PATH, json={"diets": ["sans-gluten"]}, headers=keyed)
    assert other.status_code == 422
    assert other.json["errors"] == {"headers": {"Idempotency-Key": ["Used for another request."]}}


def test_a_refusal_is_stored_with_its_key(client: FlaskClient) -> None:
    headers = {**shopper(f"nopers-{uuid.uuid4().hex}", NOPERS_TOKEN), "Idempotency-Key": "k-refused"}
    first = client.put(PATH, json={}, headers=headers)
    again = client.put(PATH, json={}, headers=headers)
    assert first.status_code == again.status_code == 409
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.json == first.json


# --- preferences=apply -----------------------------------------------------------------------


def ingredients_of(recipe: Recipe) -> set[str]:
    return {item["id"] for item in recipe["ingredients"]}


def keeping(seed: Any, keeps: Callable[[Recipe], bool]) -> list[str]:
    return sorted((recipe_id for recipe_id, recipe in seed.recipes.items() if keeps(recipe)), key=int)


def listed(client: FlaskClient, headers: dict[str, str], query: str = "") -> list[str]:
    """Every recipe id ``GET /recipes`` lists (all pages)."""
    ids: list[str] = []
    page = 1
    while True:
        response = client.get(f"/api/v1/recipes?per_page=100&page={page}{query}", headers=headers)
        assert response.status_code == 200, response.json
        ids += [summary["id"] for summary in response.json["data"]]
        if page * 100 >= response.json["total"]:
            return ids
        page += 1


CASES: list[tuple[dict[str, Any], Callable[[Recipe], bool]]] = [
    ({"diets": ["vegetarien"]}, lambda r: "vegetarien" in r["categories"]),
    ({"diets": ["vegetarien", "sans-gluten"]}, lambda r: {"vegetarien", "sans-gluten"} <= set(r["categories"])),
    ({"avoided_ingredients": ["lardons", "oeuf"]}, lambda r: not {"lardons", "oeuf"} & ingredients_of(r)),
    ({"missing_equipment": ["four"]}, lambda r: "four" not in r["equipment"]),
    (
        {"diets": ["sans-gluten"], "avoided_ingredients": ["tomate"], "missing_equipment": ["mixeur", "cocotte"]},
        lambda r: (
            "sans-gluten" in r["categories"]
            and "tomate" not in ingredients_of(r)
            and not {"mixeur", "cocotte"} & set(r["equipment"])
        ),
    ),
]


@pytest.mark.parametrize(("preferences", "keeps"), CASES)
def test_apply_filters_the_recipe_list(
    client: FlaskClient, seed: Any, user: dict[str, str], preferences: dict[str, Any], keeps: Callable[[Recipe], bool]
) -> None:
    put(client, user, {**preferences, "guests": 4})
    everything = sorted(seed.recipes, key=int)
    expected = keeping(seed, keeps)
    assert expected and expected != everything  # the case really changes the list
    assert listed(client, user, "&preferences=apply") == expected
    assert listed(client, user) == everything  # not without the parameter


def test_the_named_cases_are_left_out(client: FlaskClient, seed: Any, user: dict[str, str]) -> None:
    """A meat recipe for a vegetarian; recipes using an avoided ingredient; oven recipes without one."""
    quiche = next(i for i, r in seed.recipes.items() if r["external_id"] == "pub-quiche-lorraine")
    roast = next(i for i, r in seed.recipes.items() if r["external_id"] == "pub-poulet-roti")
    carbonara = next(i for i, r in seed.recipes.items() if r["external_id"] == "pub-spaghetti-carbonara")
    assert {quiche, roast, carbonara} <= set(listed(client, user, "&preferences=apply"))
    put(client, user, {"diets": ["vegetarien"]})
    assert quiche not in listed(client, user, "&preferences=apply")
    put(client, user, {"avoided_ingredients": ["lardons"]})
    assert not {quiche, carbonara} & set(listed(client, user, "&preferences=apply"))
    put(client, user, {"missing_equipment": ["four"]})
    kept = set(listed(client, user, "&preferences=apply"))
    assert not {quiche, roast} & kept and carbonara in kept


def test_apply_adds_to_the_other_filters(client: FlaskClient, seed: Any, user: dict[str, str]) -> None:
    put(client, user, {"missing_equipment": ["four"]})
    query = "&preferences=apply&store_id=1002&type=dessert"
    expected = keeping(
        seed, lambda r: r["type"] == "dessert" and "four" not in r["equipment"] and seed.is_complete_at("1002", r["id"])
    )
    assert listed(client, user, query) == expected


def test_without_a_shopper_apply_changes_nothing(app: Flask, client: FlaskClient, seed: Any, user_id: str) -> None:
    everything = sorted(seed.recipes, key=int)
    put(client, shopper(user_id), {"diets": ["vegetarien"]})
    apply = "&preferences=apply"
    assert listed(client, {}, apply) == everything
    assert listed(client, {"Authorization": f"user_id {user_id}"}, apply) == everything  # no supplier
    assert listed(client, {"Supplier-Token": RETAILER_TOKEN}, apply) == everything  # no identity
    assert listed(client, shopper(user_id, PUBLISHER_TOKEN), apply) == everything  # another supplier's shopper
    assert listed(client, shopper(user_id, kind="authless_id"), apply) == everything
    only_guests = shopper(f"{user_id}-guests")
    put(client, only_guests, {"guests": 3})
    assert listed(client, only_guests, apply) == everything
    # Personalization off: whatever is stored is not applied.
    identity = f"nopers-{uuid.uuid4().hex}"
    store_directly(app, supplier_id(seed, NOPERS_TOKEN), identity, diets=["vegetarien"])
    assert listed(client, shopper(identity, NOPERS_TOKEN), apply) == everything


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/api/v1/recipes"),
        ("post", "/api/v1/suggestions"),
        ("get", "/api/v1/menus/current"),
        ("get", "/api/v1/menus/current/suggestions"),
    ],
)
@pytest.mark.parametrize("value", ["yes", "", "APPLY", "true"])
def test_any_other_value_of_preferences_is_400(client: FlaskClient, method: str, path: str, value: str) -> None:
    kwargs: dict[str, Any] = {"headers": shopper("u-value")}
    if method == "post":
        kwargs["json"] = {"contexts": []}
    response = getattr(client, method)(f"{path}?preferences={value}", **kwargs)
    assert response.status_code == 400 and response.mimetype == PROBLEM
    assert list(response.json["errors"]["query"]) == ["preferences"]


def test_apply_filters_the_product_suggestions(client: FlaskClient, seed: Any, user: dict[str, str]) -> None:
    vegetarian = set(keeping(seed, lambda r: "vegetarien" in r["categories"]))
    products = sorted(seed.products, key=int)[:100]
    body = {"contexts": [context(str(n), [p]) for n, p in enumerate(products)], "store_id": "1001"}
    before = client.post("/api/v1/suggestions", json=body, headers=user).json["data"]
    put(client, user, {"diets": ["vegetarien"]})
    without = client.post("/api/v1/suggestions", json=body, headers=user).json["data"]
    applied = client.post("/api/v1/suggestions?preferences=apply", json=body, headers=user).json["data"]
    assert without == before
    assert {s["recipe_id"] for s in without} - {None} - vegetarian  # some were not vegetarian
    assert {s["recipe_id"] for s in applied} - {None} <= vegetarian
    for product_id, suggestion in zip(products, applied, strict=True):
        can = seed.recipes_needing(product_id) & vegetarian
        assert (suggestion["recipe_id"] is None) == (not can)


def test_a_context_whose_recipes_all_need_the_missing_equipment_gets_none(
    client: FlaskClient, seed: Any, user: dict[str, str]
) -> None:
    oven_only = next(
        product_id
        for product_id in sorted(seed.products, key=int)
        if (needing := seed.recipes_needing(product_id))
        and all("four" in seed.recipes[r]["equipment"] for r in needing)
    )
    body = {"contexts": [context("oven", [oven_only])]}
    put(client, user, {"missing_equipment": ["four"]})
    assert client.post("/api/v1/suggestions", json=body, headers=user).json["data"][0]["recipe_id"] is not None
    applied = client.post("/api/v1/suggestions?preferences=apply", json=body, headers=user).json
    assert applied == {"data": [{"key": "oven", "recipe_id": None}]}


def test_apply_filters_the_menu_suggestions(client: FlaskClient, seed: Any, user: dict[str, str]) -> None:
    path = "/api/v1/menus/current/suggestions?store_id=1001&limit=20"
    put(client, user, {"diets": ["vegetarien"], "missing_equipment": ["four"]})
    allowed = set(keeping(seed, lambda r: "vegetarien" in r["categories"] and "four" not in r["equipment"]))
    without = [r["id"] for r in client.get(path, headers=user).json["data"]]
    applied = client.get(f"{path}&preferences=apply", headers=user).json["data"]
    assert set(without) - allowed
    assert [r["id"] for r in applied] and {r["id"] for r in applied} <= allowed
    assert all("four" not in r["equipment"] and "vegetarien" in r["categories"] for r in applied)


def test_apply_fills_a_new_menu_with_what_the_preferences_keep(client: FlaskClient, seed: Any, user_id: str) -> None:
    preferences = {"diets": ["vegetarien"], "missing_equipment": ["four"]}
    allowed = set(keeping(seed, lambda r: "vegetarien" in r["categories"] and "four" not in r["equipment"]))
    allowed_mains = {r for r in allowed if seed.recipes[r]["type"] == "main-dish"}
    assert len(allowed_mains) < 6  # so a menu of 6 suggestions without them must differ

    applying, ignoring = shopper(f"{user_id}-apply"), shopper(f"{user_id}-ignore")
    for headers in (applying, ignoring):
        put(client, headers, preferences)
    suggested = client.get("/api/v1/menus/current/suggestions?store_id=1001&preferences=apply", headers=applying)
    menu = client.get("/api/v1/menus/current?store_id=1001&preferences=apply", headers=applying).json
    assert [r["id"] for r in menu["recipes"]] == [r["id"] for r in suggested.json["data"]]
    assert menu["recipes"] and {r["id"] for r in menu["recipes"]} <= allowed
    plain_menu = client.get("/api/v1/menus/current?store_id=1001", headers=ignoring).json
    assert len(plain_menu["recipes"]) == 6 and {r["id"] for r in plain_menu["recipes"]} - allowed
    # Only at creation: reading the existing menu with the parameter changes nothing.
    assert client.get("/api/v1/menus/current?preferences=apply", headers=ignoring).json == plain_menu


def test_apply_makes_a_new_menu_for_the_preferred_guests(
    app: Flask, client: FlaskClient, seed: Any, user_id: str
) -> None:
    def new_menu(identity: str, query: str, token: str = RETAILER_TOKEN) -> dict[str, Any]:
        headers = shopper(identity, token)
        if token == RETAILER_TOKEN:
            put(client, headers, {"guests": 2})
        else:
            store_directly(app, supplier_id(seed, token), identity, guests=2)
        answer = client.get(f"/api/v1/menus/current?store_id=1001&{query}", headers=headers)
        assert answer.status_code == 200, answer.json
        menu: dict[str, Any] = answer.json
        return menu

    # From the suggestions or from scratch, every recipe for those guests.
    suggested = new_menu(f"{user_id}-suggested", "preferences=apply")
    assert suggested["guests"] == 2 and suggested["recipes"]
    assert all(recipe["guests"] == 2 for recipe in suggested["recipes"])
    assert new_menu(f"{user_id}-scratch", "from=scratch&preferences=apply")["guests"] == 2
    # The request's guests win; without the parameter, or with personalization off, the default.
    assert new_menu(f"{user_id}-asked", "preferences=apply&guests=6")["guests"] == 6
    assert new_menu(f"{user_id}-plain", "from=scratch")["guests"] == menus.DEFAULT_GUESTS
    assert new_menu(f"{user_id}-off", "from=scratch&preferences=apply", NOPERS_TOKEN)["guests"] == menus.DEFAULT_GUESTS
    # Only at creation: a preference changed later leaves the menu's guests as they are.
    put(client, shopper(f"{user_id}-suggested"), {"guests": 5})
    again = client.get("/api/v1/menus/current?preferences=apply", headers=shopper(f"{user_id}-suggested")).json
    assert again["guests"] == 2


def test_a_first_login_carries_the_visitors_preferences_to_a_user_without_any(
    app: Flask, client: FlaskClient, seed: Any
) -> None:
    """`merge-authless-basket` at login: a user who stored no preferences takes the visitor's (the visitor has none
    afterwards); a user who stored some keeps its own, and the visitor's stay as they were."""
    identity = uuid.uuid4().hex
    chosen = {"diets": ["vegetarien"], "avoided_ingredients": ["ail"], "missing_equipment": ["four"], "guests": 2}

    def merge(user: str, visitor: str) -> None:
        response = client.get(
            f"/api/v1/basket/merge-authless-basket?authless_id={visitor}&store_id=1001", headers=shopper(user)
        )
        assert response.status_code == 200, response.json

    def read(headers: dict[str, str]) -> dict[str, Any]:
        answer: dict[str, Any] = client.get(PATH, headers=headers).json
        answer.pop("updated_at")
        return answer

    put(client, shopper(f"v1-{identity}", kind="authless_id"), chosen)
    merge(f"u1-{identity}", f"v1-{identity}")
    assert read(shopper(f"u1-{identity}")) == {**chosen, "enabled": True}
    assert client.get(PATH, headers=shopper(f"v1-{identity}", kind="authless_id")).json == DEFAULTS

    put(client, shopper(f"u2-{identity}"), {"guests": 5})
    put(client, shopper(f"v2-{identity}", kind="authless_id"), chosen)
    merge(f"u2-{identity}", f"v2-{identity}")
    assert read(shopper(f"u2-{identity}"))["guests"] == 5 and read(shopper(f"u2-{identity}"))["diets"] == []
    assert read(shopper(f"v2-{identity}", kind="authless_id")) == {**chosen, "enabled": True}

    # Under a supplier with personalization off, nothing moves (its preferences are not in use).
    nopers = supplier_id(seed, NOPERS_TOKEN)
    with app.app_context():
        db.session.add(
            Preferences(
                supplier_id=int(nopers),
                identity_kind="authless_id",
                identity_id=f"v3-{identity}",
                guests=3,
                diets=[],
                avoided_ingredients=[],
                missing_equipment=[],
            )
        )
        db.session.commit()
    response = client.get(
        f"/api/v1/basket/merge-authless-basket?authless_id=v3-{identity}&store_id=1001",
        headers=shopper(f"u3-{identity}", NOPERS_TOKEN),
    )
    assert response.status_code == 200, response.json
    assert stored(app, nopers, f"u3-{identity}") is None
    assert stored(app, nopers, f"v3-{identity}", kind="authless_id") is not None


def test_a_users_put_committed_during_the_login_merge_wins_and_the_merge_still_succeeds(
    app: Flask, client: FlaskClient, backend: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The user's own `PUT /preferences` (another request) commits after the merge first read the preferences and
    before it copies the visitor's: the user's stay, the visitor's too, and the login's merge answers 200 (it
    failed with the table's key on PostgreSQL)."""
    if backend.name != "postgresql":
        pytest.skip("SQLite serialises writers: the PUT cannot commit inside the merge's transaction")
    identity = uuid.uuid4().hex
    user, visitor = f"u-{identity}", f"v-{identity}"
    put(client, shopper(visitor, kind="authless_id"), {"guests": 2})
    read_stored = preferences_service._stored
    puts: list[int] = []

    def a_put_commits_meanwhile(session: Any, owner: Any) -> Any:
        found = read_stored(session, owner)
        if not puts:  # at the merge's first read of the preferences table
            other = app.test_client()
            thread = threading.Thread(
                target=lambda: puts.append(other.put(PATH, json={"guests": 5}, headers=shopper(user)).status_code)
            )
            thread.start()
            thread.join(20)
        return found

    monkeypatch.setattr(preferences_service, "_stored", a_put_commits_meanwhile)
    merged = client.get(
        f"/api/v1/basket/merge-authless-basket?authless_id={visitor}&store_id=1001", headers=shopper(user)
    )
    assert puts == [200]
    assert merged.status_code == 200, merged.json
    monkeypatch.undo()
    assert client.get(PATH, headers=shopper(user)).json["guests"] == 5
    assert client.get(PATH, headers=shopper(visitor, kind="authless_id")).json["guests"] == 2
