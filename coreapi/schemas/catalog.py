"""Stores, categories, suppliers and products."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from coreapi.schemas.common import MAX_PER_PAGE, PaginationArgs
from coreapi.schemas.fields import PRODUCT_PICTURE, Id, Money, PictureUrl, StoreField, id_list


class StoreSchema(Schema):
    id = Id()
    name = fields.String()
    city = fields.String()
    # WGS 84 degrees, null when unknown (both or neither).
    latitude = fields.Float(allow_none=True)
    longitude = fields.Float(allow_none=True)


class CategorySchema(Schema):
    id = Id()
    name = fields.String()


class SupplierSchema(Schema):
    id = Id()
    name = fields.String()
    kind = fields.String()
    personalization = fields.Boolean()
    affiliated_supplier_id = Id(allow_none=True)
    routing = fields.Dict(keys=fields.String())


class ProductSchema(Schema):
    id = Id()
    name = fields.String()
    brand = fields.String(allow_none=True)
    size = fields.String()
    picture_url = PictureUrl(*PRODUCT_PICTURE)
    price = Money(allow_none=True)
    available = fields.Boolean(allow_none=True)
    promoted = fields.Boolean(allow_none=True)
    ingredient_ids = fields.List(Id())


class ProductsArgs(PaginationArgs):
    store = StoreField(data_key="store_id", load_default=None)
    q = fields.String(load_default=None, validate=validate.Length(max=200))
    ids = id_list(load_default=None)
    per_page = fields.Integer(load_default=24, validate=validate.Range(min=1, max=MAX_PER_PAGE))
