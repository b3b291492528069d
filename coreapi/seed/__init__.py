"""Seeding an empty database with the demo catalog of ``data/`` (format: ``README.md``).

Every table is filled with one bulk INSERT, so the whole catalog loads in well under a second.
Money and quantities are read from JSON as ``Decimal``, never through a float.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from decimal import Decimal
from pathlib import Path
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from coreapi.extensions import Base
from coreapi.models import (
    Category,
    Equipment,
    Ingredient,
    Product,
    ProductIngredient,
    Recipe,
    RecipeCategory,
    RecipeEquipment,
    RecipeIngredient,
    RecipeStep,
    Store,
    StoreProduct,
    Supplier,
)
from coreapi.services.pricing import shelf_price
from coreapi.services.text import search_key

Row = dict[str, Any]


def read_json(data_dir: Path, name: str) -> list[Row]:
    with (data_dir / name).open(encoding="utf-8") as file:
        rows: list[Row] = json.load(file, parse_float=Decimal)
    return rows


def is_seeded(session: Session) -> bool:
    """Whether the database already holds a catalog."""
    return session.scalar(select(Recipe.id).limit(1)) is not None


def load_catalog(session: Session, data_dir: Path) -> dict[str, int]:
    """Insert the catalog of ``data_dir`` (tables must exist and be empty); rows per table.

    The caller commits.
    """
    counts = {}
    for model, rows in catalog_rows(data_dir):
        if rows:
            session.execute(insert(model), rows)
        counts[model.__tablename__] = len(rows)
    return counts


def catalog_rows(data_dir: Path) -> list[tuple[type[Base], list[Row]]]:
    """The rows of every catalog table, from ``data_dir``, in an order that inserts them (referred
    rows first)."""
    categories = read_json(data_dir, "categories.json")
    equipment = read_json(data_dir, "equipment.json")
    ingredients = read_json(data_dir, "ingredients.json")
    products = read_json(data_dir, "products.json")
    stores = read_json(data_dir, "stores.json")
    recipes = read_json(data_dir, "recipes.json")
    suppliers = read_json(data_dir, "suppliers.json")

    tables: list[tuple[type[Base], list[Row]]] = [
        (Category, [_category(row, position) for position, row in enumerate(categories)]),
        (Equipment, [_equipment(row, position) for position, row in enumerate(equipment)]),
        (Ingredient, [_ingredient(row) for row in ingredients]),
        (Product, [_product(row) for row in products]),
        (ProductIngredient, list(_product_ingredients(products))),
        (Store, [_store(row) for row in stores]),
        (StoreProduct, list(_store_products(stores, products))),
        (Recipe, [_recipe(row) for row in recipes]),
        (RecipeCategory, list(_recipe_categories(recipes))),
        (RecipeIngredient, list(_recipe_ingredients(recipes))),
        (RecipeStep, list(_recipe_steps(recipes))),
        (RecipeEquipment, list(_recipe_equipment(recipes))),
        (Supplier, [_supplier(row) for row in _affiliated_last(suppliers)]),
    ]
    return tables


def _category(row: Row, position: int) -> Row:
    return {
        "id": row["id"],
        "name": row["name"],
        "name_en": row.get("name_en"),
        "position": position,
        "diet": bool(row.get("diet", False)),
    }


def _equipment(row: Row, position: int) -> Row:
    return {
        "id": row["id"],
        "name": row["name"],
        "name_en": row.get("name_en"),
        "position": position,
    }


def _ingredient(row: Row) -> Row:
    return {
        "id": row["id"],
        "name": row["name"],
        "name_en": row.get("name_en"),
        "unit": row["unit"],
        "color": row.get("color"),
    }


def _product(row: Row) -> Row:
    return {
        "id": int(row["id"]),
        "name": row["name"],
        "brand": row.get("brand"),
        "size_value": Decimal(row["size_value"]),
        "size_unit": row["size_unit"],
        "price": Decimal(row["price"]),
        "aisle": row.get("aisle"),
        "package": row.get("package"),
        "search_text": search_key(row["name"], row.get("brand")),
    }


def _product_ingredients(products: Iterable[Row]) -> Iterable[Row]:
    for product in products:
        for link in product.get("ingredients", []):
            yield {
                "product_id": int(product["id"]),
                "ingredient_id": link["id"],
                "rank": int(link["rank"]),
            }


def _store(row: Row) -> Row:
    return {
        "id": int(row["id"]),
        "name": row["name"],
        "city": row["city"],
        "price_factor": Decimal(row.get("price_factor", 1)),
        "latitude": _coordinate(row.get("latitude")),
        "longitude": _coordinate(row.get("longitude")),
    }


def _coordinate(value: Any) -> Decimal | None:
    """A store's latitude or longitude in degrees (read as a ``Decimal``), ``None`` when unknown."""
    return None if value is None else Decimal(value)


