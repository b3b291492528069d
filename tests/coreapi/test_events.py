"""Analytics events: validation limits, storage with the headers' context, listing by session."""

from __future__ import annotations

import datetime as dt
import random
import string
import uuid
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from coreapi.extensions import db
from coreapi.models import Event

EVENT_FIELDS = {"id", "name", "path", "props", "timestamp", "session_id", "supplier_id", "identity"}


@pytest.fixture
def session_id() -> str:
    return f"session-{uuid.uuid4().hex}"


RETAILER = {"Supplier-Token": "demo-retailer-token"}
PUBLISHER = {"Supplier-Token": "demo-publisher-token"}


def post(client: FlaskClient, body: Any, **headers: str) -> Any:
    return client.post("/api/v1/events", json=body, headers=headers)


def listed(client: FlaskClient, session_id: str, supplier: dict[str, str] = RETAILER) -> list[dict[str, Any]]:
    """The session's events the supplier may read (its own)."""
    response = client.get(f"/api/v1/events?session_id={session_id}", headers=supplier)
    assert response.status_code == 200, response.json
    return response.json["data"]


def test_events_are_stored_with_the_session_supplier_and_identity(client: FlaskClient, seed, session_id: str) -> None:
    events = [
        {"name": "recipe.show", "path": "/", "props": {"recipe_id": "12"},
         "timestamp": "2026-11-21T10:00:00Z"},
        {"name": "pageview", "path": "/recettes", "props": {"n": 3, "ratio": 0.5, "on": True},
         "timestamp": "2026-11-21T12:00:01+02:00"},
    ]  # fmt: skip
    response = post(
        client,
        {"events": events},
        **{"Session-Id": session_id, "Supplier-Token": "demo-retailer-token",
           "Authorization": "user_id u-events"},
    )  # fmt: skip
    assert response.status_code == 202
    assert response.json == {"stored": 2, "duplicates": 0}

    (retailer,) = [s for s in seed.suppliers if s["token"] == "demo-retailer-token"]
    stored = listed(client, session_id)
    assert [set(event) for event in stored] == [EVENT_FIELDS, EVENT_FIELDS]
    assert [event["name"] for event in stored] == ["recipe.show", "pageview"]
    assert stored[0]["props"] == {"recipe_id": "12"}
    assert stored[1]["props"] == {"n": 3, "ratio": 0.5, "on": True}
    assert [dt.datetime.fromisoformat(e["timestamp"]) for e in stored] == [
        dt.datetime(2026, 11, 21, 10, 0, 0, tzinfo=dt.UTC),
        dt.datetime(2026, 11, 21, 10, 0, 1, tzinfo=dt.UTC),
    ]
    for event in stored:
        assert event["session_id"] == session_id
        assert event["supplier_id"] == retailer["id"]
        assert event["identity"] == {"kind": "user_id", "id": "u-events"}


def test_a_sessions_events_oldest_first_and_only_its_own(client: FlaskClient, session_id: str) -> None:
    def event(name: str, hour: int) -> dict[str, Any]:
        return {"name": name, "timestamp": f"2026-11-21T{hour:02}:00:00Z"}

    headers = {"Session-Id": session_id, "Authorization": "authless_id v-events", **RETAILER}
    assert post(client, {"events": [event("b", 11), event("c", 12)]}, **headers).status_code == 202
    assert post(client, {"events": [event("a", 9)]}, **headers).status_code == 202
    other = {"Session-Id": f"{session_id}-other", **RETAILER}
    assert post(client, {"events": [event("z", 10)]}, **other).status_code == 202

    stored = listed(client, session_id)
    assert [e["name"] for e in stored] == ["a", "b", "c"]
    assert {e["identity"]["kind"] for e in stored} == {"authless_id"}
    assert [e["name"] for e in listed(client, f"{session_id}-other")] == ["z"]
    assert listed(client, f"{session_id}-none") == []


def test_defaults_without_optional_headers_or_fields(client: FlaskClient, session_id: str) -> None:
    before = dt.datetime.now(dt.UTC).replace(microsecond=0)
    body = {"events": [{"name": "category.display"}]}
    response = post(client, body, **{"Session-Id": session_id, **RETAILER})
    assert response.status_code == 202
    after = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=1)
    (event,) = listed(client, session_id)
    assert (event["path"], event["props"], event["identity"]) == (None, {}, None)
    assert before <= dt.datetime.fromisoformat(event["timestamp"]) <= after


