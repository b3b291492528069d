"""Recipe details, the drawer's content: what the shopping and cooking tabs show, already decided.

Each ingredient gets its first available product at the store (the one the basket takes), the other
candidates for "replace", and the number of packages for the guests (docs/upstream.md, `packages`).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from flask import current_app, render_template

from prerender.gateway import Recipe, get_upstream
from prerender.rendering.i18n import Translator, translator_for
from prerender.rendering.pictures import safe_picture_url
from prerender.web.context import RequestContext

# Text templates the drawer module fills in the browser ({name}, {count} placeholders kept).
BROWSER_TEXTS = {
    "details.decrease": "DECREASE",
    "details.increase": "INCREASE",
    "details.add": "ADD",
    "details.add-all": "ADD_ALL",
    "details.in-basket": "IN_BASKET",
    "details.packages": "PACKAGES",
}


@dataclass(frozen=True)
class ProductView:
    id: str
    name: str
    brand: str
    size: str
    picture_url: str | None
    packages: int
    unit_price: Decimal | None
    unit_price_text: str | None
    line_price_text: str | None
    available: bool
    promoted: bool


@dataclass(frozen=True)
class IngredientView:
    id: str
    name: str
    display: str
    primary: bool
    chosen: ProductView | None
    alternatives: tuple[ProductView, ...]


@dataclass(frozen=True)
class RecipeDetailsView:
    recipe_id: str
    title: str
    description: str
    picture_url: str | None
    preparation_time: int
    cooking_time: int
    total_time: int
    difficulty: int | None
    guests: int
    store_id: str | None
    price_per_guest_text: str | None
    total_text: str | None
    product_count: int
    ingredients: tuple[IngredientView, ...]
    steps: tuple[str, ...]
    # The recipe's diets and themes (shown once the page calls `features.enableTagsOnRecipes()`).
    tags: tuple[str, ...] = ()
    # The customer's catalog home, from the supplier's routing (None: the link waits for the page's route).

    def browser_data(self, t: Translator) -> dict[str, Any]:
        """What the drawer module needs to act, put in the page through `tojson`: every product it may
        show after a replacement, and the text templates of the controls it draws."""
        return {
            "recipe_id": self.recipe_id,
            "guests": self.guests,
            "store_id": self.store_id,
            "ingredients": [
                {
                    "id": i.id,
                    "name": i.name,
                    "chosen": i.chosen.id if i.chosen else None,
                    "products": [
                        {
                            "id": p.id,
                            "name": p.name,
                            "brand": p.brand,
                            "size": p.size,
                            "picture_url": p.picture_url,
                            "packages": p.packages,
                            "unit_price": str(p.unit_price) if p.unit_price is not None else None,
                            "unit_price_text": p.unit_price_text,
                            "available": p.available,
                        }
                        for p in ((i.chosen,) if i.chosen else ()) + i.alternatives
                    ],
                }
                for i in self.ingredients
            ],
            "texts": {key: t.texts.get(f"RECIPE_DETAILS.{name}", "") for key, name in BROWSER_TEXTS.items()},
        }


def _product(raw: dict[str, Any], t: Translator) -> ProductView:
    price = Decimal(str(raw["price"])) if raw.get("price") is not None else None
    packages = max(1, int(raw.get("packages") or 1))
    return ProductView(
        id=str(raw["id"]),
        name=str(raw.get("name", "")),
        brand=str(raw.get("brand") or ""),
        size=str(raw.get("size") or ""),
        picture_url=safe_picture_url(str(raw.get("picture_url") or "")),
        packages=packages,
        unit_price=price,
        unit_price_text=t.money(price) if price is not None else None,
        line_price_text=t.money(price * packages) if price is not None else None,
        available=raw.get("available") is not False,
        promoted=bool(raw.get("promoted")),
    )


def _ingredient(raw: dict[str, Any], *, with_store: bool, t: Translator) -> IngredientView:
    products = [_product(p, t) for p in raw.get("products") or [] if isinstance(p, dict) and "id" in p]
    available = [p for p in products if p.available] if with_store else []
    chosen = available[0] if available else None
    return IngredientView(
        id=str(raw["id"]),
        name=str(raw.get("name", "")),
        display=str(raw.get("display") or ""),
        primary=bool(raw.get("primary")),
        chosen=chosen,
        alternatives=tuple(p for p in available if p is not chosen),
    )


def build_details(
    recipe: Recipe, ctx: RequestContext, *, store_id: str | None, guests: int | None, t: Translator
) -> RecipeDetailsView:
    """The drawer's view model of a recipe at a store for a number of guests."""
    ingredients = tuple(
        _ingredient(i, with_store=store_id is not None, t=t)
        for i in recipe.ingredients
        if isinstance(i, dict) and "id" in i
    )
    pricing = recipe.pricing if store_id else None
    priced = [(i.chosen, i.chosen.unit_price) for i in ingredients if i.chosen and i.chosen.unit_price is not None]
    chosen = [product for product, _ in priced]
    total = sum((price * product.packages for product, price in priced), Decimal(0))
    steps = tuple(str(s.get("text", "")) for s in sorted(recipe.steps, key=lambda s: s.get("position", 0)))
    return RecipeDetailsView(
        recipe_id=recipe.id,
        title=recipe.title,
        description=recipe.description,
        picture_url=safe_picture_url(recipe.picture_url),
        preparation_time=recipe.preparation_time,
        cooking_time=recipe.cooking_time,
        total_time=recipe.total_time,
        difficulty=recipe.difficulty,
        guests=guests or recipe.guests,
        store_id=store_id,
        price_per_guest_text=t.money(pricing.price_per_guest) if pricing and pricing.price_per_guest > 0 else None,
        total_text=t.money(total) if chosen else None,
        product_count=len(chosen),
        ingredients=ingredients,
        steps=steps,
        tags=tuple(tag for tag in recipe.tags if tag.strip()),
    )


def load_details(
    ctx: RequestContext, recipe_id: str, *, store_id: str | None, guests: int | None
) -> RecipeDetailsView | None:
    """The drawer's view model of a recipe at a store for a number of guests (None: unknown recipe). The
    full recipe detail is read: the drawer lists every ingredient and step."""
    recipe = get_upstream().recipes.by_id(ctx.upstream, recipe_id, store_id=store_id, serves=guests)
    if recipe is None:
        return None
    return build_details(recipe, ctx, store_id=store_id, guests=guests, t=translator_for(ctx))


def render_details(details: RecipeDetailsView, ctx: RequestContext) -> str:
    """The drawer's HTML fragment (loaded by the drawer module, which is already on the page)."""
    return render_template(
        "recipe_details/details.html",
        details=details,
        t=translator_for(ctx),
        prefix=current_app.config["ELEMENT_PREFIX"],
    )
