"""GET /static/<build>/<path> (prerender/blueprints/static_files.py) from the release tree (`make static`): the
precompressed brotli or gzip sibling as the request's Accept-Encoding allows, with its own ETag and length, `Vary:
Accept-Encoding` and the immutable cache headers; the readable tree's files as they are when no release is built;
the same files under a configuration segment, to which the older query form is redirected."""

from __future__ import annotations

import base64
import gzip
from urllib.parse import parse_qsl

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from prerender.rendering.assets import (
    BUILD_DIR,
    EXTENSION_KEY,
    SOURCE_DIR,
    AssetManifest,
    config_segment,
    read_tree,
)

NAME = "sdk/svc.js"


@pytest.fixture
def url(app: Flask) -> str:
    assets: AssetManifest = app.extensions[EXTENSION_KEY]
    assert assets.root == BUILD_DIR, "the release tree is not served: run `make static`"
    return f"/static/{assets.build_id}/{NAME}"


def get(client: FlaskClient, url: str, accept_encoding: str | None, **headers: str) -> TestResponse:
    if accept_encoding is not None:
        headers["Accept-Encoding"] = accept_encoding
    return client.get(url, headers=headers)


def assert_cached_for_a_year(response: TestResponse) -> None:
    assert response.cache_control.public and response.cache_control.immutable
    assert response.cache_control.max_age == 365 * 24 * 3600
    assert response.headers["Access-Control-Allow-Origin"] == "*"


@pytest.mark.parametrize(
    ("accept_encoding", "coding"),
    [
        ("gzip, deflate, br, zstd", "br"),  # Chromium's
        ("br;q=0.5, gzip", "gzip"),  # the higher quality wins
        ("gzip, br", "br"),  # at equal quality, brotli
        ("gzip", "gzip"),
        ("*", "br"),
        ("br;q=0, gzip", "gzip"),  # q=0 refuses
        ("br;q=0, gzip;q=0", None),
        ("identity", None),
        ("", None),
        (None, None),
    ],
)
def test_the_accepted_sibling_is_sent_with_the_file_s_type(
    client: FlaskClient, url: str, accept_encoding: str | None, coding: str | None
):
    response = get(client, url, accept_encoding)
    assert response.status_code == 200 and response.mimetype == "text/javascript"
    assert response.headers.get("Content-Encoding") == coding
    suffix = {"br": ".br", "gzip": ".gz", None: ""}[coding]
    assert response.data == (BUILD_DIR / (NAME + suffix)).read_bytes()
    assert response.headers["Content-Length"] == str(len(response.data))
    assert response.headers.getlist("Vary") == ["Accept-Encoding"]
    assert_cached_for_a_year(response)


def test_the_gzip_sibling_is_the_file(client: FlaskClient, url: str):
    plain, compressed = get(client, url, None), get(client, url, "gzip")
    assert gzip.decompress(compressed.data) == plain.data and len(compressed.data) < len(plain.data) / 2


def test_each_variant_has_its_etag_and_answers_its_304(client: FlaskClient, url: str):
    variants = {coding: get(client, url, coding) for coding in ("br", "gzip", "identity")}
    etags = {coding: response.headers["ETag"] for coding, response in variants.items()}
    assert len(set(etags.values())) == 3
    for coding, etag in etags.items():
        again = get(client, url, coding, **{"If-None-Match": etag})
        assert again.status_code == 304 and not again.data
        assert again.headers["ETag"] == etag and again.headers.getlist("Vary") == ["Accept-Encoding"]
        assert_cached_for_a_year(again)
    # Another variant's ETag is not this one's: the whole answer.
    assert get(client, url, "br", **{"If-None-Match": etags["gzip"]}).status_code == 200


def test_head_answers_the_variant_s_headers_without_a_body(client: FlaskClient, url: str):
    for coding in ("br", "gzip"):
        full, head = get(client, url, coding), client.head(url, headers={"Accept-Encoding": coding})
        assert head.status_code == 200 and not head.data
        for header in ("Content-Encoding", "Content-Length", "ETag", "Vary", "Cache-Control", "Content-Type"):
            assert head.headers[header] == full.headers[header]


def test_siblings_the_digest_file_other_builds_and_bundled_modules_are_not_found(client: FlaskClient, url: str):
    build = url.split("/")[2]
    for name in (f"{NAME}.gz", f"{NAME}.br", "source-digest", "sdk/http.js"):
        response = client.get(f"/static/{build}/{name}", headers={"Accept-Encoding": "gzip, br"})
        assert response.status_code == 404 and response.mimetype == "application/problem+json", name
    other = client.get(url.replace(build, "0" * 12), headers={"Accept-Encoding": "gzip, br"})
    assert other.status_code == 404


