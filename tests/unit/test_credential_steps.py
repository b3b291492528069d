"""A shopper's credential is the same during one time step (so private fragments keep their ETags) and
changes with the next; its expiry is counted from the step's start (prerender/web/credentials.py)."""

from __future__ import annotations

import pytest

from prerender.web import credentials
from prerender.web.credentials import TIMESTAMP_STEP, CredentialSigner, InvalidCredential, Shopper

KEY = "a-signing-key-for-these-tests-" + "s" * 32
ALICE = Shopper(supplier_id="1", user_id="alice")
STEP_START = 1_800_000_000 - 1_800_000_000 % TIMESTAMP_STEP


def at(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    monkeypatch.setattr(credentials.time, "time", lambda: seconds)


def test_one_credential_per_shopper_and_step(monkeypatch: pytest.MonkeyPatch) -> None:
    signer = CredentialSigner(keys=[KEY], max_age=3600)
    at(monkeypatch, STEP_START + 1)
    first = signer.issue(ALICE)
    at(monkeypatch, STEP_START + TIMESTAMP_STEP - 1)
    assert signer.issue(ALICE) == first
    assert signer.issue(Shopper(supplier_id="2", user_id="alice")) != first
    at(monkeypatch, STEP_START + TIMESTAMP_STEP)
    assert signer.issue(ALICE) != first


def test_expiry_counts_from_the_steps_start(monkeypatch: pytest.MonkeyPatch) -> None:
    signer = CredentialSigner(keys=[KEY], max_age=3600)
    at(monkeypatch, STEP_START + 100)
    issued = signer.issue_with_expiry(ALICE)
    assert issued.expires_at == STEP_START + 3600
    at(monkeypatch, STEP_START + 3600)
    assert signer.verify(issued.token) == ALICE
    at(monkeypatch, STEP_START + 3602)
    with pytest.raises(InvalidCredential, match="expired"):
        signer.verify(issued.token)


def test_a_shopper_is_a_user_or_a_visitor() -> None:
    assert (ALICE.kind, ALICE.identity) == ("user", "alice")
    visitor = Shopper(supplier_id="1", authless_id="v-1")
    assert (visitor.kind, visitor.identity) == ("authless", "v-1")
