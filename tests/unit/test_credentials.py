"""Shoppers' credentials (prerender/web/credentials.py) and the signing keys (prerender/config.py)."""

from __future__ import annotations

import hashlib
import logging
import os
import stat
import time
from pathlib import Path

import pytest
from itsdangerous import URLSafeTimedSerializer

from prerender import create_app
from prerender.web.credentials import (
    MAX_CLOCK_AHEAD_SECONDS,
    SALT,
    TIMESTAMP_STEP,
    CredentialSigner,
    InvalidCredential,
    Shopper,
    SteppedTimestampSigner,
    new_authless_id,
)

OLD, NEW = "o" * 40, "n" * 40
ALICE = Shopper(supplier_id="1", user_id="alice-42")
# Longer than a time step: a credential is stamped at its step's start (tests/unit/test_credential_steps.py),
# so a shorter lifetime could be over as soon as it is issued.
MAX_AGE = 2 * TIMESTAMP_STEP


def test_a_credential_names_its_shopper() -> None:
    signer = CredentialSigner(keys=[NEW], max_age=MAX_AGE)
    assert signer.verify(signer.issue(ALICE)) == ALICE
    visitor = Shopper(supplier_id="1", authless_id=new_authless_id())
    assert signer.verify(signer.issue(visitor)) == visitor


@pytest.mark.parametrize(
    "change", [lambda c: c[:-2] + ("AA" if c[-2:] != "AA" else "BB"), lambda c: "x" + c, lambda c: ""]
)
def test_an_altered_credential_is_refused(change) -> None:
    signer = CredentialSigner(keys=[NEW], max_age=MAX_AGE)
    with pytest.raises(InvalidCredential):
        signer.verify(change(signer.issue(ALICE)))


def test_a_credential_of_another_key_is_refused() -> None:
    theirs = CredentialSigner(keys=["t" * 40], max_age=MAX_AGE).issue(ALICE)
    with pytest.raises(InvalidCredential, match="not one this service issued"):
        CredentialSigner(keys=[NEW], max_age=MAX_AGE).verify(theirs)


def test_an_expired_credential_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    signer = CredentialSigner(keys=[NEW], max_age=MAX_AGE)
    credential = signer.issue(ALICE)
    now = time.time()
    monkeypatch.setattr(time, "time", lambda: now + MAX_AGE + 1)
    with pytest.raises(InvalidCredential, match="expired"):
        signer.verify(credential)


@pytest.mark.parametrize(
    ("ahead", "taken"),
    [(0, True), (MAX_CLOCK_AHEAD_SECONDS, True), (MAX_CLOCK_AHEAD_SECONDS + 1, False), (3 * 86_400, False)],
)
def test_a_credential_from_a_node_whose_clock_runs_ahead_is_taken_only_within_a_minute(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, ahead: int, taken: bool
) -> None:
    # A node whose clock runs three days ahead would otherwise issue credentials every node takes for three days
    # and 12 hours, outliving the key rotation's wait (docs/security.md).
    now = time.time()
    stamped = now - now % TIMESTAMP_STEP  # the issuing node's clock, at a step's start: its time stamp exactly
    monkeypatch.setattr(time, "time", lambda: stamped)
    credential = CredentialSigner(keys=[NEW], max_age=MAX_AGE).issue(ALICE)
    monkeypatch.setattr(time, "time", lambda: stamped - ahead)  # this node's clock
    signer = CredentialSigner(keys=[NEW], max_age=MAX_AGE)
    if taken:
        assert signer.verify(credential) == ALICE
        return
    for _ in range(3):
        with pytest.raises(InvalidCredential, match="issued later than now"):
            signer.verify(credential)
    # The operator is told what to look at, once for a while (not once per call: a page makes many).
    (line,) = [record for record in caplog.records if record.name == "prerender.web.credentials"]
    assert line.levelno == logging.WARNING and "clock" in line.getMessage()


def test_rotation_the_last_key_signs_and_every_key_verifies() -> None:
    old = CredentialSigner(keys=[OLD], max_age=MAX_AGE).issue(ALICE)
    rotating = CredentialSigner(keys=[OLD, NEW], max_age=MAX_AGE)
    assert rotating.verify(old) == ALICE
    new = rotating.issue(ALICE)
    assert CredentialSigner(keys=[NEW], max_age=MAX_AGE).verify(new) == ALICE
    with pytest.raises(InvalidCredential):
        CredentialSigner(keys=[NEW], max_age=MAX_AGE).verify(old)  # the old key retired