def _store_products(stores: Iterable[Row], products: list[Row]) -> Iterable[Row]:
    """Every product at every store: price by the store's factor, its gaps and promotions."""
    for store in stores:
        factor = Decimal(store.get("price_factor", 1))
        unavailable = set(store.get("unavailable_product_ids", []))
        promoted = set(store.get("promoted_product_ids", []))
        for product in products:
            yield {
                "store_id": int(store["id"]),
                "product_id": int(product["id"]),
                "price": shelf_price(Decimal(product["price"]), factor),
                "available": product["id"] not in unavailable,
                "promoted": product["id"] in promoted,
            }


def _recipe(row: Row) -> Row:
    return {
        "id": int(row["id"]),
        "external_id": row["external_id"],
        "title": row["title"],
        "title_en": row.get("title_en"),
        "description": row.get("description", ""),
        "description_en": row.get("description_en"),
        "type": row["type"],
        "difficulty": int(row["difficulty"]),
        "preparation_time": int(row["preparation_time"]),
        "cooking_time": int(row["cooking_time"]),
        "guests": int(row["guests"]),
        "search_text": search_key(row["title"], row.get("title_en"), row.get("description"), row.get("description_en")),
    }


def _recipe_categories(recipes: Iterable[Row]) -> Iterable[Row]:
    for recipe in recipes:
        for position, category_id in enumerate(dict.fromkeys(recipe.get("categories", []))):
            yield {
                "recipe_id": int(recipe["id"]),
                "category_id": category_id,
                "position": position,
            }


def _recipe_ingredients(recipes: Iterable[Row]) -> Iterable[Row]:
    for recipe in recipes:
        for position, item in enumerate(recipe["ingredients"], start=1):
            yield {
                "recipe_id": int(recipe["id"]),
                "ingredient_id": item["id"],
                "position": position,
                "quantity": Decimal(item["quantity"]),
                "is_primary": bool(item.get("primary", False)),
                "display_unit": item.get("display_unit"),
            }


def _recipe_steps(recipes: Iterable[Row]) -> Iterable[Row]:
    for recipe in recipes:
        for language, key in (("fr", "steps"), ("en", "steps_en")):
            for position, text in enumerate(recipe.get(key) or [], start=1):
                yield {
                    "recipe_id": int(recipe["id"]),
                    "language": language,
                    "position": position,
                    "text": text,
                }


def _recipe_equipment(recipes: Iterable[Row]) -> Iterable[Row]:
    for recipe in recipes:
        for equipment_id in dict.fromkeys(recipe.get("equipment", [])):
            yield {"recipe_id": int(recipe["id"]), "equipment_id": equipment_id}


def _affiliated_last(suppliers: list[Row]) -> list[Row]:
    """Suppliers without an affiliation first, so every reference exists when inserted."""
    return sorted(suppliers, key=lambda row: row.get("affiliated_supplier_id") is not None)


def _supplier(row: Row) -> Row:
    affiliated = row.get("affiliated_supplier_id")
    return {
        "id": int(row["id"]),
        "name": row["name"],
        "token": row["token"],
        "kind": row["kind"],
        "personalization": bool(row.get("personalization", True)),
        "affiliated_supplier_id": int(affiliated) if affiliated is not None else None,
        "routing": _plain(row.get("routing", {})),
    }


def _plain(value: Any) -> Any:
    """JSON read with ``Decimal`` numbers, back to plain JSON types for a JSON column."""
    return json.loads(json.dumps(value, default=float))
