"""GET /openapi.json is served from bytes made once per process (prerender/blueprints/openapi.py): a strong
ETag, a 304 to a client that has the document, public for every cache. Re-serializing it per request cost tens
of milliseconds of CPU, and clients pipelining it starved /healthz (issue 22)."""

from __future__ import annotations

import json

import pytest
from flask import Flask
from flask.json.provider import DefaultJSONProvider

from prerender.web import openapi as openapi_builder


def test_the_document_has_a_strong_etag_and_public_cache_control(client) -> None:
    response = client.get("/openapi.json")
    assert response.status_code == 200 and response.mimetype == "application/json"
    assert response.get_json()["openapi"].startswith("3.")
    etag = response.headers["ETag"]
    assert etag.startswith('"') and not etag.startswith("W/")
    assert "public" in response.headers["Cache-Control"]
    assert "private" not in response.headers["Cache-Control"]


def test_a_client_that_has_the_document_gets_a_304(client) -> None:
    first = client.get("/openapi.json")
    again = client.get("/openapi.json", headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and again.data == b""
    assert again.headers["ETag"] == first.headers["ETag"]
    stale = client.get("/openapi.json", headers={"If-None-Match": '"an-older-document"'})
    assert stale.status_code == 200 and stale.data == first.data


def test_every_answer_is_the_same_bytes_built_and_serialized_once(
    app: Flask, client, monkeypatch: pytest.MonkeyPatch
) -> None:
    builds: list[object] = []
    serializations: list[object] = []
    real_build, real_dumps = openapi_builder.build_spec, DefaultJSONProvider.dumps
    monkeypatch.setattr(
        "prerender.blueprints.openapi.build_spec", lambda app, **kw: builds.append(app) or real_build(app, **kw)
    )
    monkeypatch.setattr(
        DefaultJSONProvider, "dumps", lambda self, obj, **kw: serializations.append(obj) or real_dumps(self, obj, **kw)
    )
    bodies = {client.get("/openapi.json").data for _ in range(3)}
    assert len(bodies) == 1 and json.loads(bodies.pop())["paths"]
    assert len(builds) == 1
    assert len([obj for obj in serializations if isinstance(obj, dict) and "openapi" in obj]) == 1
