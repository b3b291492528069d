"""The planner's current-menu page (GET /v2/planner/current-menu, GET /v2/planner): the shopper's menu, what
to add to it, and the page's fragment.

One page costs a fixed number of upstream calls, whatever the menu holds (`make bench` measures it):
1. `GET /menus/current`: the menu (created from the suggestions, or empty for `mode=custom`, when the
   shopper has none; moved to `store_id` when it is elsewhere), its recipes and their products included;
2. the left panel's recipes: `GET /menus/current/suggestions` (the shopper's suggestions without the menu's
   recipes), or `GET /recipes` when the page was asked for a type or a keyword (the catalog panel);
3. `GET /recipes/batch?view=summary` for those recipes' cards (prices at the store; often cached).
The catalog panel's browser route (`GET /v2/planner/recipes`) makes calls 2 and 3 alone.

Without a known supplier (no valid supplier-token, or a browser credential of a supplier the upstream no
longer knows) the page says the planner is not available, and calls nothing. Without a store, the menu has
no products, prices nor budget (docs/upstream.md, "Menus").

When the upstream fails (the menu cannot be read, or the supplier-token could not be checked) the page is its
"try again" state (`retry_page`): the same element, a message and a retry button, and the page's module asks
the page again by itself (components/planner.js); prerender/blueprints/planner.py marks the answer degraded.
Never a stale copy of the menu: docs/decisions.md, "Issue 22", says why.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal
from typing import Any

from flask import current_app, render_template

from prerender.gateway import Recipe, RecipeQuery, Supplier, UpstreamError, fallbacks, get_upstream
from prerender.rendering.assets import get_assets
from prerender.rendering.cards import CardOptions, RecipeCardView, build_card, is_displayable
from prerender.rendering.i18n import Translator, translator_for
from prerender.rendering.pictures import safe_picture_url
from prerender.rendering.planner import ONBOARDING_STEPS, planner_destination
from prerender.rendering.preferences import has_preferences
from prerender.schemas.menus import MAX_PANEL_PAGE
from prerender.web import upstream_answers
from prerender.web.context import RequestContext

# Plate slots the menu always shows, and avatars of the quick menu (the specification's planner limits).
PLATE_SLOTS = 6
# The menu's guest stepper (the upstream's bounds for a menu's guests).
GUESTS_MIN = 1
GUESTS_MAX = 50
# Suggestions and catalog results per page of the left panel.
PANEL_SIZE = 6
# The page's views below the desktop breakpoint (planner.css: 960px of planner width).
VIEWS = ("recipe", "menu")
# The catalog panel's filters, in the order shown (GET /recipes `type`).
RECIPE_TYPES = ("main-dish", "starter", "dessert", "drink")
# Every module the page runs, as scripts of its own so that the browser fetches them at once (planner.js also
# imports the card's, its panel's cards being <svc-recipe-card>).
PAGE_MODULES = (
    "sdk/svc.js",
    "components/recipe-card.js",
    "components/planner-onboarding.js",
    "components/planner.js",
)
# Text templates the page's module fills in the browser ({count}, {title}... kept).
BROWSER_TEXTS = (
    "PLANNER_PAGE.ADDED",
    "PLANNER_PAGE.REMOVED",
    "PLANNER_PAGE.SWAPPED",
    "PLANNER_PAGE.FAILED",
    "PLANNER_PAGE.CHANGED_ELSEWHERE",
    "PLANNER_PAGE.UNCONFIRMED",
    "PLANNER_PAGE.NOT_AT_STORE",
    "PLANNER_PAGE.CHOOSE_STORE",
    "PLANNER_PAGE.LOGIN_REQUIRED",
    "PLANNER_PAGE.STORE_REQUIRED",
    "PLANNER_PAGE.CART_FAILED",
    "PLANNER_PAGE.FINALIZED",
    "PLANNER_PAGE.FINALIZING",
    "PLANNER_PAGE.NO_SWAP",
    "PLANNER_PAGE.BUDGET_SAVED",
    "PLANNER_PAGE.BUDGET_WITHIN",
    "PLANNER_PAGE.WORKING",
    "PLANNER_PAGE.PRODUCT_SELECTED",
    "PLANNER_PAGE.PRODUCT_UNSELECTED",
    "PLANNER_PAGE.GUESTS_CHANGED",
    "PLANNER_PAGE.NO_RESULTS",
    "PLANNER_PAGE.RESULTS",
    "PLANNER_PAGE.SUGGESTIONS_SHOWN",
    "PLANNER_PAGE.NO_SUGGESTIONS",
    "PLANNER_RECIPE_SUGGESTION.ADD",
    "PLANNER_PAGE.IN_MENU",
    "PLANNER_PAGE.RETRY_FAILED",
)


@dataclass(frozen=True)
class MenuProductView:
    """One product of a menu recipe: selectable."""

    id: str
    name: str
    brand: str
    size: str
    quantity: int
    price_text: str | None
    selected: bool


@dataclass(frozen=True)
class MenuRecipeView:
    """One recipe of the menu, as its row shows it."""

    id: str
    title: str
    picture_url: str | None
    type: str
    guests: int
    position: int
    # The cost of its selected products (None without a store or without any product).
    price_text: str | None
    products: tuple[MenuProductView, ...]

    @property
    def selected_count(self) -> int:
        return sum(1 for p in self.products if p.selected)


@dataclass(frozen=True)
class QuickMenuView:
    """The compact footer's plates: up to 6 avatars; past 6 recipes, 5 avatars and `+N`."""

    avatars: tuple[MenuRecipeView, ...]
    empty_slots: int
    overflow: int

    @classmethod
    def of(cls, recipes: Sequence[MenuRecipeView]) -> QuickMenuView:
        if len(recipes) > PLATE_SLOTS:
            shown = PLATE_SLOTS - 1
            return cls(avatars=tuple(recipes[:shown]), empty_slots=0, overflow=len(recipes) - shown)
        return cls(avatars=tuple(recipes), empty_slots=PLATE_SLOTS - len(recipes), overflow=0)


