"""flask --app coreapi rotate-token (coreapi/services/token_rotation.py): a supplier gets a new token, the one it
replaces is accepted for the overlap and then refused as an unknown supplier's, one replaced token is kept per
supplier, and a token the operator gives is checked. On both backends, on a database of this module's own (the
rotations change the seeded tokens every other test uses)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from click.testing import Result
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import text

from coreapi.extensions import db

from .test_baskets import Shopper, ok

ME = "/api/v1/suppliers/me"


@pytest.fixture
def client(own_app: Flask) -> FlaskClient:
    return own_app.test_client()


def rotate(app: Flask, *args: str) -> Result:
    return app.test_cli_runner().invoke(args=["rotate-token", *args])


def rotated(app: Flask, *args: str) -> str:
    """The new token a rotation printed (its last line)."""
    result = rotate(app, *args)
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()[-1]


def token_of(app: Flask, supplier_id: str) -> str:
    with app.app_context():
        return str(
            db.session.execute(text("SELECT token FROM suppliers WHERE id = :id"), {"id": int(supplier_id)}).scalar()
        )


def end_the_overlap(app: Flask, supplier_id: str) -> None:
    """The overlap's end, as the clock would bring it."""
    with app.app_context():
        db.session.execute(
            text("UPDATE suppliers SET previous_token_expires_at = :past WHERE id = :id"),
            {"past": "2000-01-01 00:00:00", "id": int(supplier_id)},
        )
        db.session.commit()


def supplier_of(client: FlaskClient, token: str) -> Any:
    """The id /suppliers/me answers for a token, or the refusal's status and detail."""
    response = client.get(ME, headers={"Supplier-Token": token})
    return response.json["id"] if response.status_code == 200 else (response.status_code, response.json["detail"])


UNKNOWN = (401, "Unknown Supplier-Token.")


def test_the_replaced_token_is_accepted_for_the_overlap_then_refused(own_app: Flask, client: FlaskClient) -> None:
    old = token_of(own_app, "2")
    buyer = Shopper(client, f"user_id rotate-{uuid.uuid4().hex[:12]}", supplier_token=old)
    added = ok(buyer.add("1", 4))

    result = rotate(own_app, "2")
    assert result.exit_code == 0, result.output
    message, new = result.stdout.splitlines()
    assert message.startswith(
        "Supplier 2 (Demo Market (sans personnalisation)): new token below; the token it replaces is accepted until "
    ), message
    assert len(new) >= 40 and new != old and token_of(own_app, "2") == new
    # Both name the supplier during the overlap, and the shopper's basket is the same under either.
    assert supplier_of(client, new) == supplier_of(client, old) == "2"
    under_new = Shopper(client, buyer.headers["Authorization"], supplier_token=new)
    assert client.get("/api/v1/basket?store_id=1001", headers=under_new.headers).json == added["basket"]

    end_the_overlap(own_app, "2")
    assert supplier_of(client, old) == UNKNOWN  # nothing tells a replaced token from one that never was
    assert supplier_of(client, new) == "2"


def test_a_leaked_token_is_refused_at_once_with_no_overlap(own_app: Flask, client: FlaskClient) -> None:
    old = token_of(own_app, "3")
    result = rotate(own_app, "3", "--overlap-hours", "0")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0].endswith("the token it replaces is no longer accepted.")
    assert supplier_of(client, old) == UNKNOWN
    assert supplier_of(client, result.stdout.splitlines()[-1]) == "3"


def test_a_rotation_during_an_overlap_ends_the_oldest_tokens_at_once(own_app: Flask, client: FlaskClient) -> None:
    first = token_of(own_app, "1")
    second = rotated(own_app, "1")
    result = rotate(own_app, "1", "--overlap-hours", "1.5")
    assert result.exit_code == 0, result.output
    assert "its overlap ended now" in result.stderr
    third = result.stdout.splitlines()[-1]
    assert [supplier_of(client, token) for token in (first, second, third)] == [UNKNOWN, "1", "1"]


def test_a_suspended_suppliers_replaced_token_is_refused_too(own_app: Flask, client: FlaskClient) -> None:
    old = token_of(own_app, "1")
    new = rotated(own_app, "1")
    assert own_app.test_cli_runner().invoke(args=["suspend-supplier", "1"]).exit_code == 0
    try:
        assert [supplier_of(client, token) for token in (old, new)] == [UNKNOWN, UNKNOWN]
    finally:
        assert own_app.test_cli_runner().invoke(args=["suspend-supplier", "1", "--resume"]).exit_code == 0
    assert [supplier_of(client, token) for token in (old, new)] == ["1", "1"]


def test_a_given_token_is_checked(own_app: Flask, client: FlaskClient) -> None:
    chosen = f"chosen-{uuid.uuid4().hex}"
    assert rotated(own_app, "3", "--token", chosen) == chosen
    assert supplier_of(client, chosen) == "3"
    refusals = {
        "short-token": "A token is 24 to 200 characters",
        "with spaces and more than twenty-four": "A token is 24 to 200 characters",
        chosen: "That token is, or was, a supplier's",  # another supplier's
    }
    before = token_of(own_app, "2")
    for token, reason in refusals.items():
        result = rotate(own_app, "2", "--token", token)
        assert result.exit_code != 0 and reason in result.output, result.output
    assert token_of(own_app, "2") == before  # nothing changed


def test_an_unknown_supplier_or_an_overlap_out_of_bounds_is_refused(own_app: Flask) -> None:
    unknown = rotate(own_app, "999")
    assert unknown.exit_code != 0 and "No supplier '999'." in unknown.output, unknown.output
    for hours in ("-1", "169"):
        result = rotate(own_app, "2", "--overlap-hours", hours)
        assert result.exit_code != 0 and "--overlap-hours" in result.output, result.output