def test_events_without_a_supplier_are_stored_and_listed_to_none(app: Flask, session_id: str) -> None:
    client = app.test_client()
    assert post(client, {"events": [{"name": "pageview"}]}, **{"Session-Id": session_id}).status_code == 202
    with app.app_context():
        rows = db.session.execute(select(Event.supplier_id).where(Event.session_id == session_id)).all()
    assert [tuple(row) for row in rows] == [(None,)]
    assert listed(client, session_id) == [] and listed(client, session_id, PUBLISHER) == []


def test_listing_needs_the_supplier_the_events_were_sent_for(client: FlaskClient, session_id: str) -> None:
    """A session's events name its shopper: no other supplier, and no caller without one, reads them."""
    headers = {"Session-Id": session_id, "Authorization": "user_id u-private"}
    assert post(client, {"events": [{"name": "pageview"}]}, **headers, **RETAILER).status_code == 202
    anonymous = client.get(f"/api/v1/events?session_id={session_id}")
    assert anonymous.status_code == 401 and anonymous.mimetype == "application/problem+json"
    assert listed(client, session_id, PUBLISHER) == []
    assert [event["identity"] for event in listed(client, session_id)] == [{"kind": "user_id", "id": "u-private"}]


def test_events_sent_with_profiling_off_are_tied_neither_to_the_shopper_nor_the_session(
    app: Flask, session_id: str
) -> None:
    client = app.test_client()
    name = "refused." + "".join(random.choices(string.ascii_lowercase, k=16))  # names are [a-z.-]
    headers = {"Session-Id": session_id, "Authorization": "user_id u-no-profiling", "Profiling": "false"}
    assert post(client, {"events": [{"name": name}]}, **headers, **RETAILER).status_code == 202
    assert listed(client, session_id) == []
    with app.app_context():
        rows = db.session.execute(
            select(Event.session_id, Event.identity_kind, Event.identity_id, Event.supplier_id).where(
                Event.name == name
            )
        ).all()
    assert [tuple(row)[:3] for row in rows] == [(None, None, None)] and rows[0][3] is not None  # counted, per supplier


def test_limits_are_accepted(client: FlaskClient, session_id: str) -> None:
    largest = {
        "name": "a" * 64,
        "path": "/" * 512,
        "props": {f"p{n}": "x" * 512 for n in range(20)},
    }
    response = post(client, {"events": [largest] * 100}, **{"Session-Id": session_id, **RETAILER})
    assert response.status_code == 202
    assert response.json == {"stored": 100, "duplicates": 0}
    assert len(listed(client, session_id)) == 100


def one(**fields: Any) -> dict[str, Any]:
    return {"events": [{"name": "recipe.show", **fields}]}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "events"),
        ({"events": []}, "events"),
        ({"events": [{"name": "a"}] * 101}, "events"),
        ({"events": {"name": "a"}}, "events"),
        ({"events": [{}]}, "events.0.name"),
        (one(name=""), "events.0.name"),
        (one(name="a" * 65), "events.0.name"),
        (one(name="Recipe.Show"), "events.0.name"),
        (one(name="recipe_show"), "events.0.name"),
        (one(name="recipe.show\n"), "events.0.name"),
        (one(name=12), "events.0.name"),
        (one(path="/" * 513), "events.0.path"),
        (one(props=[]), "events.0.props"),
        (one(props={f"p{n}": 1 for n in range(21)}), "events.0.props"),
        (one(props={"a": {"b": 1}}), "events.0.props.a.value"),
        (one(props={"a": [1]}), "events.0.props.a.value"),
        (one(props={"a": None}), "events.0.props.a.value"),
        (one(props={"a": "x" * 513}), "events.0.props.a.value"),
        (one(props={"a": float("nan")}), "events.0.props.a"),  # refused as it is read (plumbing/parsing.py)
        (one(props={"": 1}), "events.0.props..key"),  # the empty key's own name
        (one(timestamp="yesterday"), "events.0.timestamp"),
        (one(id=""), "events.0.id"),
        (one(id="a" * 65), "events.0.id"),
        (one(id="-starts-with-a-dash"), "events.0.id"),
        (one(id="with space"), "events.0.id"),
        (one(id="trailing-newline\n"), "events.0.id"),
        (one(id=12), "events.0.id"),
    ],
)
def test_validation(client: FlaskClient, session_id: str, body: Any, field: str) -> None:
    response = post(client, body, **{"Session-Id": session_id, **RETAILER})
    assert response.status_code == 400
    assert response.mimetype == "application/problem+json"
    errors = response.json["errors"]["json"]
    assert field in errors or any(name.startswith(field) for name in errors), errors
    assert listed(client, session_id) == []


