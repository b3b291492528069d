"""flask --app coreapi add-supplier (coreapi/services/supplier_onboarding.py, coreapi/schemas/supplier_definition.py):
a supplier described in JSON is served at once under the token the command prints, and a definition this
deployment cannot take is refused with what is wrong, nothing added. On both backends, on a database of this
module's own (the session's seeded one is shared by every other test)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import text

from coreapi.extensions import db

from .test_baskets import Shopper, ok

ME = "/api/v1/suppliers/me"
ROUTING = {
    "production": {
        "baseUrl": "https://grocer.example/",
        "features": {"planner": "/planner", "catalog": "/idees"},
        "planner": {"current": "/planner/menu"},
        "retailerCart": "/panier",
        "catalog": {"category": "/idees/categorie", "favorites": "/idees/favoris"},
    }
}


@pytest.fixture
def client(own_app: Flask) -> FlaskClient:
    return own_app.test_client()


def add(app: Flask, definition: Any, *options: str, tmp_path: Path | None = None) -> Result:
    """add-supplier with the definition as JSON on the standard input, or in a file when ``tmp_path`` is given."""
    document = definition if isinstance(definition, str) else json.dumps(definition)
    runner = app.test_cli_runner()
    if tmp_path is None:
        return runner.invoke(args=["add-supplier", "-", *options], input=document)
    path = tmp_path / "supplier.json"
    path.write_text(document, encoding="utf-8")
    return runner.invoke(args=["add-supplier", str(path), *options])


def supplier_count(app: Flask) -> int:
    with app.app_context():
        return int(db.session.execute(text("SELECT count(*) FROM suppliers")).scalar_one())


def test_a_retailer_added_from_a_file_is_served_at_once_under_its_printed_token(
    own_app: Flask, client: FlaskClient, tmp_path: Path
) -> None:
    definition = {"id": "41", "name": " Grocer & Co ", "kind": "retailer", "routing": ROUTING}
    result = add(own_app, definition, tmp_path=tmp_path)
    assert result.exit_code == 0, result.output
    message, token = result.stdout.splitlines()
    assert message == "Supplier 41 (Grocer & Co), a retailer, added: its token below."
    assert len(token) >= 40

    me = client.get(ME, headers={"Supplier-Token": token})
    assert me.status_code == 200, me.json
    expected_routing = {"production": {**ROUTING["production"], "baseUrl": "https://grocer.example"}}
    assert me.json == {
        "id": "41",
        "name": "Grocer & Co",
        "kind": "retailer",
        "personalization": True,
        "affiliated_supplier_id": None,
        "routing": expected_routing,
    }
    # Its shoppers shop: a basket of its own, apart from the demo retailer's.
    shopper = f"user_id onboard-{uuid.uuid4().hex[:12]}"
    added = ok(Shopper(client, shopper, supplier_token=token).add("1", 4))
    assert added["basket"]["recipes"], added
    assert client.get("/api/v1/basket?store_id=1001", headers=Shopper(client, shopper).headers).json["recipes"] == []


def test_a_publisher_affiliated_to_a_retailer_from_the_standard_input(own_app: Flask, client: FlaskClient) -> None:
    chosen = f"publisher-{uuid.uuid4().hex}"
    definition = {"id": 42, "name": "Blog", "kind": "publisher", "personalization": False, "affiliated_supplier_id": 1}
    result = add(own_app, definition, "--token", chosen)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == chosen
    me = client.get(ME, headers={"Supplier-Token": chosen}).json
    assert (me["id"], me["kind"], me["personalization"], me["affiliated_supplier_id"], me["routing"]) == (
        "42",
        "publisher",
        False,
        "1",
        {},
    )


BASE = {"id": "77", "name": "Refused", "kind": "retailer"}


@pytest.mark.parametrize(
    ("definition", "reason"),
    [
        ("{not json", "The definition is not JSON"),
        ([BASE], "Invalid input type"),
        ({**BASE, "id": "1"}, "Supplier 1 exists already."),
        ({**BASE, "id": "0"}, "A supplier id is a whole number"),
        ({**BASE, "id": True}, "A supplier id is a whole number"),
        ({**BASE, "id": "7 7"}, "A supplier id is a whole number"),
        ({**BASE, "name": "   "}, "A name is needed."),
        ({**BASE, "kind": "wholesaler"}, "Must be one of: retailer, publisher."),
        ({**BASE, "token": "x" * 30}, "Unknown field."),
        ({**BASE, "affiliated_supplier_id": "1"}, "Only a publisher hands its baskets over to a retailer."),
        ({**BASE, "kind": "publisher", "affiliated_supplier_id": "3"}, "is not a retailer of this deployment"),
        ({**BASE, "kind": "publisher", "affiliated_supplier_id": "999"}, "is not a retailer of this deployment"),
        ({**BASE, "routing": {"production": {"baseUrl": "javascript:alert(1)"}}}, "Not an absolute http(s) URL"),
        ({**BASE, "routing": {"production": {"baseUrl": "https://a.example/?q=1"}}}, "Not an absolute http(s) URL"),
        ({**BASE, "routing": {"production": {"features": {}}}}, "Missing data for required field."),
        ({**BASE, "routing": {"production": {"baseUrl": "https://a.example", "retailerKart": "/c"}}}, "Unknown field"),
        (
            {
                **BASE,
                "routing": {"production": {"baseUrl": "https://a.example", "retailerCart": "https://evil.example"}},
            },
            "Not a path of the supplier's site",
        ),
        (
            {
                **BASE,
                "routing": {"production": {"baseUrl": "https://a.example", "catalog": {"list": "//evil.example"}}},
            },
            "Not a path of the supplier's site",
        ),
        (
            {**BASE, "routing": {"production": {"baseUrl": "https://a.example", "catalog": {"shop": "/shop"}}}},
            "Must be one of: category, list",
        ),
        ({**BASE, "routing": {"Prod!": {"baseUrl": "https://a.example"}}}, "String does not match expected pattern."),
    ],
)
def test_a_definition_this_deployment_cannot_take_is_refused_and_nothing_is_added(
    own_app: Flask, definition: Any, reason: str
) -> None:
    before = supplier_count(own_app)
    result = add(own_app, definition)
    assert result.exit_code != 0 and reason in result.output, result.output
    assert supplier_count(own_app) == before


def test_a_given_token_already_a_suppliers_is_refused(own_app: Flask) -> None:
    before = supplier_count(own_app)
    result = add(own_app, {"id": "78", "name": "Copycat", "kind": "retailer"}, "--token", "demo-retailer-token")
    assert result.exit_code != 0 and "A token is 24 to 200 characters" in result.output, result.output
    rotated = own_app.test_cli_runner().invoke(args=["rotate-token", "2"])
    assert rotated.exit_code == 0, rotated.output
    current = rotated.stdout.splitlines()[-1]
    result = add(own_app, {"id": "78", "name": "Copycat", "kind": "retailer"}, "--token", current)
    assert result.exit_code != 0 and "That token is, or was, a supplier's" in result.output, result.output
    assert supplier_count(own_app) == before
