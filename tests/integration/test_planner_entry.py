"""GET /v2/planner/entry against the live coreapi: the markup of the class contract (docs/styles.md,
"planner-entry.css" and "planner-onboarding.css"), its texts, the destination computed from the supplier's
routing (coreapi/seed/data/suppliers.json), disabled modes without one, caching and the shopper's credential."""

from __future__ import annotations

import json
import logging
import re
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from bs4 import BeautifulSoup, Tag
from flask import Flask
from flask.testing import FlaskClient

from prerender import create_app
from prerender.gateway import Routing, Supplier
from prerender.rendering.i18n import TextCatalog
from prerender.rendering.planner import GUESTS_DEFAULT, GUESTS_MAX, GUESTS_MIN, mode_url, planner_destination
from prerender.web.admission import EXTENSION_KEY
from tests.faulty_upstream import FaultyUpstream, status

from .conftest import as_browser, browser_headers, credential_in, headers, record_upstream_calls

ROOT = Path(__file__).resolve().parents[2]
STYLES_DOC = (ROOT / "docs" / "styles.md").read_text(encoding="utf-8")
FR = TextCatalog(overrides_dir=None).translator("fr")
EN = TextCatalog(overrides_dir=None).translator("en")
ENTRY = "/v2/planner/entry"
# The seed's routing for the environment `local` (ENVIRONMENT, prerender/config.py).
CURRENT_MENU = "http://127.0.0.1:8080/planner/current-menu"
# Classes of the contract that only name a variant for the retailer's own rules: the default look is the
# element's (the custom mode is the plain one, the selection mode the primary one).
HOOKS = {"svc-planner-entry__mode--custom"}


def get_entry(client: FlaskClient, hdrs: dict[str, str] | None = None, **query: str):
    return client.get(ENTRY, query_string=query, headers=hdrs or headers())


def soup_of(response) -> BeautifulSoup:
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.mimetype == "text/html"
    return BeautifulSoup(response.get_data(as_text=True), "html.parser")


def entry_of(soup: BeautifulSoup) -> Tag:
    entry = soup.find("svc-planner-entry")
    assert isinstance(entry, Tag)
    return entry


def one(root: Tag, selector: str) -> Tag:
    found = root.select(selector)
    assert len(found) == 1, f"{selector}: {len(found)} elements"
    return found[0]


def text(tag: Tag) -> str:
    """The tag's text, ASCII white space collapsed (the no-break spaces of French texts kept)."""
    return re.sub(r"[ \t\n\r\f\v]+", " ", tag.get_text(" ", strip=True)).strip()


def modes(soup: BeautifulSoup) -> dict[str, Tag]:
    return {str(mode["data-mode"]): mode for mode in soup.select(".svc-planner-entry__mode")}


def app_with(app_config: dict, **config: object) -> Flask:
    return create_app({**app_config, **config})


# --- markup ---------------------------------------------------------------------------------------


