"""The blog's client of prerender, as a publisher's server would write it: the shop's client
(examples/shop/prerender_client.py: one `requests.Session` per thread, short timeouts, the stylesheets kept a
while, a new visitor's authless id, and no exception ever) with the publisher's own route, the no-supplier
add-to-cart button of a recipe (`no-supplier-add-to-cart-cta`). A call that fails, is late or answers anything
but 200 is an empty answer, logged, and the page renders without the button. The supplier token travels only
here, from the blog's server to prerender.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from examples.shop.prerender_client import PrerenderClient as ShopPrerenderClient
from examples.shop.prerender_client import is_html, prerender_headers, visitor_headers

if TYPE_CHECKING:
    from .reader import Reader

log = logging.getLogger(__name__)

CTA_PATH = "/no-supplier-add-to-cart-cta"
# The headers of a call made before the reader has an identity (the authless id's issuing).
identity_headers = visitor_headers


def fragment_headers(reader: Reader, *, supplier_token: str, request_id: str | None = None) -> dict[str, str]:
    """The headers of a fragment call: a blog's reader is always logged out (`authless-id`, never
    `authorization`), so only a reader with an authless id can get fragments."""
    if not reader.authless_id:
        raise ValueError("a fragment call needs the reader's authless id")
    return prerender_headers(reader, supplier_token, request_id)  # a Reader is a visitor never logged in


class PrerenderClient(ShopPrerenderClient):
    """The shop's client, with the publisher's button. Thread-safe. `styles(reader, component)` and
    `generate_authless_id(...)` are the shop's."""

    def add_to_cart_cta(self, reader: Reader, recipe_id: str, *, guests: int, request_id: str | None = None) -> str:
        """GET /no-supplier-add-to-cart-cta for one of the blog's recipes (its own id, which prerender looks up
        as the recipe's external id): the button's HTML and its module scripts, or "" (no button: a recipe the
        retailer does not know answers an empty body, a failure nothing)."""
        response = self._call(
            "GET",
            CTA_PATH,
            None,
            headers=fragment_headers(reader, supplier_token=self.supplier_token, request_id=request_id),
            params={"recipe_id": recipe_id, "guests": guests},
            request_id=request_id,
        )
        if response is None:
            return ""
        if not is_html(response):
            log.error("prerender add-to-cart button: not an HTML fragment (request %s)", request_id)
            return ""
        if "charset" not in response.headers.get("Content-Type", "").lower():
            response.encoding = "utf-8"  # HTML without a declared charset is UTF-8 (requests would guess Latin-1)
        return response.text.strip()
