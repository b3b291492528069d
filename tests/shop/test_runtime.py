"""Unit tests of what a page gives prerender's browser runtime (the credential element, the SDK tags, the
context of svc-setup.js), and of the shop's carts at login."""

from __future__ import annotations

import pytest

from examples.publisher import create_app as create_publisher
from examples.shop import create_app
from examples.shop.carts import MAX_QUANTITY, CartStore
from examples.shop.runtime import module_tags, shop_context
from examples.shop.visitor import Visitor

SDK = "http://prerender.test/static/v1.2.3/sdk/svc.js?v=abc"
SHOPPER = (
    '<svc-shopper hidden credential="eyJzIjoiMSJ9.aBc.d-E_f" kind="authless" shopper-id="x_Y-z" '
    'expires-at="1764040800"></svc-shopper>'
)
BOOTSTRAP = f'{SHOPPER}<script type="module" src="{SDK}"></script>'


def test_module_tags_keep_the_credential_element_of_the_bootstrap():
    tags = module_tags(BOOTSTRAP)
    assert tags.startswith(SHOPPER)
    assert f'<script type="module" src="{SDK}"></script>' in tags
    assert '<script type="module" src="http://prerender.test/static/v1.2.3/components/recipe-card.js?v=abc">' in tags
    assert tags.count("<svc-shopper") == 1


def test_module_tags_without_credential_or_without_sdk():
    # a bootstrap without a credential (prerender did not know the supplier-token): the scripts only
    assert module_tags(f'<script type="module" src="{SDK}"></script>').startswith("<script")
    # no SDK: nothing, not even a credential nobody would read
    assert module_tags(SHOPPER) == ""
    assert module_tags("") == ""


def test_the_page_context_has_no_supplier_token():
    app = create_app({"TESTING": True, "SUPPLIER_TOKEN": "secret-of-the-server"})
    with app.test_request_context("/"):
        context = shop_context(Visitor(session_id="s", authless_id="a", store_id="1001"))
    assert "supplierToken" not in context
    assert "secret-of-the-server" not in repr(context)
    assert context["user"] == {"kind": "authless", "id": "a"}
    assert (context["language"], context["sessionId"], context["storeId"]) == ("fr", "s", "1001")


def test_moving_a_cart_adds_its_lines_and_empties_it():
    carts = CartStore()
    carts.apply("authless:a", [("1", 2), ("2", 1), ("3", MAX_QUANTITY)])
    carts.apply("user:u", [("2", 3), ("3", 5), ("4", 1)])
    assert carts.move("authless:a", "user:u") == {"1": 2, "2": 4, "3": MAX_QUANTITY, "4": 1}
    assert carts.lines("authless:a") == {}
    assert carts.move("authless:none", "user:u") == carts.lines("user:u")
    assert carts.move("user:u", "user:u") == {"1": 2, "2": 4, "3": MAX_QUANTITY, "4": 1}


@pytest.mark.parametrize("site", ["shop", "publisher"])
def test_a_site_without_a_secret_key_says_so_at_start(site: str, monkeypatch: pytest.MonkeyPatch):
    """The identity cookies are signed with the site's key (examples/identity_cookies.py): without one, each of the
    server's workers would make its own and refuse the others' cookies, shoppers logged out at random. The site
    refuses to start and names the variable; a test's app (one process) makes a key of its own."""
    variable = f"{site.upper()}_SECRET_KEY"
    monkeypatch.delenv(variable, raising=False)
    factory = create_app if site == "shop" else create_publisher
    with pytest.raises(RuntimeError, match=variable):
        factory({})
    assert factory({"TESTING": True}).config["SECRET_KEY"]
    monkeypatch.setenv(variable, "a-key-from-the-environment")
    assert factory({}).config["SECRET_KEY"] == "a-key-from-the-environment"
