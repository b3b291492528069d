"""Analytics events through prerender, stored by the real coreapi with session, supplier and user."""

from __future__ import annotations

import json
import uuid

import pytest
import requests

from prerender import create_app

from .conftest import NOPERS, RETAILER, UPSTREAM_READ_TIMEOUT, browser_headers

EVENT = {"name": "recipe.show", "path": "/rayon/legumes", "props": {"recipe_id": "12"}}


def stored(upstream, session_id: str, token: str = RETAILER) -> list[dict]:
    """The session's events coreapi stored for the supplier of `token` (it lists them to that supplier only)."""
    response = requests.get(
        f"{upstream.base_url}/api/v1/events",
        params={"session_id": session_id},
        headers={"Supplier-Token": token},
        timeout=UPSTREAM_READ_TIMEOUT,
    )
    return response.json()["data"]


def test_events_are_stored_with_the_request_identity(client, upstream):
    response = client.post(
        "/v1/events",
        json={"events": [EVENT, {**EVENT, "name": "recipe.display"}]},
        headers=browser_headers(client, user="events-user", session="events-session-1"),
    )
    assert response.status_code == 202 and response.get_json() == {"stored": 2}
    events = stored(upstream, "events-session-1")
    assert [e["name"] for e in events] == ["recipe.show", "recipe.display"]
    assert events[0]["props"] == {"recipe_id": "12"} and events[0]["path"] == "/rayon/legumes"
    assert events[0]["identity"] == {"kind": "user_id", "id": "events-user"}
    assert events[0]["supplier_id"] is not None


@pytest.mark.parametrize("token", [RETAILER, NOPERS])
def test_events_follow_the_shoppers_profiling_choice(client, upstream, token):
    """`profiling: false` stores the events without the shopper or the session; without it they are the shopper's,
    at a supplier without personalization too (which turns profiling off for cards, so that they are the same for
    all)."""
    session = f"events-profiling-{uuid.uuid4().hex}"
    for profiling in ("false", "true"):
        browser = browser_headers(client, user="events-choice", token=token, session=session, profiling=profiling)
        event = {**EVENT, "name": f"profiling.{profiling}"}
        assert client.post("/v1/events", json={"events": [event]}, headers=browser).status_code == 202
    # The refused one was stored (202) without the shopper and without the session: not among the session's.
    assert [(e["name"], e["identity"]) for e in stored(upstream, session, token)] == [
        ("profiling.true", {"kind": "user_id", "id": "events-choice"}),
    ]


def test_send_beacon_form(client, upstream):
    # What the SDK's beacon sends: the headers a fetch would send, credential included.
    body = {
        "headers": browser_headers(client, user=None, authless="beacon-anon", session="events-beacon"),
        "events": [EVENT],
    }
    response = client.post("/v1/events", data=json.dumps(body), content_type="text/plain;charset=UTF-8")
    assert response.status_code == 202
    assert stored(upstream, "events-beacon")[0]["identity"] == {"kind": "authless_id", "id": "beacon-anon"}


def test_a_batch_sent_again_is_stored_once(client, upstream):
    """The beacon retried after a 504 whose first attempt was stored: each event has its id (the SDK's
    analytics.js), passed to coreapi, which stores an id once per supplier."""
    session = f"events-retry-{uuid.uuid4().hex}"
    batch = {"events": [{**EVENT, "id": str(uuid.uuid4())}, {**EVENT, "name": "pageview", "id": str(uuid.uuid4())}]}
    browser = browser_headers(client, user="events-retry-user", session=session)
    assert client.post("/v1/events", json=batch, headers=browser).status_code == 202
    beacon = {"headers": browser, **batch}  # the retry, as a beacon this time
    response = client.post("/v1/events", data=json.dumps(beacon), content_type="text/plain;charset=UTF-8")
    assert response.status_code == 202 and response.get_json() == {"stored": 2}
    events = stored(upstream, session)
    assert sorted(e["id"] for e in events) == sorted(e["id"] for e in batch["events"])
    assert [e["name"] for e in events] == ["recipe.show", "pageview"]


def test_events_without_ids_are_still_accepted(client, upstream):
    """Older SDKs send no id: each batch is stored, as before."""
    session = f"events-no-id-{uuid.uuid4().hex}"
    browser = browser_headers(client, user="events-old-sdk", session=session)
    for _ in range(2):
        assert client.post("/v1/events", json={"events": [EVENT]}, headers=browser).status_code == 202
    assert [e["id"] for e in stored(upstream, session)] == [None, None]