def test_the_entry_follows_the_class_contract(client) -> None:
    soup = soup_of(get_entry(client, store_id="1001"))
    entry = entry_of(soup)
    assert entry["class"] == ["svc-ds-scope", "svc-planner-entry"]
    assert entry["lang"] == "fr" and entry["store-id"] == "1001"
    assert (entry["guests"], entry["min-guests"], entry["max-guests"]) == (
        str(GUESTS_DEFAULT),
        str(GUESTS_MIN),
        str(GUESTS_MAX),
    )
    inner = one(entry, ":scope > .svc-planner-entry__inner")

    header = one(inner, ":scope > .svc-planner-entry__header")
    title = one(header, "h2.svc-planner-entry__title.svc-ds-heading-2")
    assert text(title) == FR("PLANNER_ENTRY.TITLE")
    help_button = one(header, "button.svc-planner-entry__help.svc-ds-link.svc-ds-link--hit-area")
    assert help_button["type"] == "button" and text(help_button) == FR("PLANNER_ENTRY.HOW_IT_WORKS")
    assert help_button["aria-haspopup"] == "dialog" and help_button["aria-expanded"] == "false"
    onboarding = soup.find(id=help_button["aria-controls"])
    assert isinstance(onboarding, Tag) and onboarding.name == "svc-planner-onboarding"

    guests = one(inner, ":scope > .svc-planner-entry__guests")
    assert text(one(guests, ".svc-planner-entry__guests-label")) == FR("PLANNER_ENTRY.GUESTS_LABEL")
    stepper = one(guests, ".svc-ds-stepper")
    assert stepper["role"] == "group" and stepper["aria-label"] == FR("PLANNER_ENTRY.GUESTS_LABEL")
    decrease, increase = stepper.select("button.svc-ds-stepper__button")
    assert decrease["aria-label"] == FR("PLANNER_ENTRY.DECREASE_GUESTS")
    assert increase["aria-label"] == FR("PLANNER_ENTRY.INCREASE_GUESTS")
    assert not decrease.has_attr("disabled") and not increase.has_attr("disabled")  # 4 is inside 1..12
    assert text(one(stepper, ".svc-ds-stepper__value")) == str(GUESTS_DEFAULT)
    assert one(guests, "[data-role=guests-status]")["role"] == "status"

    box = one(inner, ":scope > .svc-planner-entry__modes")
    buttons = box.select(":scope > button.svc-planner-entry__mode")
    assert [b["class"][-1] for b in buttons] == [
        "svc-planner-entry__mode--selection",
        "svc-planner-entry__mode--custom",
    ]
    for button, (title_key, subtitle_key) in zip(
        buttons,
        [("SELECTION", "SELECTION_SUBTITLE"), ("CUSTOM", "CUSTOM_SUBTITLE")],
        strict=True,
    ):
        assert button["type"] == "submit" and not button.has_attr("disabled")
        icon = one(button, ":scope > .svc-planner-entry__mode-icon.svc-ds-icon-disc")
        assert icon.select_one("svg.svc-ds-icon[aria-hidden=true]") is not None
        body = one(button, ":scope > .svc-planner-entry__mode-text")
        assert text(one(body, ".svc-planner-entry__mode-title")) == FR(f"PLANNER_MENU_OPTION.{title_key}")
        assert text(one(body, ".svc-planner-entry__mode-subtitle")) == FR(f"PLANNER_MENU_OPTION.{subtitle_key}")
        assert one(button, ":scope > svg.svc-ds-icon.svc-planner-entry__mode-chevron")["aria-hidden"] == "true"
    # The storage notice is there, hidden until the browser finds no localStorage; no "unavailable" notice.
    assert one(inner, "[data-role=storage-required]").has_attr("hidden")
    assert inner.select("[data-role=unavailable]") == []
    assert not entry.has_attr("unavailable")


