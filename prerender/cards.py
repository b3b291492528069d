"""Recipe cards: from a recipe and the request, the card's view model and its HTML fragment.

Shared by the single and the multiple route, which must return the same HTML (spec: card result).
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from urllib.parse import urlsplit

from flask import current_app, render_template

from .assets import get_assets
from .context import RequestContext
from .gateway import Recipe
from .i18n import Translator, translator
# v2 accepts display_variant 1 to 4 and normalizes it to the three rendered layouts (docs/decisions.md).
V2_VARIANT_NORMALIZATION = {1: 1, 2: 2, 3: 3, 4: 3}
BADGE_VARIANTS = frozenset({2, 3})
CARD_MODULES = ("sdk/svc.js", "components/recipe-card.js")


@dataclass(frozen=True)
class CardOptions:
    """How the caller wants its cards: the display parameters of the card routes."""

    display_variant: int
    orientation: str
    store_id: str | None
    serves: int | None


@dataclass(frozen=True)
class RecipeCardView:
    """Everything the card template shows, already decided."""

    recipe_id: str
    title: str
    picture_url: str | None
    total_time: int
    difficulty: int
    guests: int
    variant: int
    orientation: str
    store_id: str | None
    price_per_guest: Decimal | None
    price_per_guest_text: str | None
    badge: str | None
    badge_promoted: bool
    show_like: bool
    liked: bool
    show_cta: bool


def rendered_variant(api_version: str, display_variant: int) -> int:
    """The layout a requested display_variant renders as in an API version."""
    if api_version == "v2":
        return V2_VARIANT_NORMALIZATION[display_variant]
    return display_variant


def safe_picture_url(url: str) -> str | None:
    """Upstream URLs go into src attributes: only absolute http(s) URLs, never javascript: or data:."""
    parts = urlsplit(url.strip())
    return url.strip() if parts.scheme in ("http", "https") and parts.netloc else None


def is_displayable(recipe: Recipe | None, options: CardOptions) -> bool:
    """Completion filter (spec, item 9): no card when the primary ingredient is unavailable at the store."""
    return recipe is not None and not (options.store_id and recipe.available is False)


def wants_likes(ctx: RequestContext) -> bool:
    """The heart shows for connected users of suppliers with personalization on (spec, items 2 and 8)."""
    return ctx.is_connected and ctx.personalization


def build_card(recipe: Recipe, options: CardOptions, ctx: RequestContext, *, liked: bool,
               t: Translator) -> RecipeCardView:
    """The view model of one card."""
    variant = rendered_variant(ctx.api_version, options.display_variant)
    pricing = recipe.pricing if options.store_id else None
    price = pricing.price_per_guest if pricing and pricing.price_per_guest > 0 else None
    badge = None
    if variant in BADGE_VARIANTS:
        badge = t("RECIPE_CARD.BADGE_PROMOTED") if recipe.promoted else t(f"RECIPE_CARD.TYPE_{recipe.type}")
    return RecipeCardView(
        recipe_id=recipe.id,
        title=recipe.title,
        picture_url=safe_picture_url(recipe.picture_url),
        total_time=recipe.total_time,
        difficulty=recipe.difficulty,
        guests=options.serves or recipe.guests,
        variant=variant,
        orientation=options.orientation,
        store_id=options.store_id,
        price_per_guest=price,
        price_per_guest_text=t.money(price) if price is not None else None,
        badge=badge,
        badge_promoted=badge is not None and recipe.promoted,
        show_like=wants_likes(ctx),
        liked=liked,
        show_cta=ctx.personalization,
    )


def translator_for(ctx: RequestContext) -> Translator:
    """The texts of the request's language-id."""
    return translator(ctx.language, ctx.i18n_variant)


def render_card(card: RecipeCardView, t: Translator) -> str:
    """The HTML fragment of one card, ending with the module scripts that upgrade it."""
    assets = get_assets()
    return render_template("recipe_card/fragment.html", card=card, t=t,
                           prefix=current_app.config["ELEMENT_PREFIX"],
                           module_urls=[assets.url(name) for name in CARD_MODULES])
