"""The likes of a connected user."""

from __future__ import annotations

from marshmallow import Schema, fields

from coreapi.schemas.fields import Id, id_list


class LikesArgs(Schema):
    recipe_ids = id_list(required=True)


class LikedRecipesSchema(Schema):
    data = fields.List(Id())
