"""How the shop delivers its pages and files (examples/delivery.py, examples/stylesheets.py): compressed for a
browser that accepts it, static files at versioned addresses cached a year, and prerender's sheets of what opens
on a click out of the first paint's way."""

from __future__ import annotations

import gzip
from pathlib import Path

import brotli
import pytest
from bs4 import BeautifulSoup
from flask.testing import FlaskClient

from examples.delivery import STATIC_CACHE_CONTROL, static_url_path, static_version
from examples.shop import STATIC_FOLDER
from examples.shop.views import LATER_SHEETS
from examples.stylesheets import defer_sheets, sheet_name

from .conftest import static_url

PRERENDER = "http://prerender.test/static/b/css"


def links(*names: str) -> str:
    return "".join(f'<link rel="stylesheet" href="{PRERENDER}/{name}.css">' for name in names)


def head_sheets(soup: BeautifulSoup) -> dict[str, dict[str, str]]:
    """prerender's sheets linked in <head>, by name: their attributes."""
    return {
        name: dict(link.attrs)
        for link in soup.head.find_all("link", rel="stylesheet")
        if (name := sheet_name(link["href"])) is not None
    }


@pytest.mark.parametrize(("accepted", "encoding"), [("gzip", "gzip"), ("br, gzip", "br")])
def test_the_shelf_is_sent_compressed(shop_client: FlaskClient, accepted: str, encoding: str):
    response = shop_client.get("/", headers={"Accept-Encoding": accepted})
    assert response.status_code == 200
    assert response.headers["Content-Encoding"] == encoding
    assert "Accept-Encoding" in response.headers["Vary"]
    body = response.get_data()
    html = gzip.decompress(body) if encoding == "gzip" else brotli.decompress(body)
    assert len(body) < len(html) / 4
    soup = BeautifulSoup(html, "html5lib")
    assert len(soup.select("ul.shelf article.product")) >= 12
    assert soup.find("svc-recipe-card") is not None


def test_a_browser_that_accepts_no_compression_gets_the_page_as_it_is(shop_client: FlaskClient):
    response = shop_client.get("/", headers={"Accept-Encoding": "identity"})
    assert response.status_code == 200 and "Content-Encoding" not in response.headers
    assert BeautifulSoup(response.get_data(as_text=True), "html5lib").select("ul.shelf article.product")


def test_the_shops_files_are_at_versioned_addresses_cached_a_year(shop_client: FlaskClient):
    soup = BeautifulSoup(shop_client.get("/").get_data(as_text=True), "html5lib")
    css = soup.head.find("link", rel="stylesheet", href=lambda href: href.endswith("/shop.css"))["href"]
    assert css == static_url("shop.css") == f"/static/{static_version(STATIC_FOLDER)}/shop.css"
    response = shop_client.get(css, headers={"Accept-Encoding": "gzip"})
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == STATIC_CACHE_CONTROL
    assert response.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(response.get_data()) == (STATIC_FOLDER / "shop.css").read_bytes()
    # The page's own modules share that folder, so their relative imports (./svc-setup.js) name the same address.
    own = [s["src"] for s in soup.find_all("script", src=True) if not s["src"].startswith("http")]
    assert static_url("svc-setup.js") in own
    assert all(src.startswith(f"{static_url_path(STATIC_FOLDER)}/") for src in own)
    # The unversioned address is no address of the shop's files.
    assert shop_client.get("/static/shop.css").status_code == 404


def test_the_version_follows_the_files_contents(tmp_path: Path):
    (tmp_path / "a.css").write_text("a { color: red }")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.js").write_text("export {};")
    first = static_version(tmp_path)
    assert first == static_version(tmp_path)
    (tmp_path / "sub" / "b.js").write_text("export const b = 1;")
    assert static_version(tmp_path) != first


def test_the_shelf_loads_the_drawers_sheets_without_blocking_its_first_paint(shop_client: FlaskClient):
    soup = BeautifulSoup(shop_client.get("/").get_data(as_text=True), "html5lib")
    sheets = head_sheets(soup)
    assert {"base", "recipe-card", "like-button", "drawer", "recipe-details"} <= set(sheets)
    for name, attrs in sheets.items():
        if name in LATER_SHEETS:
            assert (attrs.get("media"), attrs.get("onload")) == ("print", "this.media='all'"), name
            assert soup.head.find("link", rel="preload", href=attrs["href"]) is not None, name
        else:
            assert "media" not in attrs and "onload" not in attrs, name
    # shop.js waits for the document; the class its styles read is set before the first paint.
    shop_js = soup.head.find("script", src=static_url("shop.js"))
    assert shop_js.has_attr("defer")
    assert 'classList.add("js")' in soup.head.find("script", src=False).string


def test_defer_sheets_keeps_the_order_and_every_other_link_as_it_came():
    html = links("base", "recipe-card", "drawer", "recipe-details") + '<link rel="preload" href="/x.css">'
    soup = BeautifulSoup(defer_sheets(html, {"drawer", "recipe-details"}), "html5lib")
    found = [link for link in soup.find_all("link") if link["rel"] != ["preload"] or link["href"] == "/x.css"]
    assert [link["href"] for link in found] == [
        f"{PRERENDER}/base.css",
        f"{PRERENDER}/recipe-card.css",
        f"{PRERENDER}/drawer.css",
        f"{PRERENDER}/recipe-details.css",
        "/x.css",
    ]
    assert [link.get("media") for link in found] == [None, None, "print", "print", None]
    # each deferred sheet is fetched at once (a preload of its address before it)
    preloads = [link["href"] for link in soup.find_all("link", rel="preload") if link.get("as") == "style"]
    assert preloads == [f"{PRERENDER}/drawer.css", f"{PRERENDER}/recipe-details.css"]
    assert defer_sheets(links("base", "recipe-card"), {"drawer"}) == links("base", "recipe-card")
    assert defer_sheets("", {"drawer"}) == ""


def test_defer_sheets_escapes_the_address():
    html = '<link rel="stylesheet" href="http://p.test/css/drawer.css?a=1&amp;b=&quot;2&quot;">'
    preload, link = BeautifulSoup(defer_sheets(html, {"drawer"}), "html5lib").find_all("link")
    assert preload["href"] == link["href"] == 'http://p.test/css/drawer.css?a=1&b="2"'
    assert link["media"] == "print"