def test_the_onboarding_modal_is_in_the_fragment_hidden(client) -> None:
    soup = soup_of(get_entry(client, store_id="1001"))
    modal = soup.find("svc-planner-onboarding")
    assert isinstance(modal, Tag)
    assert modal.find_parent("svc-planner-entry") is None  # out of the entry's size container
    assert modal["class"] == ["svc-ds-scope", "svc-planner-onboarding"] and modal.has_attr("hidden")
    modal_id = str(modal["id"])
    one(modal, ":scope > .svc-planner-onboarding__backdrop")
    dialog = one(modal, ":scope > .svc-planner-onboarding__dialog")
    assert dialog["role"] == "dialog" and dialog["aria-modal"] == "true"
    assert dialog["aria-labelledby"] == f"{modal_id}-title-1" and dialog["aria-describedby"] == f"{modal_id}-text-1"
    close = one(dialog, "button.svc-planner-onboarding__close")
    assert close["aria-label"] == FR("PLANNER_ONBOARDING.CLOSE")
    steps = dialog.select(".svc-planner-onboarding__step")
    assert len(steps) == 3
    for number, step in enumerate(steps, start=1):
        assert step.has_attr("hidden") == (number > 1)
        one(step, ".svc-planner-onboarding__picture")
        title = one(step, "h2.svc-planner-onboarding__title.svc-ds-heading-2")
        assert title["id"] == f"{modal_id}-title-{number}"
        assert text(title) == FR(f"PLANNER_ONBOARDING.STEP_{number}_TITLE")
        body = one(step, "p.svc-planner-onboarding__text")
        assert body["id"] == f"{modal_id}-text-{number}"
        assert text(body) == FR(f"PLANNER_ONBOARDING.STEP_{number}_TEXT")
    nav = one(dialog, ".svc-planner-onboarding__nav")
    previous = one(nav, "[data-action=previous]")
    assert previous.has_attr("disabled") and text(previous) == FR("PLANNER_ONBOARDING.PREVIOUS")
    assert text(one(nav, "[data-action=next]")) == FR("PLANNER_ONBOARDING.NEXT")
    done = one(nav, "[data-action=done]")
    assert done.has_attr("hidden") and text(done) == FR("PLANNER_ONBOARDING.UNDERSTOOD")
    dots = nav.select("ol.svc-planner-onboarding__dots > li.svc-planner-onboarding__dot")
    assert [("svc-planner-onboarding__dot--active" in d["class"], d.get("aria-current")) for d in dots] == [
        (True, "step"),
        (False, None),
        (False, None),
    ]
    assert [text(d) for d in dots] == [FR("PLANNER_ONBOARDING.STEP", number=n, count=3) for n in (1, 2, 3)]


def sheets_of(client: FlaskClient, route: str) -> str:
    links = client.get(f"/v2/styles{route}", headers=headers()).get_json()["links"]
    return "".join(client.get(urlsplit(link).path).get_data(as_text=True) for link in links)


def test_every_class_is_documented_and_styled_by_base_and_the_entry_route(client) -> None:
    """The fragment is fully styled by /styles/base + /styles/planner/planner-entry (the modal included), and
    each of its classes is in the class contract (docs/styles.md)."""
    soup = soup_of(get_entry(client, store_id="1001"))
    classes = {name for tag in soup.find_all(class_=True) for name in tag["class"]}
    css = sheets_of(client, "/base") + sheets_of(client, "/planner/planner-entry")
    unstyled = sorted(name for name in classes - HOOKS if not re.search(rf"\.{re.escape(name)}(?![\w-])", css))
    assert not unstyled, f"classes without a rule in base + planner-entry routes: {unstyled}"
    undocumented = sorted(name for name in classes if not documented(name))
    assert not undocumented, f"classes missing from docs/styles.md: {undocumented}"


def documented(name: str) -> bool:
    """A class is in docs/styles.md by its full name, or by its BEM part after the block (`__x`, `--x`), the
    tables' shorthand."""
    if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", STYLES_DOC):
        return True
    cut = name.find("__") if "__" in name else name.find("--")
    return cut > 0 and f"`{name[cut:]}`" in STYLES_DOC


def test_the_entry_styles_route_serves_the_modal_sheet_too(client) -> None:
    for route in ("/planner/planner-entry", "/planner", "/catalog/catalog-home"):
        links = client.get(f"/v2/styles{route}", headers=headers()).get_json()["links"]
        names = [link.rsplit("/", 1)[1].removesuffix(".css") for link in links]
        assert names.index("planner-onboarding") == names.index("planner-entry") + 1, route


def test_the_fragment_ends_with_its_module_scripts(client) -> None:
    soup = soup_of(get_entry(client, store_id="1001"))
    sources = [str(script["src"]) for script in soup.find_all("script")]
    assert all(soup.find_all("script")[i]["type"] == "module" for i in range(len(sources)))
    assert [urlsplit(src).path.split("/", 3)[3] for src in sources] == [
        "sdk/svc.js",
        "components/planner-entry.js",
    ]
    for src in sources:
        module = client.get(urlsplit(src).path)
        assert module.status_code == 200 and "javascript" in module.mimetype


