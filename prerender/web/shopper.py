"""The shopper's credential in a fragment: how a browser gets the credential it calls the browser routes with.

A private fragment (and the bootstrap) that a customer's server asked for with a valid supplier-token ends
with one hidden `<svc-shopper>` element (the element prefix of prerender/config.py) carrying the credential
prerender issued for that request's shopper (prerender/web/credentials.py, docs/security.md). The browser
SDK (prerender/static/sdk/session.js) reads it. Publicly cacheable fragments never carry one: a shared cache
would hand one shopper's credential to the next. It is appended after the card memo (a memoized card is
shared by every shopper who sees it), and is the same for one shopper during a time step, so ETags hold.
"""

from __future__ import annotations

import functools
import time

from flask import current_app
from markupsafe import escape
from werkzeug.http import generate_etag

from prerender.web.context import RequestContext
from prerender.web.credentials import TIMESTAMP_STEP, CredentialSigner, Shopper, get_signer
from prerender.web.http_caching import never_public


def shopper_element(ctx: RequestContext) -> str:
    """The credential element of the request's shopper, or "" when no supplier vouched for one. The answer
    that carries it is never public, whatever its view declared (prerender/web/http_caching.py)."""
    shopper = ctx.vouched_shopper
    if shopper is None:
        return ""
    never_public()
    now = int(time.time())
    prefix = current_app.config["ELEMENT_PREFIX"]
    return _element(get_signer(), prefix, shopper, now - now % TIMESTAMP_STEP, profiling=ctx.profiling)


@functools.lru_cache(maxsize=4096)
def _element(signer: CredentialSigner, prefix: str, shopper: Shopper, step: int, *, profiling: bool) -> str:
    """The element for one shopper during one time step (the credential is the same all along it). `profiling`:
    the page's server asked with `profiling: false` (the shopper refused profiling), which the element passes on,
    so that the SDK's first requests carry it too (docs/sdk.md, section 2)."""
    issued = signer.issue_with_expiry(shopper)
    refused = "" if profiling else ' profiling="false"'
    # `supplier-id` (which the credential's own payload holds too): the SDK shares a credential only with the
    # page's other tabs of that supplier, as several suppliers' pages may share one site (sdk/tabs.js).
    return (
        f'<{prefix}-shopper hidden credential="{escape(issued.token)}" kind="{shopper.kind}" '
        f'supplier-id="{escape(shopper.supplier_id)}" shopper-id="{escape(shopper.identity)}" '
        f'expires-at="{issued.expires_at}"{refused}></{prefix}-shopper>'
    )


def with_shopper(fragment: str, etag: str, ctx: RequestContext) -> tuple[str, str]:
    """A private fragment and its ETag, with the shopper's credential element appended (unchanged when no
    supplier vouched for a shopper). The ETag combines the fragment's with the element, without rehashing."""
    element = shopper_element(ctx)
    if not element:
        return fragment, etag
    return fragment + element, generate_etag(f"{etag}{element}".encode())
