"""flask --app coreapi suspend-supplier [--resume] (coreapi/services/supplier_suspension.py): a suspended supplier's
requests, by its token or as a service by its id, are refused as an unknown supplier's; the other suppliers are
served as before; nothing of it or its shoppers is deleted, and resuming serves it again with everything as it was.
On both backends, on a database of this module's own (the session's seeded one is shared by every other test)."""

from __future__ import annotations

import json
import uuid

import pytest
from flask import Flask
from flask.testing import FlaskClient

from .conftest import SERVICE_KEY
from .test_baskets import Shopper, ok

SUSPENDED = "2"  # Demo Market (sans personnalisation), coreapi/seed/data/suppliers.json
SUSPENDED_TOKEN = {"Supplier-Token": "demo-nopers-token"}
OTHER_TOKEN = {"Supplier-Token": "demo-retailer-token"}
AS_SERVICE = {"X-Service-Key": SERVICE_KEY, "Supplier-Id": SUSPENDED}
ME = "/api/v1/suppliers/me"


@pytest.fixture
def client(own_app: Flask) -> FlaskClient:
    return own_app.test_client()


def run(app: Flask, *args: str) -> str:
    result = app.test_cli_runner().invoke(args=list(args))
    assert result.exit_code == 0, result.output
    return str(result.output)


def test_a_suspended_suppliers_requests_are_refused_as_an_unknown_ones_and_resuming_serves_it_again(
    own_app: Flask, client: FlaskClient
) -> None:
    buyer = Shopper(
        client, f"user_id suspend-{uuid.uuid4().hex[:12]}", supplier_token=SUSPENDED_TOKEN["Supplier-Token"]
    )
    added = ok(buyer.add("1", 4))
    unknown = {
        "token": client.get(ME, headers={"Supplier-Token": "no-such-token"}).json["detail"],
        "id": client.get(ME, headers={**AS_SERVICE, "Supplier-Id": "999"}).json["detail"],
    }

    output = run(own_app, "suspend-supplier", SUSPENDED)
    try:
        assert output.startswith(f"Supplier {SUSPENDED} (Demo Market (sans personnalisation)) suspended since "), output
        for headers, detail in ((SUSPENDED_TOKEN, unknown["token"]), (AS_SERVICE, unknown["id"])):
            refused = client.get(ME, headers=headers)
            assert refused.status_code == 401, refused.json
            assert refused.mimetype == "application/problem+json"
            assert refused.json["detail"] == detail  # nothing tells a suspended supplier from an unknown one
        for response in (
            client.get("/api/v1/recipes/1?store_id=1001", headers=SUSPENDED_TOKEN),
            client.get("/api/v1/basket?store_id=1001", headers=buyer.headers),
            buyer.add("3", 2),
        ):
            assert response.status_code == 401, response.json
        # The other suppliers are served as before.
        assert client.get(ME, headers=OTHER_TOKEN).json["id"] == "1"
        assert client.get("/api/v1/recipes/1?store_id=1001", headers=OTHER_TOKEN).status_code == 200
        # Again on a suspended supplier: the first time is kept.
        assert run(own_app, "suspend-supplier", SUSPENDED) == output
    finally:
        resumed = run(own_app, "suspend-supplier", SUSPENDED, "--resume")
    assert resumed.strip() == f"Supplier {SUSPENDED} is served again."
    assert client.get(ME, headers=AS_SERVICE).json["id"] == SUSPENDED
    # Nothing was deleted: the shopper's basket is as it was.
    assert client.get("/api/v1/basket?store_id=1001", headers=buyer.headers).json == added["basket"]


def test_the_shopper_commands_still_find_a_suspended_supplier(own_app: Flask, client: FlaskClient) -> None:
    user = f"suspend-{uuid.uuid4().hex[:12]}"
    buyer = Shopper(client, f"user_id {user}", supplier_token=SUSPENDED_TOKEN["Supplier-Token"])
    ok(buyer.add("1", 4))
    run(own_app, "suspend-supplier", SUSPENDED)
    try:
        exported = json.loads(run(own_app, "export-shopper", "--supplier-id", SUSPENDED, "--user-id", user))
        assert exported["baskets"], exported
    finally:
        run(own_app, "suspend-supplier", SUSPENDED, "--resume")


def test_resuming_a_supplier_not_suspended_or_naming_an_unknown_one(own_app: Flask) -> None:
    assert run(own_app, "suspend-supplier", "1", "--resume").strip() == "Supplier 1 was not suspended; nothing to do."
    for args in (["suspend-supplier", "999"], ["suspend-supplier", "999", "--resume"]):
        result = own_app.test_cli_runner().invoke(args=args)
        assert result.exit_code != 0 and "No supplier '999'." in result.output, result.output
