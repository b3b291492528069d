"""The eleven styles routes: {links, html}, absolute hashed links that serve text/css."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from bs4 import BeautifulSoup

from prerender.rendering.stylesheets import STYLE_BUNDLES

from .conftest import headers

SPEC_ROUTES = [
    "",
    "/base",
    "/recipe-card",
    "/catalog",
    "/catalog/catalog-home",
    "/catalog/catalog-category",
    "/catalog/catalog-favorites",
    "/catalog/catalog-list",
    "/catalog/my-space",
    "/planner",
    "/planner/planner-entry",
]


def test_the_table_covers_exactly_the_spec_routes():
    assert {f"/{name}" for name in STYLE_BUNDLES} == set(SPEC_ROUTES) - {""}


@pytest.mark.parametrize("version", ["v1", "v2"])
@pytest.mark.parametrize("route", SPEC_ROUTES)
def test_styles_route(client, version, route):
    response = client.get(f"/{version}/styles{route}", headers=headers())
    assert response.status_code == 200
    body = response.get_json()
    links = body["links"]
    assert links and all(urlsplit(link).scheme == "http" and urlsplit(link).netloc for link in links)
    tags = BeautifulSoup(body["html"], "html5lib").find_all("link")
    assert [(tag["rel"], tag["href"]) for tag in tags] == [(["stylesheet"], link) for link in links]
    for link in links:
        sheet = client.get(urlsplit(link).path)
        assert sheet.status_code == 200 and sheet.mimetype == "text/css"
        assert sheet.headers["Cache-Control"].count("immutable") == 1
        assert len(sheet.data) > 200  # a real stylesheet, not an empty file


def sheet_names(client, route: str) -> list[str]:
    links = client.get(f"/v1/styles{route}", headers=headers()).get_json()["links"]
    return [link.rsplit("/", 1)[1].removesuffix(".css") for link in links]


def test_component_routes_include_their_sub_components(client):
    assert {"recipe-card", "like-button", "drawer", "recipe-details"} <= set(sheet_names(client, "/recipe-card"))
    assert set(sheet_names(client, "/recipe-card")) <= set(sheet_names(client, "/catalog"))
    home = set(sheet_names(client, "/catalog/catalog-home"))
    assert {"recipe-card", "planner-entry", "catalog-home"} <= home
    planner = set(sheet_names(client, "/planner"))
    assert {"drawer", "catalog-list", "breadcrumb", "planner-entry", "quick-menu", "planner"} <= planner
    assert "base" not in planner and sheet_names(client, "/base") == ["base"]
    assert sheet_names(client, "")[0] == "base"


def test_links_change_with_the_content(client, app):
    link = client.get("/v1/styles/base", headers=headers()).get_json()["links"][0]
    build = app.extensions["prerender.rendering.assets"].build_id
    assert f"/static/{build}/css/base.css" in link
    assert client.get(urlsplit(link).path.replace(build, "000000000000")).status_code == 404


def test_unknown_component_is_a_404_problem(client):
    response = client.get("/v1/styles/nothing", headers=headers())
    assert response.status_code == 404 and response.mimetype == "application/problem+json"


def test_cdn_url_moves_the_links(app_config):
    from prerender import create_app

    app = create_app({**app_config, "CDN_URL": "https://cdn.example/prerender"})
    links = app.test_client().get("/v1/styles/base", headers=headers()).get_json()["links"]
    assert links[0].startswith("https://cdn.example/prerender/static/")