def test_one_bad_event_stores_none(client: FlaskClient, session_id: str) -> None:
    body = {"events": [{"name": "pageview"}, {"name": "BAD"}]}
    response = post(client, body, **{"Session-Id": session_id, **RETAILER})
    assert response.status_code == 400
    assert list(response.json["errors"]["json"]) == ["events.1.name"]
    assert listed(client, session_id) == []


def test_headers_are_checked(client: FlaskClient) -> None:
    body = one()
    assert post(client, body, **{"Supplier-Token": "no-such-token"}).status_code == 401
    response = post(client, body, **{"Session-Id": "s" * 201})
    assert response.status_code == 400
    assert list(response.json["errors"]["headers"]) == ["Session-Id"]


def test_a_repeated_event_id_is_stored_once(client: FlaskClient, session_id: str) -> None:
    """A beacon retried after a timeout whose first attempt was stored: the second adds nothing."""
    event_id = str(uuid.uuid4())
    body = {"events": [{"id": event_id, "name": "recipe.show", "props": {"recipe_id": "5"}}, {"name": "pageview"}]}
    headers = {"Session-Id": session_id, **RETAILER}
    assert post(client, body, **headers).json == {"stored": 2, "duplicates": 0}
    again = post(client, body, **headers)
    assert again.status_code == 202 and again.json == {"stored": 2, "duplicates": 1}
    stored = listed(client, session_id)
    assert sorted(event["name"] for event in stored) == ["pageview", "pageview", "recipe.show"]  # no id: twice
    assert [event["id"] for event in stored if event["name"] == "recipe.show"] == [event_id]


def test_an_id_twice_in_one_batch_is_stored_once(client: FlaskClient, session_id: str) -> None:
    event = {"id": "same-event-1", "name": "recipe.show"}
    response = post(client, {"events": [event, event]}, **{"Session-Id": session_id, **RETAILER})
    assert response.json == {"stored": 2, "duplicates": 1}
    assert [e["id"] for e in listed(client, session_id)] == ["same-event-1"]


def test_an_id_is_unique_per_supplier(client: FlaskClient, session_id: str) -> None:
    """Ids are the browsers': the same id at two suppliers is two events."""
    body = one(id="shared-event-id")
    assert post(client, body, **{"Session-Id": session_id, **RETAILER}).json["duplicates"] == 0
    assert post(client, body, **{"Session-Id": session_id, **PUBLISHER}).json["duplicates"] == 0
    assert len(listed(client, session_id)) == len(listed(client, session_id, PUBLISHER)) == 1


def test_events_without_ids_are_all_stored(client: FlaskClient, session_id: str) -> None:
    """Older SDKs send none: each call stores its events, as before."""
    for _ in range(2):
        assert post(client, one(), **{"Session-Id": session_id, **RETAILER}).json == {"stored": 1, "duplicates": 0}
    assert [event["id"] for event in listed(client, session_id)] == [None, None]


def test_listing_needs_a_session_id(client: FlaskClient) -> None:
    for query in ("", "?session_id="):
        response = client.get(f"/api/v1/events{query}", headers=RETAILER)
        assert response.status_code == 400
        assert "session_id" in response.json["errors"]["query"]


@pytest.mark.parametrize("timestamp", ["9999-12-31T23:59:59-14:00", "0001-01-01T00:00:00+14:00"])
def test_a_time_outside_the_years_utc_holds_is_a_400(client: FlaskClient, session_id: str, timestamp: str) -> None:
    """Events are stored in UTC: a time whose UTC falls before year 1 or after 9999 was a 500 (an overflow)."""
    body = {"events": [{"name": "recipe.show", "timestamp": timestamp}]}
    response = post(client, body, **RETAILER, **{"Session-Id": session_id})
    assert response.status_code == 400, response.json
    assert response.json["errors"] == {
        "json": {"events.0.timestamp": ["Must be a time between years 1 and 9999 in UTC."]}
    }
    assert listed(client, session_id) == []