def test_the_entry_asks_the_upstream_for_the_supplier_the_stores_and_the_shoppers_preferences(
    app, client, monkeypatch
) -> None:
    calls = record_upstream_calls(app, monkeypatch)
    soup_of(get_entry(client, store_id="1001"))
    assert {path for _, path, _ in calls} <= {"/api/v1/suppliers/me", "/api/v1/stores", "/api/v1/preferences"}
    assert [path for _, path, _ in calls].count("/api/v1/preferences") == 1
    # A supplier with personalization off has no preferences to read.
    calls.clear()
    soup_of(get_entry(client, headers(token="demo-nopers-token"), store_id="1001"))
    assert {path for _, path, _ in calls} <= {"/api/v1/suppliers/me", "/api/v1/stores"}


def test_the_stepper_starts_from_the_shoppers_preferred_guests(client) -> None:
    """The number of people of the shopper's preferences (the catalog's panel) is where the stepper starts; the
    browser lets it win over a count an earlier visit stored (`preferred-guests`)."""
    user = f"entry-prefers-{uuid.uuid4().hex[:12]}"
    assert not entry_of(soup_of(get_entry(client, headers(user=user)))).has_attr("preferred-guests")
    saved = client.put("/v2/preferences", json={"guests": 2}, headers=browser_headers(client, user=user))
    assert saved.status_code == 200, saved.get_data(as_text=True)
    entry = entry_of(soup_of(get_entry(client, headers(user=user), store_id="1001")))
    assert (entry["guests"], entry["preferred-guests"]) == ("2", "2")
    assert text(one(entry, ".svc-ds-stepper__value")) == "2"
    # Without a guest count in them, the default.
    client.put("/v2/preferences", json={"diets": ["vegetarien"]}, headers=browser_headers(client, user=user))
    entry = entry_of(soup_of(get_entry(client, headers(user=user))))
    assert entry["guests"] == str(GUESTS_DEFAULT) and not entry.has_attr("preferred-guests")


def test_the_catalog_homes_entry_starts_from_the_preferences_the_page_read(app, client, monkeypatch) -> None:
    """The v2 catalog home holds the entry: it reads the shopper's preferences once, for its lists and its entry."""
    user = f"home-prefers-{uuid.uuid4().hex[:12]}"
    saved = client.put("/v2/preferences", json={"guests": 3}, headers=browser_headers(client, user=user))
    assert saved.status_code == 200, saved.get_data(as_text=True)
    calls = record_upstream_calls(app, monkeypatch)
    home = soup_of(client.get("/v2/catalog", query_string={"store_id": "1001"}, headers=headers(user=user)))
    entry = entry_of(home)
    assert (entry["guests"], entry["preferred-guests"]) == ("3", "3")
    assert [path for _, path, _ in calls].count("/api/v1/preferences") == 1


def test_unreadable_preferences_do_not_stop_the_entry(app_config: dict, coreapi_url: str) -> None:
    with FaultyUpstream(coreapi_url, {"/api/v1/preferences": status(503)}) as proxy:
        client = app_with(app_config, UPSTREAM_URL=proxy.url, UPSTREAM_RETRIES=0).test_client()
        entry = entry_of(soup_of(get_entry(client, store_id="1001")))
        assert proxy.failed == ["/api/v1/preferences"]
    assert entry["guests"] == str(GUESTS_DEFAULT) and not entry.has_attr("preferred-guests")
    assert all(mode.get("data-href") for mode in entry.select("[data-mode]"))


# --- texts ----------------------------------------------------------------------------------------


def test_english_texts(client) -> None:
    soup = soup_of(get_entry(client, headers(language="en"), store_id="1001"))
    entry = entry_of(soup)
    assert entry["lang"] == "en"
    assert text(one(entry, ".svc-planner-entry__title")) == EN("PLANNER_ENTRY.TITLE")
    assert text(one(entry, ".svc-planner-entry__help")) == EN("PLANNER_ENTRY.HOW_IT_WORKS")
    assert one(entry, "[data-action=guests-increase]")["aria-label"] == EN("PLANNER_ENTRY.INCREASE_GUESTS")
    assert text(one(entry, ".svc-planner-entry__mode--custom .svc-planner-entry__mode-title")) == EN(
        "PLANNER_MENU_OPTION.CUSTOM"
    )
    assert text(soup.select(".svc-planner-onboarding__title")[0]) == EN("PLANNER_ONBOARDING.STEP_1_TITLE")
    assert EN("PLANNER_ENTRY.TITLE") != FR("PLANNER_ENTRY.TITLE")


