"""A service acting for a supplier: ``X-Service-Key`` (one of ``SERVICE_KEYS``) with ``Supplier-Id``.

prerender calls coreapi this way for a browser's credential, which names its supplier by id: the
browser never holds the supplier's token. The key's default lives in ``instance/upstream-service-key``.
"""

from __future__ import annotations

import logging
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

import coreapi
from coreapi import create_app
from coreapi.config import MIN_SERVICE_KEY_LENGTH, SERVICE_KEY_FILE
from coreapi.extensions import db

from .conftest import SERVICE_KEY

PROBLEM = "application/problem+json"
RETAILER_TOKEN = "demo-retailer-token"
NOPERS_TOKEN = "demo-nopers-token"
ME = "/api/v1/suppliers/me"
STORE_ID = "1001"


def supplier_id(seed: Any, token: str) -> str:
    (supplier,) = [s for s in seed.suppliers if s["token"] == token]
    found: str = supplier["id"]
    return found


def as_service(supplier_id: str, key: str = SERVICE_KEY, **headers: str) -> dict[str, str]:
    return {"X-Service-Key": key, "Supplier-Id": supplier_id, **headers}


def assert_problem(response: Any, status: int, detail: str) -> None:
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == PROBLEM
    assert response.json["status"] == status
    assert response.json["detail"] == detail


# --- acting for a supplier ----------------------------------------------------------------------


@pytest.mark.parametrize("token", ["demo-retailer-token", "demo-nopers-token", "demo-publisher-token"])
def test_the_service_reads_the_supplier_of_an_id(client: FlaskClient, seed: Any, token: str) -> None:
    by_token = client.get(ME, headers={"Supplier-Token": token})
    by_id = client.get(ME, headers=as_service(supplier_id(seed, token)))
    assert by_id.status_code == 200
    assert by_id.json == by_token.json
    assert by_id.json["id"] == supplier_id(seed, token)
    assert "token" not in by_id.json


def test_the_service_reaches_the_basket_of_the_supplier_token(client: FlaskClient, seed: Any, user_id: str) -> None:
    """One shopper (supplier, identity), whichever way the supplier is named; another supplier's
    shopper of the same identity is another one."""
    recipe_id = sorted(seed.recipes, key=int)[0]
    authorization = {"Authorization": f"user_id {user_id}"}
    service = as_service(supplier_id(seed, RETAILER_TOKEN), **authorization)
    token = {"Supplier-Token": RETAILER_TOKEN, **authorization}
    basket = f"/api/v1/basket?store_id={STORE_ID}"

    added = client.post(
        "/api/v1/basket/recipes", json={"recipe_id": recipe_id, "guests": 4, "store_id": STORE_ID}, headers=service
    )
    assert added.status_code == 200, added.get_data(as_text=True)
    assert [entry["recipe_id"] for entry in added.json["basket"]["recipes"]] == [recipe_id]
    assert client.get(basket, headers=token).json == added.json["basket"]

    rescaled = client.patch(
        f"/api/v1/basket/recipes/{recipe_id}", json={"guests": 6, "store_id": STORE_ID}, headers=token
    )
    assert rescaled.status_code == 200
    read = client.get(basket, headers=service)
    assert read.status_code == 200
    assert read.json == rescaled.json["basket"]
    assert read.json["recipes"][0]["guests"] == 6

    other_supplier = as_service(supplier_id(seed, NOPERS_TOKEN), **authorization)
    assert client.get(basket, headers=other_supplier).json["recipes"] == []


def test_the_service_likes_for_the_supplier(client: FlaskClient, seed: Any, user_id: str) -> None:
    recipe_id = sorted(seed.recipes, key=int)[0]
    authorization = {"Authorization": f"user_id {user_id}"}
    service = as_service(supplier_id(seed, RETAILER_TOKEN), **authorization)
    assert client.put(f"/api/v1/likes/{recipe_id}", headers=service).status_code == 204
    liked = client.get(
        f"/api/v1/likes?recipe_ids={recipe_id}", headers={"Supplier-Token": RETAILER_TOKEN, **authorization}
    )
    assert liked.json == {"data": [recipe_id]}


