"""The request headers every versioned route takes, as marshmallow schemas.

`RequestHeaders` is what the shared header guard (prerender/web/context.py) loads into the request
context, and what the OpenAPI document (prerender/web/openapi.py) lists as each versioned operation's
header parameters: one declaration for both. Header names are the field's `data_key`.
"""

from __future__ import annotations

import re
from typing import Any

from marshmallow import EXCLUDE, Schema, ValidationError, fields, post_load, pre_load, validate, validates_schema

from prerender.schemas.fields import IDENTITY_CHARACTERS, IDENTITY_MESSAGE, IDENTITY_PATTERN, FullMatch

SUPPORTED_LANGUAGES = ("fr", "en")
# `user_id <USER_ID>`: the only authorization a customer's server sends.
AUTHORIZATION_PATTERN = re.compile(rf"^user_id ({IDENTITY_CHARACTERS})$")
# `fr`, `en`, optionally `-<retailer>` naming a text override file (prerender/rendering/i18n.py).
# Plain groups (1: language, 2: variant): the pattern is also published in /openapi.json, as ECMA-262.
LANGUAGE_PATTERN = re.compile(rf"^({'|'.join(SUPPORTED_LANGUAGES)})(?:-([a-z0-9_]{{1,32}}))?$")
# `Bearer <credential>` (RFC 6750's b64token characters): how a browser route names its shopper. The scheme's
# name is case-insensitive (RFC 9110, section 11.1); the characters of the credential are case-insensitive here
# anyway, since the class holds both cases.
BEARER_PATTERN = re.compile(r"^Bearer +([A-Za-z0-9._~+/-]+=*)$", re.IGNORECASE)  # 1*SP: RFC 9110, 11.4
# An authorization that says it is a Bearer credential, well formed or not.
BEARER_SCHEME = re.compile(r"^Bearer(?:[ \t]|$)", re.IGNORECASE)
PROFILING_VALUES = {"true": True, "1": True, "false": False, "0": False}
# An X-Request-Id that is kept as given (anything else is replaced by a new id, never refused).
REQUEST_ID_PATTERN = re.compile(r"^[A-Za-z0-9._-]{1,64}$")

MISSING = "Missing header."
# The blanks around a header value (RFC 9110's optional whitespace): spaces and tabs. str.strip() would also
# drop a newline, making "abc" of "abc" and a newline, where a value with a newline is malformed.
OWS = " \t"


# The headers whose value holds no comma of its own (a token, a language, a Bearer credential), or is malformed with
# one (`user_id a,user_id a` holds a space): read with `one_value`. An id a customer makes (`session-id`,
# `authless-id`, `idempotency-key`) may hold a comma, and is read as it comes.
ONE_VALUE_HEADERS = frozenset({"authorization", "supplier-token", "language-id", "profiling", "authless-credential"})


def one_value(value: str) -> str:
    """A header's value as the service reads it. A header sent twice reaches the application as its two values
    joined by a comma (RFC 9110, section 5.3: gunicorn and werkzeug join them so), which a customer's HTTP client
    does when it adds a header to its defaults rather than replacing it. The same value repeated is that value, as
    a query parameter given twice with one value is (plumbing/parsing.py). Anything else is left as it came: the
    field's check then refuses it, or the token is an unknown one. For ONE_VALUE_HEADERS only."""
    if "," not in value:
        return value
    values = {part.strip(OWS) for part in value.split(",")}
    return values.pop() if len(values) == 1 else value


def header_value(name: str, value: str) -> str:
    """A request header's value as the service reads it: `one_value` for ONE_VALUE_HEADERS, else as it came."""
    return one_value(value) if name.lower() in ONE_VALUE_HEADERS else value


class HeaderValue(fields.String):
    """A header value, surrounding spaces and tabs removed (and lower-cased with `lower=True`)."""

    def __init__(self, *, lower: bool = False, **kwargs: Any) -> None:
        kwargs.setdefault("error_messages", {"required": MISSING})
        super().__init__(**kwargs)
        self.lower = lower

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        text = super()._deserialize(value, attr, data, **kwargs).strip(OWS)
        return text.lower() if self.lower else text


