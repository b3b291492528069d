"""Fixtures of the unit tests (the upstream is down here: tests/conftest.py's app_config)."""

from __future__ import annotations

import pytest
from flask import Flask

from prerender.gateway import Supplier, get_upstream
from prerender.web.credentials import Shopper, get_signer

# The supplier of the shoppers' credentials minted here, and HEADERS' user (tests/conftest.py).
SUPPLIER = Supplier(id="1", name="Demo", kind="retailer", personalization=True, affiliated_supplier_id=None)
USER_ID = "u-1"


@pytest.fixture
def shopper_headers(app: Flask, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The headers a browser sends on a browser route (docs/security.md): the credential of HEADERS' user at
    SUPPLIER, signed by this app. With the upstream down, the gateway knows the credential's supplier without
    asking (every other upstream call still fails)."""
    with app.app_context():
        suppliers, signer = get_upstream().suppliers, get_signer()
    monkeypatch.setattr(suppliers, "by_id", lambda supplier_id, **_: SUPPLIER if supplier_id == SUPPLIER.id else None)
    credential = signer.issue(Shopper(supplier_id=SUPPLIER.id, user_id=USER_ID))
    return {"authorization": f"Bearer {credential}", "language-id": "fr", "session-id": "session-1"}