def refused_between_nodes(nodes: list[list[str]]) -> list[tuple[int, int]]:
    """(issuer, verifier) pairs of nodes, by their keys, where a credential one issued is refused by the other."""
    signers = [CredentialSigner(keys=keys, max_age=MAX_AGE) for keys in nodes]
    refused = []
    for issuer, signer in enumerate(signers):
        credential = signer.issue(ALICE)
        for verifier, other in enumerate(signers):
            try:
                other.verify(credential)
            except InvalidCredential:
                refused.append((issuer, verifier))
    return refused


def test_a_rotation_across_nodes_keeps_every_credential_valid_on_every_node_at_every_step() -> None:
    # docs/security.md's rotation, deployed one node at a time: during each deploy, one node runs the keys before
    # and the other the keys after, and a shopper's browser reaches either.
    steps = [
        ([OLD], [NEW, OLD]),  # 1. the new key added first: it verifies, the old one still signs
        ([NEW, OLD], [OLD, NEW]),  # 2. once every node has it, moved last: it signs
        ([OLD, NEW], [NEW]),  # 3. SHOPPER_CREDENTIAL_SECONDS later: the old key removed
    ]
    for before, after in steps:
        assert refused_between_nodes([before, after]) == [], (before, after)
    # What the docs said before: append the new key and deploy. The node already deployed signs with a key the
    # other node does not have yet, and its shoppers are refused there until the deploy ends.
    assert refused_between_nodes([[OLD], [OLD, NEW]]) == [(1, 0)]


def test_a_shopper_is_one_identity() -> None:
    with pytest.raises(ValueError):
        Shopper(supplier_id="1")
    with pytest.raises(ValueError):
        Shopper(supplier_id="1", user_id="u", authless_id="a")


def signed(payload: object, key: str = NEW) -> str:
    """Any payload, signed as the service signs credentials (its key, salt and time step)."""
    serializer = URLSafeTimedSerializer(
        [key], salt=SALT, signer=SteppedTimestampSigner, signer_kwargs={"digest_method": hashlib.sha256}
    )
    return str(serializer.dumps(payload))


@pytest.mark.parametrize(
    "payload",
    [
        {"s": "1", "u": 5},
        {"s": "1", "u": ["alice-42"]},
        {"s": "1", "a": {"id": "x"}},
        {"s": 1, "u": "alice-42"},
        {"s": "1", "u": True},
        {"s": "", "u": "alice-42"},
        {"s": "1", "u": ""},
        {"s": "1"},
        {"s": "1", "u": "alice-42", "a": "visitor"},
        ["1", "alice-42"],
        "alice-42",
        None,
    ],
)
def test_a_signed_payload_that_does_not_name_one_shopper_is_refused(payload: object) -> None:
    """A credential with this service's signature whose payload is not one supplier and one identity, all
    strings, is invalid: no shopper with an id that is not a string reaches a route."""
    with pytest.raises(InvalidCredential, match="does not name one shopper"):
        CredentialSigner(keys=[NEW], max_age=MAX_AGE).verify(signed(payload))


def test_authless_ids_are_unguessable() -> None:
    ids = {new_authless_id() for _ in range(1000)}
    assert len(ids) == 1000 and all(len(i) == 43 for i in ids)


def test_configured_keys_win_and_short_ones_are_refused(app_config: dict) -> None:
    app = create_app({**app_config, "SECRET_KEYS": OLD})
    assert app.config["SECRET_KEYS"] == [OLD]
    with pytest.raises(ValueError, match="32 characters"):
        create_app({**app_config, "SECRET_KEYS": ["short"]})


def test_an_installed_prerender_keeps_its_keys_in_the_folder_prerender_instance_path_names(
    app_config: dict, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A wheel installed in a virtual environment has no checkout around it: its instance folder (keys,
    instance/config.py, text overrides) is the one the environment file names (docs/operations.md)."""
    folder = tmp_path / "var" / "lib" / "prerender"
    (folder / "i18n").mkdir(parents=True)
    (folder / "config.py").write_text("ELEMENT_PREFIX = 'acme'\n")
    monkeypatch.setenv("PRERENDER_INSTANCE_PATH", str(folder))
    config = {key: value for key, value in app_config.items() if key not in {"SECRET_KEYS", "I18N_OVERRIDES_DIR"}}
    app = create_app(config)
    assert Path(app.instance_path) == folder
    assert app.config["ELEMENT_PREFIX"] == "acme"
    assert app.config["SECRET_KEYS"] == [(folder / "secret-key").read_text()]
    assert app.config["UPSTREAM_SERVICE_KEY"] == (folder / "upstream-service-key").read_text()
    assert stat.S_IMODE(os.stat(folder / "secret-key").st_mode) == 0o600