def test_the_readable_tree_is_served_as_it_is(app: Flask, client: FlaskClient):
    """Without a release build (the warning's case), no sibling: the file itself, and no Vary."""
    assets: AssetManifest = app.extensions[EXTENSION_KEY]
    sources = read_tree(SOURCE_DIR)
    app.extensions[EXTENSION_KEY] = AssetManifest(
        tree=sources, static_url=assets.static_url, api_url=assets.api_url, element_prefix=assets.element_prefix
    )
    response = get(client, f"/static/{sources.build_id}/sdk/http.js", "gzip, br")
    assert response.status_code == 200 and "Content-Encoding" not in response.headers
    assert response.data == (SOURCE_DIR / "sdk" / "http.js").read_bytes()
    assert "Vary" not in response.headers
    assert_cached_for_a_year(response)


def segment_of(query: str) -> str:
    """A configuration segment as the browser modules read it (sdk/config.js): `~`, base64url, no padding."""
    return "~" + base64.urlsafe_b64encode(query.encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    "query", ["prefix=acme", "api=https%3A%2F%2Ffragments.example", "prefix=acme&api=https%3A%2F%2Ffragments.example"]
)
def test_a_configuration_segment_serves_the_same_file(client: FlaskClient, url: str, query: str):
    build = url.split("/")[2]
    plain = get(client, url, "br")
    configured = get(client, f"/static/{build}/{segment_of(query)}/{NAME}", "br")
    assert configured.status_code == 200 and configured.data == plain.data
    assert configured.headers["Content-Encoding"] == "br" and configured.headers["ETag"] == plain.headers["ETag"]
    assert_cached_for_a_year(configured)
    assert config_segment(dict(parse_qsl(query))) == segment_of(query)  # the one the fragments write


@pytest.mark.parametrize(
    "segment",
    [
        segment_of("prefix=Acme"),  # not an element prefix
        segment_of("prefix=acme&colour=red"),  # another key
        segment_of("prefix=acme&prefix=other"),
        segment_of("api=javascript%3Aalert(1)"),
        segment_of("api=https%3A%2F%2Fx.example%2F%3Fa%3D1"),  # an API base has no query
        segment_of(""),
        segment_of("prefix=acme") + "==",  # another spelling of a valid one
        "~not base64!",
        "~" + "A" * 600,
    ],
)
def test_a_segment_that_is_not_a_configuration_is_not_found(client: FlaskClient, url: str, segment: str):
    build = url.split("/")[2]
    response = client.get(f"/static/{build}/{segment}/{NAME}")
    assert response.status_code == 404 and response.mimetype == "application/problem+json"


def test_the_query_form_of_a_configuration_is_redirected_to_its_segment(client: FlaskClient, url: str):
    """Pages written by hand with the older URL (`svc.js?prefix=acme&api=...`, docs/sdk.md) keep working: the
    module is loaded from the segment's URL (a module's URL is the one it was redirected to), so the modules it
    imports are loaded under the same configuration."""
    build = url.split("/")[2]
    response = client.get(f"{url}?api=https%3A%2F%2Ffragments.example&prefix=acme&v=2")
    assert response.status_code == 308
    target = f"/static/{build}/{segment_of('prefix=acme&api=https%3A%2F%2Ffragments.example')}/{NAME}"
    assert response.location == target
    assert response.headers["Access-Control-Allow-Origin"] == "*"  # module scripts are fetched with CORS
    assert client.get(response.location).status_code == 200


@pytest.mark.parametrize("query", ["prefix=svc", "prefix=Bad%20Prefix", "api=ftp%3A%2F%2Fx", "v=2", ""])
def test_a_query_without_a_valid_configuration_is_ignored(client: FlaskClient, url: str, query: str):
    """The default prefix and invalid values are the default configuration, served at the URL as asked."""
    response = client.get(f"{url}?{query}")
    assert response.status_code == 200 and response.data == client.get(url).data


def test_an_unknown_file_under_a_segment_or_a_query_is_not_found(client: FlaskClient, url: str):
    build = url.split("/")[2]
    for path in (
        f"/static/{build}/{segment_of('prefix=acme')}/sdk/http.js",
        f"/static/{build}/sdk/http.js?prefix=acme",
    ):
        response = client.get(path)
        assert response.status_code == 404 and response.mimetype == "application/problem+json", path