def test_a_retailer_override_replaces_its_keys_only(app_config: dict, tmp_path: Path) -> None:
    (tmp_path / "fr-demo.json").write_text(
        json.dumps(
            {
                "PLANNER_ENTRY": {"TITLE": "Vos menus de la semaine"},
                "PLANNER_MENU_OPTION": {"SELECTION": "Menu surprise"},
                "PLANNER_ONBOARDING": {"UNDERSTOOD": "C'est parti"},
            }
        ),
        encoding="utf-8",
    )
    client = app_with(app_config, I18N_OVERRIDES_DIR=str(tmp_path)).test_client()
    soup = soup_of(get_entry(client, headers(language="fr-demo"), store_id="1001"))
    assert text(one(soup, ".svc-planner-entry__title")) == "Vos menus de la semaine"
    assert text(one(soup, ".svc-planner-entry__mode--selection .svc-planner-entry__mode-title")) == "Menu surprise"
    assert text(one(soup, "[data-action=done]")) == "C'est parti"
    assert text(one(soup, ".svc-planner-entry__help")) == FR("PLANNER_ENTRY.HOW_IT_WORKS")
    assert entry_of(soup)["lang"] == "fr"


# --- destination ----------------------------------------------------------------------------------


def test_the_modes_lead_to_the_current_menu_page_of_the_routing(client) -> None:
    soup = soup_of(get_entry(client, store_id="1001"))
    found = modes(soup)
    assert found["selection"]["data-href"] == f"{CURRENT_MENU}?mode=selection&store_id=1001"
    assert found["custom"]["data-href"] == f"{CURRENT_MENU}?mode=custom&store_id=1001"
    # Without scripts too: each mode submits a GET form whose action and fields make the same URL. The form is in a
    # <noscript> (text where scripts run: no form of ours inside a host page's form), the button names it.
    for name, mode in found.items():
        assert mode.find_parent("form") is None and mode.get("type") == "submit"
        form = soup.find("form", id=mode["form"])
        assert form is not None and form.get("method") == "get"
        holder = form.parent
        assert holder is not None and holder.name == "noscript" and "svc-ds-form-holder" in holder["class"]
        fields = [(str(field["name"]), str(field["value"])) for field in form.select("input[type=hidden]")]
        assert form["action"] == CURRENT_MENU
        assert fields == [("mode", name), ("store_id", "1001")]


@pytest.mark.parametrize("query", [{}, {"store_id": ""}])
def test_without_a_store_the_destination_has_none(client, query) -> None:
    soup = soup_of(get_entry(client, **query))
    assert not entry_of(soup).has_attr("store-id")
    assert modes(soup)["selection"]["data-href"] == f"{CURRENT_MENU}?mode=selection"


def test_each_supplier_has_its_own_routing(client) -> None:
    soup = soup_of(get_entry(client, headers(token="demo-publisher-token"), store_id="1001"))
    assert modes(soup)["custom"]["data-href"] == "http://127.0.0.1:8090/planner/current-menu?mode=custom&store_id=1001"


def test_an_empty_current_menu_path_falls_back_to_the_planner_page(app_config: dict) -> None:
    """The seed's `production` routing has `planner.current: ""`: `features.planner` is the destination."""
    client = app_with(app_config, ENVIRONMENT="production").test_client()
    found = modes(soup_of(get_entry(client, store_id="1001")))
    assert found["selection"]["data-href"] == "https://shop.example/planificateur?mode=selection&store_id=1001"