@pytest.mark.parametrize("event_id", ["", "x" * 65, "-dash-first", "has space", "newline\n", 12])
def test_a_malformed_event_id_is_a_400(client, event_id):
    response = client.post("/v1/events", json={"events": [{**EVENT, "id": event_id}]}, headers=browser_headers(client))
    assert response.status_code == 400, response.get_data(as_text=True)
    assert response.get_json()["errors"]["json"]["events.0.id"]  # the events route reads JSON and beacons alike


def test_a_beacons_nul_character_is_a_400_naming_it_in_the_json_body(client, upstream):
    """A beacon's body is JSON sent as text/plain: its errors are the JSON body's, a NUL character (which
    PostgreSQL would refuse to store) among them; nothing is stored."""
    session = "events-nul"
    body = {"headers": browser_headers(client, session=session), "events": [{**EVENT, "path": "/\u0000"}]}
    response = client.post("/v1/events", data=json.dumps(body), content_type="text/plain;charset=UTF-8")
    assert response.status_code == 400
    assert response.get_json()["errors"] == {"json": {"events.0.path": ["Must not contain a NUL character."]}}
    assert stored(upstream, session) == []


def test_a_lone_surrogate_is_a_400_and_nothing_reaches_the_recipe_service(client, upstream):
    """JSON may escape half a UTF-16 pair (`"\\ud800"`): such a text has no UTF-8 form, so sent on, the recipe
    service could not store it and answered 500 (on either database), which the events' breaker counted."""
    session = "events-surrogate"
    body = {"events": [{**EVENT, "path": "/\ud800"}]}
    response = client.post(
        "/v1/events",
        data=json.dumps(body),
        content_type="application/json",
        headers=browser_headers(client, session=session),
    )
    assert response.status_code == 400
    assert response.get_json()["errors"] == {
        "json": {"events.0.path": ["Must not contain a lone surrogate (U+D800 to U+DFFF): it is no character."]}
    }
    assert stored(upstream, session) == []


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e309"])
def test_a_number_that_is_not_finite_is_a_400_naming_it_and_opens_no_breaker(client, upstream, number):
    """Python's JSON loader takes `NaN`, `Infinity` and `1e309` (as infinity), which no JSON body carries on: each
    was a 502 (the call to the recipe service could not be written, and was counted as its failure), and a
    burst of them opened the supplier's events breaker for every shopper. Now the caller's 400, as often as sent."""
    session = f"events-not-finite-{uuid.uuid4().hex}"
    body = json.dumps({"events": [{**EVENT, "props": {"recipe_id": "12", "score": 1.5}}]}).replace("1.5", number)
    for _ in range(30):
        response = client.post(
            "/v1/events", data=body, content_type="application/json", headers=browser_headers(client, session=session)
        )
        assert response.status_code == 400, response.get_data(as_text=True)
        assert response.get_json()["errors"] == {
            "json": {
                "events.0.props.score": [
                    "Must be a finite number: JSON has no NaN nor Infinity, and a float ends below 1.8e308."
                ]
            }
        }
    good = client.post("/v1/events", json={"events": [EVENT]}, headers=browser_headers(client, session=session))
    assert good.status_code == 202, good.get_data(as_text=True)
    assert [event["name"] for event in stored(upstream, session)] == [EVENT["name"]]


def test_a_key_given_twice_with_two_values_is_a_400_in_a_body_and_a_beacon(client, upstream):
    """Which of two values the caller meant is a guess (the last one was taken silently): refused, as a query
    parameter given twice is. The same value twice is one value."""
    session = f"events-repeated-{uuid.uuid4().hex}"
    headers = browser_headers(client, session=session)
    repeated = '{"events": [{"name": "recipe.show", "name": "recipe.display"}]}'
    answer = client.post("/v1/events", data=repeated, content_type="application/json", headers=headers)
    assert answer.status_code == 400, answer.get_data(as_text=True)
    assert answer.get_json()["errors"] == {
        "json": {
            "_schema": ["The key 'name' is given more than once in one object, with different values: give it once."]
        }
    }
    beacon = json.dumps({"headers": headers, "events": []})[:-1] + ', "events": [{"name": "recipe.show"}]}'
    answer = client.post("/v1/events", data=beacon, content_type="text/plain;charset=UTF-8")
    assert answer.status_code == 400 and "'events'" in answer.get_json()["errors"]["json"]["_schema"][0]
    # Python's == takes 1 and true as one value; JSON does not.
    number_and_boolean = '{"events": [{"name": "recipe.show", "props": {"on": 1, "on": true}}]}'
    answer = client.post("/v1/events", data=number_and_boolean, content_type="application/json", headers=headers)
    assert answer.status_code == 400 and "'on'" in answer.get_json()["errors"]["json"]["_schema"][0]
    same = '{"events": [{"name": "recipe.show", "name": "recipe.show"}]}'
    answer = client.post("/v1/events", data=same, content_type="application/json", headers=headers)
    assert answer.status_code == 202, answer.get_data(as_text=True)
    assert [event["name"] for event in stored(upstream, session)] == ["recipe.show"]