def language_header() -> HeaderValue:
    """`language-id`: a supported language, optionally `-<retailer>`."""
    return HeaderValue(
        data_key="language-id",
        required=True,
        lower=True,
        validate=FullMatch(
            LANGUAGE_PATTERN,
            error=f"Must be one of {', '.join(SUPPORTED_LANGUAGES)}, optionally followed by -<retailer>.",
        ),
        metadata={"description": "`fr` or `en`, optionally `-<retailer>` for text overrides (read in any case)."},
    )


def session_header() -> HeaderValue:
    """`session-id`: the browsing session."""
    return HeaderValue(
        data_key="session-id",
        required=True,
        validate=FullMatch(IDENTITY_PATTERN, error=IDENTITY_MESSAGE),
        metadata={"description": "The browsing session."},
    )


def profiling_header() -> HeaderValue:
    """`profiling`: `false` turns profiling off upstream."""
    return HeaderValue(
        lower=True,
        validate=validate.OneOf(PROFILING_VALUES, error="Must be 'true' or 'false'."),
        metadata={
            "description": "`false` keeps the user's history out of suggestions (read in any case: `FALSE` too).",
            "default": "true",
        },
    )


class RequestHeaders(Schema):
    """The identity, language, session and supplier of a request. Empty headers count as absent."""

    class Meta:
        unknown = EXCLUDE

    authorization = HeaderValue(
        validate=FullMatch(AUTHORIZATION_PATTERN, error=f"Must be 'user_id <USER_ID>'. {IDENTITY_MESSAGE}"),
        metadata={"description": "`user_id <USER_ID>` for a logged-in user; send it or `authless-id`."},
    )
    authless_id = HeaderValue(
        data_key="authless-id",
        validate=FullMatch(IDENTITY_PATTERN, error=IDENTITY_MESSAGE),
        metadata={
            "description": "The id of a logged-out user (instead of `authorization`, which wins when both are sent)."
        },
    )
    language_id = language_header()
    session_id = session_header()
    supplier_token = HeaderValue(
        data_key="supplier-token",
        metadata={
            "description": "The supplier's token; without a valid one, cards have no supplier features "
            "(logged, not refused)."
        },
    )
    profiling = profiling_header()

    @pre_load
    def drop_empty_values(self, headers: dict[str, Any], **_: Any) -> dict[str, Any]:
        """An empty header counts as absent."""
        return {name: value for name, value in headers.items() if not isinstance(value, str) or value.strip(OWS)}

    @validates_schema(skip_on_field_errors=False, pass_original=True)
    def needs_an_identity(self, data: dict[str, Any], original: dict[str, Any], **_: Any) -> None:
        """A user (`authorization`) or a logged-out visitor (`authless-id`), well-formed or not."""
        if not any(str(original.get(name) or "").strip(OWS) for name in ("authorization", "authless-id")):
            raise ValidationError(
                {"authorization": ["Send 'authorization: user_id <USER_ID>' or 'authless-id: <ID>'."]}
            )

    @post_load
    def identity(self, data: dict[str, Any], **_: Any) -> dict[str, Any]:
        """The request context's values: user or authless id, language and text variant, profiling.

        A request naming both a user and a logged-out visitor is the user's (a customer's server may send its
        visitor's authless id on every call, before and after the login): the authless id is then left out, as
        the upstream's authorization leaves it out (prerender/web/context.py)."""
        language = LANGUAGE_PATTERN.fullmatch(data["language_id"])
        user = AUTHORIZATION_PATTERN.fullmatch(data["authorization"]) if "authorization" in data else None
        return {
            "user_id": user.group(1) if user else None,
            "authless_id": None if user else data.get("authless_id"),
            "language": language.group(1) if language else "",
            "i18n_variant": language.group(2) if language else None,
            "session_id": data["session_id"],
            "supplier_token": data.get("supplier_token"),
            "profiling": PROFILING_VALUES[data.get("profiling", "true")],
        }


class VisitorHeaders(RequestHeaders):
    """The headers of a route a visitor calls before having an identity (the authless-token route): the
    same rules, with neither `authorization` nor `authless-id` required."""

    def needs_an_identity(self, data: dict[str, Any], original: dict[str, Any], **_: Any) -> None:
        """No identity needed here (this override is not a validator)."""