@dataclass(frozen=True)
class BudgetView:
    """The budget field and, for a budget above 0, the gauge of the total against it."""

    amount: Decimal | None
    amount_text: str | None
    # The field's value, written as the page's language writes the amount beside it ("40,00" in French); "" for
    # no budget (components/planner.js reads either decimal separator back).
    input_text: str
    # The total's share of the budget (None: no gauge).
    ratio: Decimal | None
    # By how much the total goes over the budget, in words beside the gauge's colour (None: within it).
    over_text: str | None = None

    @property
    def gauge(self) -> bool:
        return self.ratio is not None

    @property
    def percent(self) -> int:
        """The gauge's fill: the ratio (to the thousandth) in whole percent from 0 to 100, rounded down, for
        `data-budget-percent`: static/css/planner.css has a rule per value, so the fill needs no inline `style`,
        which a page's strict `style-src` would block."""
        if self.ratio is None:
            return 0
        return int(min(self.ratio, Decimal(1)).scaleb(2).to_integral_value(rounding=ROUND_DOWN))

    @property
    def over(self) -> bool:
        return self.over_text is not None


@dataclass(frozen=True)
class SuggestionView:
    """A recipe of the left panel: its card (without the basket button: here recipes go to the menu)."""

    card: RecipeCardView
    type: str


@dataclass(frozen=True)
class PanelView:
    """The left panel: the shopper's suggestions, or the catalog's answer to a type or a keyword."""

    items: tuple[SuggestionView, ...]
    types: tuple[str, ...]
    search: str
    page: int
    has_more: bool
    # The panel's recipes could not be read: the page goes on with the menu, the panel says so.
    failed: bool = False

    @property
    def catalog(self) -> bool:
        return bool(self.types or self.search)


EMPTY_PANEL = PanelView(items=(), types=(), search="", page=1, has_more=False)


