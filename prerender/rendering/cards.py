"""Recipe cards: choosing the recipes, deciding what each card shows, rendering the fragments.

Shared by the single and the multiple route, which must return the same HTML (README.md).
Upstream failures propagate as gateway errors; the blueprints decide what the customer sees. A card's HTML
does not depend on who asks beyond connected or not: the heart is rendered unpressed, and the browser fills
in the like states of all the page's hearts with one batched call (`GET /{v}/likes`, sdk/likes.js), so the
card of a logged-in user is rendered once per worker and read from the memo after (docs/decisions.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal

from flask import current_app, render_template

from prerender.gateway import Recipe, SuggestionContext, get_upstream
from prerender.rendering.assets import get_assets
from prerender.rendering.fragments import get_fragments
from prerender.rendering.i18n import Translator, translator_for
from prerender.rendering.pictures import HIGH, LAZY, card_ingredient_pictures, safe_picture_url
from prerender.rendering.preferences import has_preferences
from prerender.schemas.variants import BADGE_VARIANTS, rendered_variant
from prerender.web.context import RequestContext

CARD_MODULES = ("sdk/svc.js", "components/recipe-card.js")


@dataclass(frozen=True)
class CardOptions:
    """How the caller wants its cards: the display parameters of the card routes."""

    display_variant: int
    orientation: str
    store_id: str | None
    serves: int | None
    # The caller shows these cards in the page's first viewport: the first card's picture is fetched at once
    # and first (pictures.HIGH), the others' when they near the viewport (docs/decisions.md).
    above_fold: bool = False


@dataclass(frozen=True)
class RecipeCardView:
    """Everything the card template shows, already decided."""

    recipe_id: str
    title: str
    picture_url: str | None
    total_time: int
    difficulty: int | None
    guests: int
    variant: int
    orientation: str
    store_id: str | None
    price_per_guest: Decimal | None
    price_per_guest_text: str | None
    badge: str | None
    badge_promoted: bool
    # The heart, unpressed: the browser loads the user's like states (sdk/likes.js).
    show_like: bool
    show_cta: bool
    # Personalization disabled for a known supplier: the browser draws the heart (for the connected user
    # it knows) and the CTA. The HTML is then the same for every user, hence cacheable.
    client_personalization: bool
    # The time, difficulty and guests line (catalog pages leave it out unless `display_infos`).
    show_infos: bool = True
    # Pictures of the recipe's products, shown under the title when the page asks for them (recipe-card.js).
    ingredient_pictures: tuple[str, ...] = ()
    # How the picture loads (pictures.HIGH, EAGER or LAZY): lazy unless the caller says where the card goes.
    picture_priority: str = LAZY
    # The element's `id` (`<prefix>-recipe-card-<recipe>`): False on a recipe's later cards in one fragment (the
    # catalog's home shows a recipe in each of its categories' rows), since an id names one element of a page.
    carries_id: bool = True


# --- choosing recipes ----------------------------------------------------------------------------


def fixed_card(ctx: RequestContext, recipe_id: str, options: CardOptions) -> str:
    """The fragment of a fixed recipe ("" when unknown or hidden). The recipe is read as a summary: without its
    ingredients and steps, all a card needs."""
    recipe = get_upstream().recipes.by_id(
        ctx.upstream, recipe_id, store_id=options.store_id, serves=options.serves, summary=True
    )
    return render_cards({"card": recipe}, options, ctx)["card"]


def suggested_cards(
    ctx: RequestContext,
    contexts: Sequence[SuggestionContext],
    options: CardOptions,
    *,
    category_id: str | None = None,
    keyword: str | None = None,
    order: Sequence[str] | None = None,
) -> dict[str, str]:
    """The fragment suggested for each context key, in two sequential upstream calls whatever the number of
    contexts (the suggestions, then the recipes); `order`: the keys in the page's order (render_cards)."""
    upstream = get_upstream()
    chosen = upstream.suggestions.recipe_for_each(
        ctx.upstream,
        contexts,
        store_id=options.store_id,
        category_id=category_id,
        keyword=keyword,
        apply_preferences=has_preferences(ctx),
    )
    recipe_ids = [rid for rid in chosen.values() if rid]
    recipes = upstream.recipes.by_ids(
        ctx.upstream, recipe_ids, store_id=options.store_id, serves=options.serves, summary=True
    )
    picked = {context.key: recipes.get(chosen.get(context.key) or "") for context in contexts}
    return render_cards(picked, options, ctx, order=order)


# --- deciding what a card shows --------------------------------------------------------------------


def is_displayable(recipe: Recipe | None, options: CardOptions) -> bool:
    """Completion filter: no card when the primary ingredient is unavailable at the store."""
    return recipe is not None and not (options.store_id and recipe.available is False)


def wants_likes(ctx: RequestContext) -> bool:
    """The heart shows for connected users of suppliers with personalization on."""
    return ctx.is_connected and ctx.personalization


def build_card(recipe: Recipe, options: CardOptions, ctx: RequestContext, *, t: Translator) -> RecipeCardView:
    """The view model of one card."""
    variant = rendered_variant(ctx.api_version, options.display_variant)
    pricing = recipe.pricing if options.store_id else None
    price = pricing.price_per_guest if pricing and pricing.price_per_guest > 0 else None
    badge = None
    if variant in BADGE_VARIANTS:
        badge = t("RECIPE_CARD.BADGE_PROMOTED") if recipe.promoted else t.get(f"RECIPE_CARD.TYPE_{recipe.type}")
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
        show_cta=ctx.personalization,
        client_personalization=ctx.supplier is not None and not ctx.supplier.personalization,
        ingredient_pictures=card_ingredient_pictures(recipe),
    )


# --- rendering -------------------------------------------------------------------------------------


def render_card(card: RecipeCardView, t: Translator) -> str:
    """The HTML fragment of one card, ending with the module scripts that upgrade it (memoized: the
    fragment depends on nothing but these values and the app's fixed prefix, see fragments.py)."""
    module_urls = get_assets().module_urls(CARD_MODULES)
    # Translators live as long as the app (i18n.TextCatalog), so their identity names their texts. The
    # price's text is in the key too: Decimal("2.5") == Decimal("2.50"), but they would not print the same.
    return get_fragments().get_or_render(
        ("recipe-card", card, str(card.price_per_guest), id(t), module_urls),
        lambda: render_template(
            "recipe_card/fragment.html",
            card=card,
            t=t,
            prefix=current_app.config["ELEMENT_PREFIX"],
            module_urls=module_urls,
        ),
    )


def render_cards(
    recipes: Mapping[str, Recipe | None],
    options: CardOptions,
    ctx: RequestContext,
    *,
    order: Sequence[str] | None = None,
) -> dict[str, str]:
    """The fragment of each key's recipe; "" where there is none or the completion filter hides it. Above the
    fold, the first card shown in the page's `order` of the keys (default: the mapping's) has the high-priority
    picture."""
    t = translator_for(ctx)
    shown = {key: recipe for key, recipe in recipes.items() if recipe is not None and is_displayable(recipe, options)}
    lead = next((key for key in order or recipes if key in shown), None) if options.above_fold else None
    html = dict.fromkeys(recipes, "")
    for key, recipe in shown.items():
        card = build_card(recipe, options, ctx, t=t)
        html[key] = render_card(replace(card, picture_priority=HIGH) if key == lead else card, t)
    return html