def assert_disabled(soup: BeautifulSoup, language=FR, notice: str = "PLANNER_ENTRY.UNAVAILABLE") -> None:
    entry = entry_of(soup)
    assert entry.has_attr("unavailable")
    for mode in modes(soup).values():
        assert mode.has_attr("disabled") and not mode.has_attr("data-href")
        assert mode.find_parent("form") is None and mode.get("type") == "button" and not mode.has_attr("form")
    assert text(one(entry, "[data-role=unavailable].svc-planner-entry__notice")) == language(notice)
    # Everything else is still there: title, stepper, help and its modal.
    one(entry, ".svc-planner-entry__title")
    one(entry, ".svc-ds-stepper")
    assert soup.find(id=one(entry, ".svc-planner-entry__help")["aria-controls"]) is not None


def test_no_routing_for_the_environment_disables_the_modes(app_config: dict) -> None:
    client = app_with(app_config, ENVIRONMENT="staging").test_client()
    assert_disabled(soup_of(get_entry(client, store_id="1001")))


@pytest.mark.parametrize("token", [None, "not-a-supplier-token"], ids=["no-token", "unknown-token"])
def test_without_a_known_supplier_the_modes_are_disabled(client, token: str | None) -> None:
    response = get_entry(client, headers(token=token, language="en"), store_id="1001")
    soup = soup_of(response)
    assert_disabled(soup, EN)
    assert soup.find("svc-shopper") is None


def test_an_unreachable_upstream_renders_the_disabled_entry(app_config: dict) -> None:
    """The supplier cannot be resolved: the entry still renders (never a 5xx), without a destination, and says the
    planner cannot be shown for now, to try again: not that the site has none."""
    from tests.conftest import closed_port

    client = app_with(app_config, UPSTREAM_URL=f"http://127.0.0.1:{closed_port()}", UPSTREAM_RETRIES=0).test_client()
    assert_disabled(soup_of(get_entry(client, store_id="1001")), notice="PLANNER_ENTRY.LOAD_FAILED")


def supplier(**routing: Routing) -> Supplier:
    return Supplier(
        id="9", name="x", kind="retailer", personalization=True, affiliated_supplier_id=None, routing=routing
    )


@pytest.mark.parametrize(
    ("routing", "expected"),
    [
        (Routing("https://a.example", "/p", "/p/current", None), "https://a.example/p/current"),
        (Routing("https://a.example/", "p", None, None), "https://a.example/p"),
        (Routing("https://a.example/shop", "/p", "", None), "https://a.example/shop/p"),
        (Routing("https://a.example", None, None, None), None),
        (Routing("https://a.example", "", "", None), None),
        (Routing("javascript:alert(1)//", "/p", None, None), None),
        (Routing("a.example", "/p", None, None), None),
        (Routing("https://a.example", "//evil.example/p", None, None), None),
        (Routing("https://a.example", "https://evil.example/p", None, None), None),
    ],
)
def test_the_destination_of_a_routing(routing: Routing, expected: str | None) -> None:
    assert planner_destination(supplier(env=routing), "env") == expected
    assert planner_destination(supplier(other=routing), "env") is None
    assert planner_destination(None, "env") is None


def test_a_destination_keeps_its_own_query() -> None:
    url = mode_url("https://a.example/p?x=1&mode=old#top", "custom", "10:01")
    assert url == "https://a.example/p?x=1&mode=custom&store_id=10%3A01#top"


# --- version, caching, credential, parameters ---------------------------------------------------------


def test_the_entry_is_v2_only(client) -> None:
    response = client.get("/v1/planner/entry", query_string={"store_id": "1001"}, headers=headers())
    assert response.status_code == 404


@pytest.mark.usefixtures("one_credential_step")
def test_the_entry_is_private_and_revalidates(client) -> None:
    response = get_entry(client, store_id="1001")
    assert response.status_code == 200
    assert response.headers["Cache-Control"].startswith("private")
    etag = response.headers["ETag"]
    again = client.get(ENTRY, query_string={"store_id": "1001"}, headers={**headers(), "If-None-Match": etag})
    assert again.status_code == 304


