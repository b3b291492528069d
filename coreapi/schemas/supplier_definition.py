"""A new supplier as an operator describes it to ``flask --app coreapi add-supplier``: the JSON of a row of
``coreapi/seed/data/suppliers.json`` without its token (made by the command).

Stricter than the seed, which is ours: an unknown key is refused (a typo would otherwise leave a page unrouted), a
base URL is an absolute http(s) URL without query or fragment, and every other routing entry is a path of the
supplier's site (``/...``), never a URL, since the pages build links from them (prerender/gateway/models.py,
``Routing.url_of``, drops what is not).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from marshmallow import RAISE, Schema, ValidationError, fields, post_load, validate

from coreapi.models import SUPPLIER_KINDS

# The pages of a customer's catalog its routing may name (prerender/gateway/models.py, CATALOG_PAGES).
CATALOG_PAGES = ("category", "list", "favorites", "mySpace", "basketPreview")
FEATURES = ("planner", "catalog")
PLANNER_PAGES = ("current",)
MAX_ID = 2**31 - 1


class SupplierIdField(fields.Field[int]):
    """A supplier's id as the seed writes it (``"4"``) or as a number (``4``): a whole number, 1 to ``MAX_ID``."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int:
        text = str(value) if isinstance(value, int) and not isinstance(value, bool) else value
        if not isinstance(text, str) or not text.isascii() or not text.isdigit() or not 1 <= int(text) <= MAX_ID:
            raise ValidationError(f"A supplier id is a whole number from 1 to {MAX_ID}.")
        return int(text)


def is_site_url(value: str) -> bool:
    """Whether ``value`` can be a routing's ``baseUrl``: an absolute http(s) URL without query or fragment (also
    ``set-site-urls``'s check, coreapi/cli.py)."""
    parts = urlsplit(value)
    return parts.scheme in ("http", "https") and bool(parts.netloc) and not parts.query and not parts.fragment


def _base_url(value: str) -> None:
    if not is_site_url(value):
        raise ValidationError("Not an absolute http(s) URL without query or fragment.")


def _path(value: str) -> None:
    if not value.startswith("/") or value.startswith("//") or urlsplit(value).scheme or any(c.isspace() for c in value):
        raise ValidationError("Not a path of the supplier's site: it starts with one '/' and holds no space.")


def _paths(names: tuple[str, ...]) -> fields.Dict:
    """A dictionary of some of ``names`` to paths."""
    return fields.Dict(
        keys=fields.String(validate=validate.OneOf(names)),
        values=fields.String(validate=[validate.Length(max=500), _path]),
        load_default=dict,
    )


class RoutingDefinitionSchema(Schema):
    """One environment's routing (``local``, ``production``...)."""

    class Meta:
        unknown = RAISE

    baseUrl = fields.String(required=True, validate=[validate.Length(max=500), _base_url])
    features = _paths(FEATURES)
    planner = _paths(PLANNER_PAGES)
    retailerCart = fields.String(load_default=None, validate=[validate.Length(max=500), _path], allow_none=True)
    catalog = _paths(CATALOG_PAGES)

    @post_load
    def plain(self, data: dict[str, Any], **_: Any) -> dict[str, Any]:
        """Stored as the seed's rows are: a base URL without its trailing slash, no empty entry."""
        data["baseUrl"] = data["baseUrl"].rstrip("/")
        return {key: value for key, value in data.items() if value not in (None, {})}


class SupplierDefinitionSchema(Schema):
    class Meta:
        unknown = RAISE

    id = SupplierIdField(required=True)
    name = fields.String(required=True, validate=validate.Length(min=1, max=200))
    kind = fields.String(required=True, validate=validate.OneOf(SUPPLIER_KINDS))
    personalization = fields.Boolean(load_default=True)
    # A publisher's retailer, to which its shoppers' baskets are handed over (coreapi/services/transfers.py).
    affiliated_supplier_id = SupplierIdField(load_default=None, allow_none=True)
    routing = fields.Dict(
        keys=fields.String(validate=validate.Regexp(r"^[a-z][a-z0-9_-]{0,31}$")),
        values=fields.Nested(RoutingDefinitionSchema),
        load_default=dict,
    )

    @post_load
    def checked(self, data: dict[str, Any], **_: Any) -> dict[str, Any]:
        if not data["name"].strip():
            raise ValidationError("A name is needed.", "name")
        if data["affiliated_supplier_id"] is not None and data["kind"] != "publisher":
            raise ValidationError("Only a publisher hands its baskets over to a retailer.", "affiliated_supplier_id")
        return data
