"""Readiness against the real upstream."""
from __future__ import annotations


def test_readyz_with_the_real_upstream(client):
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.get_json() == {"status": "ready", "checks": {"upstream": "ok", "cache": "ok"}}


def test_healthz(client):
    assert client.get("/healthz").get_json() == {"status": "ok"}