def test_a_service_naming_no_supplier_reads_the_catalog_only(client: FlaskClient) -> None:
    headers = {"X-Service-Key": SERVICE_KEY}
    assert client.get("/api/v1/stores", headers=headers).status_code == 200
    assert_problem(client.get(ME, headers=headers), 401, "This route needs a Supplier-Id header.")


# --- refusals -----------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["wrong-key-" + "w" * 40, SERVICE_KEY[:-1], SERVICE_KEY + "x", "é" * 40, "short"])
def test_a_wrong_service_key_is_401(client: FlaskClient, seed: Any, key: str) -> None:
    for path in (ME, "/api/v1/stores"):
        for headers in (as_service(supplier_id(seed, RETAILER_TOKEN), key), {"X-Service-Key": key}):
            response = client.get(path, headers=headers)
            assert_problem(response, 401, "Invalid X-Service-Key.")
            assert key not in response.get_data(as_text=True)
            assert all(key not in value for value in response.headers.values())


def test_a_supplier_id_without_service_key_is_401(client: FlaskClient, seed: Any) -> None:
    retailer_id = supplier_id(seed, RETAILER_TOKEN)
    for path in (ME, "/api/v1/stores"):
        assert_problem(client.get(path, headers={"Supplier-Id": retailer_id}), 401, "Supplier-Id needs X-Service-Key.")
    # Nor does a supplier's own token let it name another supplier.
    response = client.get(ME, headers={"Supplier-Token": NOPERS_TOKEN, "Supplier-Id": retailer_id})
    assert_problem(response, 401, "Supplier-Id needs X-Service-Key.")


@pytest.mark.parametrize("unknown", ["999999", "0", "-1", "abc", "1.0", str(2**40)])
def test_an_unknown_supplier_id_is_401(client: FlaskClient, unknown: str) -> None:
    for path in (ME, "/api/v1/stores"):
        assert_problem(client.get(path, headers=as_service(unknown)), 401, "Unknown Supplier-Id.")


@pytest.mark.parametrize("key", [SERVICE_KEY, "wrong-key-" + "w" * 40])
def test_a_supplier_token_and_a_service_key_together_are_400(client: FlaskClient, seed: Any, key: str) -> None:
    for headers in (
        {"Supplier-Token": RETAILER_TOKEN, "X-Service-Key": key},
        {"Supplier-Token": RETAILER_TOKEN, **as_service(supplier_id(seed, RETAILER_TOKEN), key)},
    ):
        response = client.get(ME, headers=headers)
        assert_problem(
            response, 400, "Send either a Supplier-Token or an X-Service-Key (with a Supplier-Id), not both."
        )
        assert key not in response.get_data(as_text=True)


def test_empty_headers_count_as_absent(client: FlaskClient) -> None:
    assert client.get("/api/v1/stores", headers={"X-Service-Key": "", "Supplier-Id": " "}).status_code == 200
    response = client.get(ME, headers={"X-Service-Key": "", "Supplier-Token": RETAILER_TOKEN})
    assert response.status_code == 200


def test_the_logs_never_write_the_service_key(client: FlaskClient, seed: Any, caplog: pytest.LogCaptureFixture) -> None:
    wrong = "wrong-key-" + "z" * 40
    with caplog.at_level(logging.DEBUG):
        assert client.get(ME, headers=as_service(supplier_id(seed, RETAILER_TOKEN))).status_code == 200
        assert client.get(ME, headers=as_service(supplier_id(seed, RETAILER_TOKEN), wrong)).status_code == 401
        client.get(ME, headers={"Supplier-Token": RETAILER_TOKEN, "X-Service-Key": SERVICE_KEY})
    text = "\n".join(record.getMessage() for record in caplog.records)
    assert f"GET {ME} 200" in text and f"GET {ME} 401" in text
    assert SERVICE_KEY not in text and wrong not in text


# --- SERVICE_KEYS ------------------------------------------------------------------------------


@pytest.fixture
def app_with_keys(app: Flask) -> Iterator[Any]:
    """``make(keys)``: an application on the seeded database of ``app``, with ``SERVICE_KEYS=keys``."""
    made: list[Flask] = []
    database = {key: app.config[key] for key in ("DATABASE_URL", "SQLALCHEMY_ENGINE_OPTIONS")}

    def make(keys: Any) -> Flask:
        made.append(create_app({"TESTING": True, **database, "SERVICE_KEYS": keys}))
        return made[-1]

    yield make
    for other in made:
        with other.app_context():
            db.engine.dispose()