class BrowserHeaders(Schema):
    """The headers of the browser routes (docs/security.md): who the shopper is comes from the credential
    prerender issued (`authorization: Bearer <credential>`, checked by the header guard), never from a claim;
    `supplier-token`, `authless-id` and `user_id` authorizations have no place here."""

    class Meta:
        unknown = EXCLUDE

    authorization = HeaderValue(
        validate=FullMatch(BEARER_PATTERN, error="Must be 'Bearer <credential>'."),
        metadata={"description": "`Bearer <credential>`: the shopper's credential from a fragment or the bootstrap."},
    )
    language_id = language_header()
    session_id = session_header()
    profiling = profiling_header()

    @pre_load
    def drop_empty_values(self, headers: dict[str, Any], **_: Any) -> dict[str, Any]:
        """An empty header counts as absent."""
        return {name: value for name, value in headers.items() if not isinstance(value, str) or value.strip(OWS)}

    @post_load
    def context_values(self, data: dict[str, Any], **_: Any) -> dict[str, Any]:
        """The request context's values besides the shopper: language and text variant, session, profiling."""
        language = LANGUAGE_PATTERN.fullmatch(data["language_id"])
        return {
            "language": language.group(1) if language else "",
            "i18n_variant": language.group(2) if language else None,
            "session_id": data["session_id"],
            "profiling": PROFILING_VALUES[data.get("profiling", "true")],
        }


class WriteHeaders(Schema):
    """The optional idempotency key of a basket write: the same key again returns the first outcome
    instead of applying the write twice, so a browser may retry a write whose outcome it does not know."""

    class Meta:
        unknown = EXCLUDE

    idempotency_key = HeaderValue(
        data_key="idempotency-key",
        load_default=None,
        validate=FullMatch(IDENTITY_PATTERN, error=IDENTITY_MESSAGE),
        metadata={"description": "A key the client keeps across retries of one write (e.g. a UUID)."},
    )


class AuthlessCredentialHeaders(Schema):
    """The second proof a browser's merge of an authless basket needs: the credential of the authless visitor
    whose basket joins the user's (docs/security.md)."""

    class Meta:
        unknown = EXCLUDE

    authless_credential = HeaderValue(
        data_key="authless-credential",
        load_default=None,
        validate=FullMatch(re.compile(r"^[A-Za-z0-9._~+/-]+=*$"), error="Must be a credential."),
        metadata={"description": "From a browser: the logged-out visitor's credential (proof of that identity)."},
    )


class MergeHeaders(WriteHeaders, AuthlessCredentialHeaders):
    """A merge's idempotency key, and from a browser the authless visitor's credential."""

    class Meta(WriteHeaders.Meta):
        pass


class CorrelationHeaders(Schema):
    """The optional correlation headers of any request: its id (plumbing/request_id.py, with this pattern) and its
    caller's trace (plumbing/trace_context.py)."""

    class Meta:
        unknown = EXCLUDE

    request_id = fields.String(
        data_key="X-Request-Id",
        validate=FullMatch(REQUEST_ID_PATTERN),
        metadata={"description": "Echoed back and passed upstream; a new one is made when absent or malformed."},
    )
    traceparent = fields.String(
        data_key="traceparent",
        metadata={
            "description": "W3C Trace Context: the caller's trace and span (`00-<trace id>-<span id>-<flags>`). Its "
            "trace id is logged with the request, and the upstream calls made for it name prerender's own span as "
            "their parent. One that does not match is ignored, never refused.",
            "pattern": "^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}(-.*)?$",
            "examples": ["00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"],
        },
    )
    tracestate = fields.String(
        data_key="tracestate",
        metadata={
            "description": "W3C Trace Context: the tracing systems' own entries, passed upstream with a valid "
            "`traceparent`, as one list of its entries within 512 characters (entries over 128 characters left out "
            "first, then entries from the end); ignored when it is not a valid list.",
        },
    )


def request_header_names() -> list[str]:
    """Every request header the service reads, as sent (CORS preflights must allow them)."""
    return [
        field.data_key or name
        for schema in (RequestHeaders(), WriteHeaders(), CorrelationHeaders(), AuthlessCredentialHeaders())
        for name, field in schema.fields.items()
    ]