@dataclass(frozen=True)
class CurrentMenuView:
    """Everything the page template shows, already decided."""

    available: bool
    menu_id: str | None
    store_id: str | None
    guests: int
    recipes: tuple[MenuRecipeView, ...]
    empty_slots: int
    quick_menu: QuickMenuView
    budget: BudgetView | None
    total_text: str | None
    panel: PanelView
    view: str
    # Recipes this request removed by moving the menu to the store (their titles are not known: a count).
    removed_count: int
    # Where finalize leads: the retailer cart, else the catalog home (None: the planner is not available).
    cart_url: str | None
    onboarding_id: str
    mode: str | None
    # The "try again" state (the upstream failed): how the browser retries, "fetch" (the page again from
    # prerender's route, with the shopper's credential the answer carries) or "reload" (no credential could
    # be issued: the host page again, on the button only); None: the page itself.
    retry: str | None = None
    # The query to ask the page again with (the route's own parameters, as they were sent).
    retry_query: dict[str, str] = dataclasses.field(default_factory=dict)

    @property
    def meal_count(self) -> int:
        return len(self.recipes)


# --- the menu ---------------------------------------------------------------------------------------


def _money(value: Any, t: Translator) -> str | None:
    return t.money(Decimal(str(value))) if value is not None else None


def menu_recipe(raw: dict[str, Any], t: Translator) -> MenuRecipeView:
    """One recipe of the upstream's menu answer."""
    products = tuple(
        MenuProductView(
            id=str(p["id"]),
            name=str(p.get("name") or ""),
            brand=str(p.get("brand") or ""),
            size=str(p.get("size") or ""),
            quantity=int(p.get("quantity") or 1),
            price_text=_money(p.get("price"), t),
            selected=p.get("selected") is not False,
        )
        for p in raw.get("products") or []
        if isinstance(p, dict) and "id" in p
    )
    selected = [
        Decimal(str(p["price"]))
        for p in raw.get("products") or []
        if isinstance(p, dict) and p.get("selected") is not False and p.get("price") is not None
    ]
    return MenuRecipeView(
        id=str(raw["id"]),
        title=str(raw.get("title") or ""),
        picture_url=safe_picture_url(str(raw.get("picture_url") or "")),
        type=str(raw.get("type") or ""),
        guests=int(raw.get("guests") or 1),
        position=int(raw.get("position") or 0),
        price_text=t.money(sum(selected, Decimal(0))) if selected else None,
        products=products,
    )


# The largest total-to-budget ratio kept (a thousand times over).
MAX_BUDGET_RATIO = Decimal(1000)


def budget_view(menu: dict[str, Any], t: Translator) -> BudgetView | None:
    """The budget with a store; its gauge only for a budget above 0 (planner.css, `svc-planner__budget`)."""
    if not menu.get("store_id"):
        return None
    raw = menu.get("budget")
    amount = Decimal(str(raw)) if raw is not None else None
    field = budget_input_text(amount, t.language)
    if amount is None or amount <= 0:
        return BudgetView(amount=amount, amount_text=None, input_text=field, ratio=None)
    total = Decimal(str(menu.get("total") or 0))
    # Past the gauge's end it only says "over" (`fill` stops at 100 %): capped, so that an upstream's absurd total
    # against a tiny budget (well-formed numbers both) cannot overflow the quantization.
    ratio = min(total / amount, MAX_BUDGET_RATIO).quantize(Decimal("0.001"))
    over_text = t.money(total - amount) if total > amount else None
    return BudgetView(amount=amount, amount_text=t.money(amount), input_text=field, ratio=ratio, over_text=over_text)


def budget_input_text(amount: Decimal | None, language: str) -> str:
    """The budget field's value in the language's decimals, as `Translator.money` writes the amount without its
    currency: 40,00 in French, 40.00 in English; "" for no budget or a budget of 0."""
    if amount is None or amount <= 0:
        return ""
    cents = f"{amount.quantize(Decimal('0.01'), rounding=ROUND_HALF_UP):.2f}"
    return cents.replace(".", ",") if language == "fr" else cents


# --- the left panel ---------------------------------------------------------------------------------


def panel_cards(
    ctx: RequestContext, ids: Sequence[str], *, store_id: str | None, guests: int
) -> tuple[SuggestionView, ...]:
    """Cards of recipes, in this order, priced at the store for the menu's guests (one batch call, often cached)."""
    if not ids:
        return ()
    options = CardOptions(display_variant=1, orientation="vertical", store_id=store_id, serves=guests)
    upstream = get_upstream()
    recipes: dict[str, Recipe] = upstream.recipes.by_ids(
        ctx.upstream, ids, store_id=store_id, serves=guests, summary=True
    )
    t = translator_for(ctx)
    items = []
    for rid in ids:
        recipe = recipes.get(rid)
        if recipe is None or not is_displayable(recipe, options):
            continue
        card = build_card(recipe, options, ctx, t=t)
        # The planner adds recipes to the menu, not to the basket: no basket button, no heart.
        card = dataclasses.replace(card, show_cta=False, show_like=False, client_personalization=False)
        items.append(SuggestionView(card=card, type=recipe.type))
    return tuple(items)


