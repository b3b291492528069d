"""/healthz and /readyz say which release the worker runs (prerender/rendering/release.py; docs/operations.md, "A new
release", step 6): the installed distribution's version and the build id of the static files it serves, both as read
at start."""

from __future__ import annotations

import importlib.metadata
import re

import pytest
from flask import Flask
from flask.testing import FlaskClient

from prerender.rendering.assets import EXTENSION_KEY, AssetManifest
from tests.conftest import HEADERS

SCRIPT_BUILD = re.compile(r'<script type="module" src="http://localhost/static/([0-9a-f]{12})/sdk/svc\.js">')


@pytest.mark.parametrize("path", ["/healthz", "/readyz"])
def test_the_health_answers_say_which_release_runs(app: Flask, client: FlaskClient, path: str):
    manifest: AssetManifest = app.extensions[EXTENSION_KEY]
    version = client.get(path).get_json()["version"]
    assert version == {"package": importlib.metadata.version("prerender"), "static_build": manifest.build_id}
    # The build id the fragments' script URLs carry.
    (linked,) = SCRIPT_BUILD.findall(client.get("/v2/svc-window-bootstrap", headers=HEADERS).text)
    assert version["static_build"] == linked


def test_the_package_version_is_the_one_read_at_start(client: FlaskClient, monkeypatch: pytest.MonkeyPatch):
    """The distribution's metadata installed in place after the start (the next release's) is not what runs."""
    started = client.get("/healthz").get_json()["version"]["package"]
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "99.0.0")
    assert client.get("/healthz").get_json()["version"]["package"] == started != "99.0.0"


def test_the_release_follows_the_specifications_release_line(client: FlaskClient):
    """The specification numbers the service's releases major.minor.patch, the latest listed 2.8.0; the package,
    /healthz and the OpenAPI document's info.version say the one this process runs, alike."""
    package = client.get("/healthz").get_json()["version"]["package"]
    assert client.get("/openapi.json").get_json()["info"]["version"] == package
    major, minor, patch = (int(part) for part in package.split("."))
    assert (major, minor, patch) >= (2, 8, 0)


def test_the_openapi_document_describes_the_release(client: FlaskClient):
    document = client.get("/openapi.json").get_json()
    release = document["components"]["schemas"]["Release"]
    assert set(release["required"]) == {"package", "static_build"}
    health = document["components"]["schemas"]["Health"]
    assert "version" in health["required"] and health["properties"]["version"] == {
        "$ref": "#/components/schemas/Release"
    }
    for path in ("/healthz", "/readyz"):
        answer = document["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
        assert answer == {"$ref": "#/components/schemas/Health"}
