"""The shopper's credential element makes its answer private (prerender/web/shopper.py): whatever a
view declared, a shared cache must never keep one shopper's credential for the next."""

from __future__ import annotations

from dataclasses import replace

from bs4 import BeautifulSoup
from flask import g

from prerender.web.http_caching import NO_STORE, PRIVATE, PUBLIC, set_policy
from prerender.web.shopper import shopper_element

from .test_card_template import RETAILER, ctx


def test_an_answer_with_a_credential_is_private_whatever_the_view_declared(app) -> None:
    with app.test_request_context("/"):
        set_policy(PUBLIC)
        element = shopper_element(replace(ctx(user="u-1", supplier=RETAILER), supplier_token="vouching-token"))
        assert "credential=" in element
        assert g.cache_policy is PRIVATE


def test_a_stricter_policy_stays(app) -> None:
    """A degraded page (no-store) that carries the credential is still kept by no cache at all."""
    with app.test_request_context("/"):
        set_policy(NO_STORE)
        assert shopper_element(replace(ctx(user="u-1", supplier=RETAILER), supplier_token="vouching-token"))
        assert g.cache_policy is NO_STORE


def test_no_credential_leaves_the_policy_alone(app) -> None:
    with app.test_request_context("/"):
        set_policy(PUBLIC)
        assert shopper_element(ctx(user="u-1", supplier=None)) == ""
        assert g.cache_policy is PUBLIC


def test_the_element_says_profiling_false_when_the_servers_request_did(app) -> None:
    """The shopper refused profiling: the page's SDK says so from its first request (sdk/session.js)."""
    vouched = replace(ctx(user="u-1", supplier=RETAILER), supplier_token="vouching-token")
    with app.test_request_context("/"):
        refused = shopper_element(replace(vouched, profiling=False))
        accepted = shopper_element(vouched)
    assert refused.endswith(' profiling="false"></svc-shopper>')
    assert "profiling" not in accepted


def test_the_element_names_the_credential_s_supplier(app) -> None:
    """The SDK shares a credential only with the page's other tabs of the same supplier (sdk/tabs.js)."""
    with app.test_request_context("/"):
        element = shopper_element(replace(ctx(user="u-1", supplier=RETAILER), supplier_token="vouching-token"))
    (shopper,) = BeautifulSoup(element, "html.parser").find_all("svc-shopper")
    assert shopper["supplier-id"] == RETAILER.id and shopper["shopper-id"] == "u-1"
