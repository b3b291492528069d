"""The ids a shopper's answers show for baskets and menus (coreapi/services/public_ids.py): a keyed digest of the
row's number, so that a supplier cannot count, from the ids its own shoppers get, the baskets, orders and menus of
the other suppliers' shoppers; the same for a row at every answer and on every node of the database."""

from __future__ import annotations

import re
import uuid

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import delete, select

from coreapi import create_app
from coreapi.extensions import db
from coreapi.models import Basket, InstanceSecret, Menu
from coreapi.services import public_ids

from .test_baskets import NOPERS_TOKEN, RETAILER_TOKEN, Shopper
from .test_favorites_history import confirm, history
from .test_menus import Planner

PUBLIC_ID = re.compile(r"[0-9a-f]{20}")


def menu_id(client: FlaskClient, token: str) -> str:
    """A new shopper's menu id under the supplier of ``token``."""
    planner = Planner(client, f"user_id ids-{uuid.uuid4().hex}", supplier_token=token)
    menu_id: str = planner.menu("?store_id=1001")["id"]
    return menu_id


def test_menu_ids_are_not_the_row_numbers_that_count_every_suppliers_menus(client: FlaskClient, app: Flask) -> None:
    """Another retailer's menus made between two of ours: our ids do not tell how many."""
    first = menu_id(client, NOPERS_TOKEN)
    for _ in range(3):
        menu_id(client, RETAILER_TOKEN)
    second = menu_id(client, NOPERS_TOKEN)
    assert PUBLIC_ID.fullmatch(first) and PUBLIC_ID.fullmatch(second) and first != second
    with app.app_context():
        numbers = db.session.scalars(select(Menu.id).order_by(Menu.id.desc()).limit(5)).all()
        key = app.extensions["coreapi_public_id_key"].get(db.session)
    assert second == public_ids.public_id(key, public_ids.MENU, numbers[0])
    assert {first, second}.isdisjoint(str(number) for number in numbers)


def test_a_payment_s_basket_id_is_its_order_s_id_in_the_history_and_not_its_row_number(
    client: FlaskClient, app: Flask
) -> None:
    buyer = Shopper(client, f"user_id ids-{uuid.uuid4().hex}", supplier_token=NOPERS_TOKEN)
    confirmed = confirm(buyer, {"1": 2})
    assert PUBLIC_ID.fullmatch(confirmed)
    assert [order["id"] for order in history(buyer)["data"]] == [confirmed]
    with app.app_context():
        number = db.session.scalar(select(Basket.id).where(Basket.identity_id == buyer_identity(buyer)))
    assert confirmed != str(number)


def buyer_identity(shopper: Shopper) -> str:
    return shopper.headers["Authorization"].split(" ", 1)[1]


def test_every_node_of_a_database_shows_the_same_ids(own_app: Flask) -> None:
    """A second application on the same database (another node, or this one restarted) reads the one key."""
    planner = Planner(own_app.test_client(), f"user_id ids-{uuid.uuid4().hex}")
    shown = planner.menu("?store_id=1001")["id"]
    node = create_app_like(own_app)
    assert Planner(node.test_client(), planner.headers["Authorization"]).menu("?store_id=1001")["id"] == shown


def test_a_database_without_its_key_gets_one_at_its_upgrade_never_within_a_request(own_app: Flask) -> None:
    """A schema built without the migrations (create_all, adopted) or a deleted row: a request that would show an
    id fails with a problem that names the cure, and makes nothing (on SQLite its write's transaction holds the
    database's one write lock); `db-upgrade` makes the key, and a new process reads it."""
    with own_app.app_context():
        db.session.execute(delete(InstanceSecret))
        db.session.commit()
    node = create_app_like(own_app)
    planner = Planner(node.test_client(), f"user_id ids-{uuid.uuid4().hex}")
    refused = planner.get("?store_id=1001")
    assert refused.status_code == 500 and refused.mimetype == "application/problem+json"
    with node.app_context():
        assert db.session.scalar(select(InstanceSecret.value)) is None
    result = node.test_cli_runner().invoke(args=["db-upgrade"])
    assert result.exit_code == 0, result.output
    with node.app_context():
        stored = db.session.scalar(select(InstanceSecret.value).where(InstanceSecret.name == public_ids.SECRET_NAME))
    assert stored is not None and len(stored) == 64
    shown = Planner(create_app_like(own_app).test_client(), planner.headers["Authorization"]).menu("?store_id=1001")
    assert shown["id"] == public_ids.public_id(stored.encode(), public_ids.MENU, menu_number(node, planner))


# What another process of the deployment shares with ``app``: its database and keys, and the roomy write deadline
# every test app takes (tests/coreapi/conftest.py): at the default 2.5 s, a fresh node's first menu on a loaded
# machine (the whole suite on every CPU) was once cut at its deadline, a 503.
SHARED_CONFIG = (
    "TESTING",
    "SERVICE_KEYS",
    "DATABASE_URL",
    "SQLALCHEMY_ENGINE_OPTIONS",
    "WRITE_DEADLINE_SECONDS",
    "DATABASE_HOLD_SECONDS",
)


def create_app_like(app: Flask) -> Flask:
    """Another process of the same deployment: a new application on ``app``'s database."""
    return create_app({key: app.config[key] for key in SHARED_CONFIG})


def menu_number(app: Flask, planner: Planner) -> int:
    """The row number of the planner's shopper's menu."""
    with app.app_context():
        number = db.session.scalar(
            select(Menu.id).where(Menu.identity_id == planner.headers["Authorization"].split()[1])
        )
    assert number is not None
    return number