@pytest.mark.parametrize("user", ["it-planner-user", None], ids=["user", "authless"])
def test_a_vouched_shopper_gets_a_working_credential(client, user: str | None) -> None:
    response = get_entry(client, headers(user=user), store_id="1001")
    html = response.get_data(as_text=True)
    element = BeautifulSoup(html, "html.parser").find("svc-shopper")
    assert isinstance(element, Tag) and element["kind"] == ("user" if user else "authless")
    assert element["shopper-id"] == (user or "it-anonymous")
    # The credential is one the browser routes accept, for that shopper.
    basket = client.get(
        "/v2/basket", query_string={"store_id": "1001"}, headers=as_browser(credential_in(html), "fr", "it-session", {})
    )
    assert basket.status_code == 200, basket.get_data(as_text=True)


def test_a_malformed_store_id_is_a_400_problem(client) -> None:
    response = get_entry(client, store_id="../1001")
    assert response.status_code == 400 and response.mimetype == "application/problem+json"
    assert "store_id" in response.get_json()["errors"]["query"]


def test_an_unknown_store_is_a_400_problem(client) -> None:
    """The entry used to answer 200 with modes leading to `current-menu?store_id=9999`, which refuses it: the
    refusal comes first, in the shape of the other routes' unknown store."""
    response = get_entry(client, store_id="9999")
    assert response.status_code == 400 and response.mimetype == "application/problem+json"
    assert response.get_json()["errors"] == {"query": {"store_id": ["Unknown store."]}}
    # The page the modes lead to refuses it too (the entry and its target agree).
    page = client.get("/v2/planner/current-menu", query_string={"store_id": "9999"}, headers=headers())
    assert page.status_code == 400
    # Both seed stores are known.
    for store in ("1001", "1002"):
        assert get_entry(client, store_id=store).status_code == 200


def test_an_unreadable_store_list_does_not_stop_the_entry(app_config: dict, coreapi_url: str) -> None:
    """The store cannot be checked (the upstream's store list fails): the entry renders with its modes, and the
    current-menu page checks the store when the shopper gets there."""
    with FaultyUpstream(coreapi_url, {"/api/v1/stores": status(503)}) as proxy:
        client = app_with(app_config, UPSTREAM_URL=proxy.url, UPSTREAM_RETRIES=0).test_client()
        soup = soup_of(get_entry(client, store_id="9999"))
        assert proxy.failed == ["/api/v1/stores"]
    modes = entry_of(soup).select("[data-mode]")
    assert [urlsplit(str(mode["data-href"])).query for mode in modes] == [
        "mode=selection&store_id=9999",
        "mode=custom&store_id=9999",
    ]


def test_a_store_check_shed_at_the_door_is_no_warning(app_config: dict, caplog: pytest.LogCaptureFixture) -> None:
    """A worker at its limit sheds the entry: its store check is not attempted, and that is no failure to warn of
    (the shed is counted and logged once, with the request's line: prerender/web/admission.py)."""
    app = app_with(app_config)
    client = app.test_client()
    assert get_entry(client).status_code == 200  # the supplier is known (cached), the store list not yet read
    app.extensions[EXTENSION_KEY].limit = 0  # a limit no setting may give: every request past it
    with caplog.at_level(logging.INFO):
        response = get_entry(client, store_id="1001")
    assert response.status_code == 200 and response.headers["X-Degraded"] == "shed"
    assert not [record for record in caplog.records if record.levelno >= logging.WARNING], caplog.text
    # Said once, at INFO, with the store it did not check and the request's id.
    lines = [record for record in caplog.records if record.name == "prerender.gateway.fallbacks"]
    assert {line.levelno for line in lines} == {logging.INFO}
    request_id = response.headers["X-Request-Id"]
    (line,) = [line for line in lines if line.getMessage().startswith("stores ")]
    assert line.getMessage().startswith(f"stores unavailable, store 1001 not checked, request {request_id}: ")


def test_missing_headers_are_a_400_problem(client) -> None:
    response = client.get(ENTRY, query_string={"store_id": "1001"}, headers={"language-id": "fr"})
    assert response.status_code == 400 and response.mimetype == "application/problem+json"
