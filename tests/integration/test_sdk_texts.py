"""A retailer's versions of the browser SDK's texts (an override file's `SDK.*`, README "PRERENDER_I18N_OVERRIDES_DIR")
travel in the fragments that load the SDK, as a JSON data block the SDK reads (prerender/templates/scripts.html,
prerender/static/sdk/texts.js); a language-id without such a file gets no block."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from flask import Flask

from prerender import create_app

from .conftest import headers

# The routes whose fragment loads the SDK: the bootstrap, a card, the publisher's button.
FRAGMENTS = [
    "/v2/svc-window-bootstrap",
    "/v1/recipe-card?recipe_id=1&store_id=1001",
    "/v1/no-supplier-add-to-cart-cta?recipe_id=1",
]
OVERRIDE = {
    "SDK": {
        "toaster.added": "{count, plural, one {# article ajouté} other {# articles ajoutés}} </script><b>",
        "drawer.close": "Fermer la recette",
    }
}


@pytest.fixture
def app(app_config: dict, tmp_path: Path) -> Flask:
    (tmp_path / "fr-demo.json").write_text(json.dumps(OVERRIDE), encoding="utf-8")
    return create_app({**app_config, "I18N_OVERRIDES_DIR": str(tmp_path)})


def blocks(html: str) -> list:
    return BeautifulSoup(html, "html5lib").select("script.svc-sdk-texts")


@pytest.mark.parametrize("path", FRAGMENTS)
def test_the_fragments_carry_the_retailers_sdk_texts(app: Flask, path: str) -> None:
    token = "demo-publisher-token" if "no-supplier" in path else "demo-retailer-token"
    answer = app.test_client().get(path, headers=headers(language="fr-demo", token=token))
    assert answer.status_code == 200, answer.get_data(as_text=True)
    (block,) = blocks(answer.get_data(as_text=True))
    assert block["type"] == "application/json" and block["data-language"] == "fr"
    # The texts as written, a "</script>" in one of them escaped: it ends no element of the customer's page.
    assert json.loads(block.string) == OVERRIDE["SDK"]
    assert "</script><b>" not in answer.get_data(as_text=True)


@pytest.mark.parametrize("path", FRAGMENTS)
def test_a_language_id_without_sdk_texts_gets_no_block(app: Flask, path: str) -> None:
    token = "demo-publisher-token" if "no-supplier" in path else "demo-retailer-token"
    for language in ("fr", "en", "en-demo"):
        answer = app.test_client().get(path, headers=headers(language=language, token=token))
        assert answer.status_code == 200 and blocks(answer.get_data(as_text=True)) == [], language