def load_panel(
    ctx: RequestContext,
    *,
    store_id: str | None,
    guests: int,
    types: Sequence[str],
    search: str,
    page: int,
    exclude_ids: Sequence[str],
) -> PanelView:
    """The left panel: suggestions without the menu's recipes, or the catalog for types or a keyword."""
    upstream = get_upstream()
    ids: list[str]
    if types or search:
        query = RecipeQuery(
            page=page,
            per_page=PANEL_SIZE,
            types=types,
            search=search,
            store_id=store_id,
            exclude_ids=exclude_ids,
            apply_preferences=has_preferences(ctx),
        )
        found = upstream.catalog.recipe_page(ctx.upstream, query)
        ids = [item.id for item in found.items]
        # The route takes MAX_PANEL_PAGE pages (prerender/schemas/menus.py): no "more" that would be a 400.
        has_more = found.has_more and page < MAX_PANEL_PAGE
    else:
        suggested = upstream_answers.menu_suggestions(
            ctx.upstream, store_id=store_id, limit=PANEL_SIZE, apply_preferences=has_preferences(ctx)
        )
        ids = [summary["id"] for summary in suggested.get("data") or []]
        has_more = False
    return PanelView(
        items=panel_cards(ctx, ids, store_id=store_id, guests=guests),
        types=tuple(types),
        search=search,
        page=page,
        has_more=has_more,
    )


def panel_recipes(ctx: RequestContext, recipe_ids: Sequence[str], *, store_id: str | None, guests: int) -> PanelView:
    """The panel's own cards drawn again for new guests: these recipes, in this order, priced at the store (one
    batch call); a recipe unknown or no longer shown at the store is left out."""
    return PanelView(
        items=panel_cards(ctx, recipe_ids, store_id=store_id, guests=guests),
        types=(),
        search="",
        page=1,
        has_more=False,
    )


# --- the page ---------------------------------------------------------------------------------------


def cart_destination(supplier: Supplier | None, environment: str) -> str | None:
    """Where the browser goes after finalize: routing `baseUrl` + `retailerCart`, else the catalog home
    (`baseUrl` + `features.catalog`, else `baseUrl`); None when the planner has no routing there."""
    destination = planner_destination(supplier, environment)
    if supplier is None or destination is None:
        return None
    routing = supplier.routing[environment]
    for path in (routing.retailer_cart, routing.catalog_path):
        url = routing.url_of(path) if path else None
        if url is not None:
            return url
    return routing.url_of("/")