def test_beacon_headers_only_on_the_events_route(client):
    browser = browser_headers(client, user=None, authless="x", session="s")
    body = {"headers": browser, "recipe_id": "5", "guests": 4, "store_id": "1001"}
    # Another route reads no header from the body: not the credential...
    response = client.post("/v1/basket/recipes", data=json.dumps(body), content_type="application/json")
    assert response.status_code == 401 and response.mimetype == "application/problem+json"
    # ...nor the language and session.
    response = client.post(
        "/v1/basket/recipes",
        data=json.dumps(body),
        content_type="application/json",
        headers={"authorization": browser["authorization"]},
    )
    assert response.status_code == 400 and "session-id" in response.get_json()["errors"]["headers"]


def test_beacon_without_headers_is_refused(client):
    response = client.post("/v1/events", data=json.dumps({"events": [EVENT]}), content_type="text/plain")
    assert response.status_code == 401 and response.headers["WWW-Authenticate"].startswith("Bearer")
    credential_only = {"authorization": browser_headers(client)["authorization"]}
    body = {"headers": credential_only, "events": [EVENT]}
    response = client.post("/v1/events", data=json.dumps(body), content_type="text/plain")
    assert response.status_code == 400 and "session-id" in response.get_json()["errors"]["headers"]


def test_event_validation(client):
    browser = browser_headers(client)
    for events in ([], [{**EVENT, "name": "Recipe Show!"}], [EVENT] * 51, [{**EVENT, "props": {"a": {"b": 1}}}]):
        response = client.post("/v1/events", json={"events": events}, headers=browser)
        assert response.status_code == 400, events


def test_other_content_types_are_415(client):
    response = client.post(
        "/v1/events", data="events", content_type="application/x-www-form-urlencoded", headers=browser_headers(client)
    )
    assert response.status_code == 415


def test_a_shopper_past_its_event_quota_is_told_when_to_come_back_and_nothing_more_is_stored(app_config, upstream):
    """One visitor's credential cannot fill the recipe service's database (prerender/gateway/event_quota.py): past
    its quota a batch is a 429 with Retry-After, none of it stored, while another shopper's events go on."""
    client = create_app({**app_config, "EVENTS_PER_SHOPPER": 60}).test_client()
    session = f"events-quota-{uuid.uuid4().hex}"
    flooding = browser_headers(client, user=None, authless=f"flood-{uuid.uuid4().hex}", session=session)
    batch = {"events": [{**EVENT, "id": uuid.uuid4().hex} for _ in range(50)]}
    assert client.post("/v1/events", json=batch, headers=flooding).get_json() == {"stored": 50}

    refused = client.post(
        "/v1/events", json={"events": [{**EVENT, "id": uuid.uuid4().hex} for _ in range(20)]}, headers=flooding
    )
    assert refused.status_code == 429 and refused.mimetype == "application/problem+json"
    assert 1 <= int(refused.headers["Retry-After"]) <= 600
    assert refused.get_json()["status"] == 429
    assert len(stored(upstream, session)) == 50

    # What is left of the quota is still the shopper's; another shopper has its own.
    assert client.post("/v1/events", json={"events": [EVENT] * 10}, headers=flooding).get_json() == {"stored": 10}
    other = browser_headers(client, user=None, authless=f"other-{uuid.uuid4().hex}", session=session)
    assert client.post("/v1/events", json=batch, headers=other).get_json() == {"stored": 50}


def test_the_workers_of_a_redis_cache_share_a_shoppers_quota_and_the_others_count_alone(app_config):
    """Two workers (two apps on one cache configuration): with the cache in Redis, one count for both (INCRBY, one
    transaction per batch); with the default in-process cache, each its own (README.md, the quota's settings)."""
    config = {**app_config, "EVENTS_PER_SHOPPER": 60}
    first, second = create_app(config).test_client(), create_app(config).test_client()
    shopper = browser_headers(first, user=None, authless=f"two-workers-{uuid.uuid4().hex}", session="events-workers")
    assert first.post("/v1/events", json={"events": [EVENT] * 50}, headers=shopper).status_code == 202
    answer = second.post("/v1/events", json={"events": [EVENT] * 20}, headers=shopper)
    assert answer.status_code == (429 if app_config.get("CACHE_TYPE") == "RedisCache" else 202)