def test_every_listed_key_is_accepted(app_with_keys: Any, seed: Any) -> None:
    """Rotation: the new key is added beside the old, the callers move to it, the old one goes."""
    old, new = "old-service-key-" + "o" * 32, "new-service-key-" + "n" * 32
    retailer_id = supplier_id(seed, RETAILER_TOKEN)
    both = app_with_keys([old, new]).test_client()
    for key in (old, new):
        assert both.get(ME, headers=as_service(retailer_id, key)).json["id"] == retailer_id
    assert both.get(ME, headers=as_service(retailer_id, SERVICE_KEY)).status_code == 401

    new_only = app_with_keys(new).test_client()  # a string is one key
    assert new_only.get(ME, headers=as_service(retailer_id, new)).status_code == 200
    assert new_only.get(ME, headers=as_service(retailer_id, old)).status_code == 401


def test_service_keys_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    one, two = "a" * MIN_SERVICE_KEY_LENGTH, "b" * 40
    monkeypatch.setenv("COREAPI_SERVICE_KEYS", f'["{one}", "{two}"]')
    assert create_app({"DATABASE_URL": "sqlite://"}).config["SERVICE_KEYS"] == [one, two]
    monkeypatch.setenv("COREAPI_SERVICE_KEYS", two)
    assert create_app({"DATABASE_URL": "sqlite://"}).config["SERVICE_KEYS"] == [two]


@pytest.mark.parametrize(
    "keys",
    ["a" * (MIN_SERVICE_KEY_LENGTH - 1), ["a" * 40, "short"], [40 * "a", 12345], {"key": "a" * 40}],
)
def test_short_or_malformed_service_keys_are_refused_at_start(keys: Any) -> None:
    with pytest.raises(ValueError, match="COREAPI_SERVICE_KEYS"):
        create_app({"DATABASE_URL": "sqlite://", "SERVICE_KEYS": keys})


# --- the default: instance/upstream-service-key ----------------------------------------------


@pytest.fixture
def instance(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """An instance folder of this test only, and no configured key."""
    folder = tmp_path / "instance"
    monkeypatch.setattr(coreapi, "INSTANCE_PATH", folder)
    monkeypatch.delenv("COREAPI_SERVICE_KEYS", raising=False)
    return folder


def default_app() -> Flask:
    return create_app({"TESTING": True, "DATABASE_URL": "sqlite://"})


def test_the_default_key_is_made_once_in_the_instance_folder(instance: Path) -> None:
    first = default_app()
    path = instance / SERVICE_KEY_FILE
    assert Path(first.instance_path) == instance
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    (key,) = first.config["SERVICE_KEYS"]
    assert key == path.read_text() and len(key) >= MIN_SERVICE_KEY_LENGTH
    assert default_app().config["SERVICE_KEYS"] == [key]

    client = first.test_client()
    assert client.get("/api/v1/stores", headers={"X-Service-Key": key + "x"}).status_code == 401


def test_a_configured_key_leaves_the_instance_folder_alone(instance: Path) -> None:
    create_app({"TESTING": True, "DATABASE_URL": "sqlite://", "SERVICE_KEYS": SERVICE_KEY})
    assert not (instance / SERVICE_KEY_FILE).exists()


def test_an_existing_key_file_is_read_not_replaced(instance: Path) -> None:
    instance.mkdir()
    key = "operator-chosen-key-" + "q" * 32
    (instance / SERVICE_KEY_FILE).write_text(key + "\n")
    assert default_app().config["SERVICE_KEYS"] == [key]
    assert (instance / SERVICE_KEY_FILE).read_text() == key + "\n"


def test_a_short_key_file_is_refused_at_start(instance: Path) -> None:
    instance.mkdir()
    (instance / SERVICE_KEY_FILE).write_text("x" * (MIN_SERVICE_KEY_LENGTH - 1))
    with pytest.raises(ValueError, match="shorter than 32 characters"):
        default_app()