def build_page(
    ctx: RequestContext,
    query: dict[str, Any],
    *,
    environment: str,
) -> CurrentMenuView:
    """The page's view model: the menu (created or moved as the query says), then its left panel."""
    t = translator_for(ctx)
    store_id = query["store_id"]
    view = query["view"] or "recipe"
    onboarding_id = f"{current_app.config['ELEMENT_PREFIX']}-planner-onboarding"
    cart_url = cart_destination(ctx.supplier, environment)
    if ctx.supplier is None and ctx.supplier_lookup_failed:
        return retry_page(ctx, query)
    if ctx.supplier is None:
        return unavailable_page(view=view, onboarding_id=onboarding_id)
    menu = upstream_answers.current_menu(
        ctx.upstream,
        store_id=store_id,
        origin="scratch" if query["mode"] == "custom" else "suggestions",
        guests=query["guests"] or None,
        apply_preferences=has_preferences(ctx),
    )
    recipes = tuple(menu_recipe(r, t) for r in menu.get("recipes") or [] if isinstance(r, dict) and "id" in r)
    menu_store = menu.get("store_id") or None
    if not store_id:
        # No point of sale on this page: no budget, no products, no prices (the specification's planner limits),
        # even when the menu keeps the store it was last priced at.
        menu_store = None
        recipes = tuple(dataclasses.replace(recipe, products=(), price_text=None) for recipe in recipes)
    guests = int(menu.get("guests") or 4)
    panel = EMPTY_PANEL
    if query["panel"]:
        try:
            panel = load_panel(
                ctx,
                store_id=menu_store,
                guests=guests,
                types=query["recipe_type_id"],
                search=query["search"],
                page=query["page"],
                exclude_ids=[r.id for r in recipes],
            )
        except UpstreamError as error:
            # The menu is the page; the panel only proposes recipes: it says it could not.
            fallbacks.failed_without("planner panel", error, request_id=ctx.request_id)
            panel = dataclasses.replace(
                EMPTY_PANEL, types=tuple(query["recipe_type_id"]), search=query["search"], failed=True
            )
    return CurrentMenuView(
        available=True,
        menu_id=str(menu.get("id") or ""),
        store_id=menu_store,
        guests=guests,
        recipes=recipes,
        empty_slots=max(0, PLATE_SLOTS - len(recipes)),
        quick_menu=QuickMenuView.of(recipes),
        budget=budget_view(menu, t) if menu_store else None,
        total_text=_money(menu.get("total"), t) if menu_store else None,
        panel=panel,
        view=view,
        removed_count=len(menu.get("removed_recipe_ids") or []),
        cart_url=cart_url,
        onboarding_id=onboarding_id,
        mode=query["mode"],
    )


def unavailable_page(*, view: str, onboarding_id: str) -> CurrentMenuView:
    """The page without a known supplier: it says the planner is not available (no upstream call)."""
    return CurrentMenuView(
        available=False,
        menu_id=None,
        store_id=None,
        guests=4,
        recipes=(),
        empty_slots=PLATE_SLOTS,
        quick_menu=QuickMenuView.of(()),
        budget=None,
        total_text=None,
        panel=EMPTY_PANEL,
        view=view,
        removed_count=0,
        cart_url=None,
        onboarding_id=onboarding_id,
        mode=None,
    )


def retry_query(query: dict[str, Any]) -> dict[str, str]:
    """The page's parameters as sent (the defaults left out), for the browser's retry of the same page."""
    wanted = {
        "store_id": query["store_id"],
        "mode": query["mode"],
        "guests": query["guests"],
        "view": query["view"],
        "recipe_type_id": ",".join(query["recipe_type_id"]),
        "search": query["search"],
        "page": query["page"] if query["page"] != 1 else None,
    }
    return {name: str(value) for name, value in wanted.items() if value not in (None, "")}


def retry_page(ctx: RequestContext, query: dict[str, Any]) -> CurrentMenuView:
    """The page while the upstream fails: its header, a message and a retry button; nothing of the menu (no
    upstream call). The browser retries with the credential when one can be issued (a known supplier)."""
    page = unavailable_page(
        view=query["view"] or "recipe", onboarding_id=f"{current_app.config['ELEMENT_PREFIX']}-planner-onboarding"
    )
    return dataclasses.replace(
        page,
        available=True,
        store_id=query["store_id"],
        mode=query["mode"],
        retry="fetch" if ctx.supplier is not None else "reload",
        retry_query=retry_query(query),
    )


def render_page(page: CurrentMenuView, ctx: RequestContext, *, api_version: str) -> str:
    """The page fragment: the planner, its onboarding modal (hidden), then the module scripts."""
    t = translator_for(ctx)
    return render_template(
        "planner/current_menu_fragment.html",
        page=page,
        t=t,
        prefix=current_app.config["ELEMENT_PREFIX"],
        steps=ONBOARDING_STEPS,
        recipe_types=RECIPE_TYPES,
        guests_min=GUESTS_MIN,
        guests_max=GUESTS_MAX,
        api_version=api_version,
        browser_texts={key.rsplit(".", 1)[1]: t(key) for key in BROWSER_TEXTS},
        module_urls=get_assets().module_urls(PAGE_MODULES),
    )


def render_panel_items(panel: PanelView, ctx: RequestContext) -> str:
    """The catalog panel's items alone (the browser route's answer, inserted by the page's module)."""
    return render_template(
        "planner/panel_items.html",
        panel=panel,
        t=translator_for(ctx),
        prefix=current_app.config["ELEMENT_PREFIX"],
    )
