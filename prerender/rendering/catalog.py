"""The catalog pages a retailer hosts in its "recipe ideas" section: the header (GET /{v}/catalog/header), the
home (GET /{v}/catalog), a category (GET /{v}/catalog/category) and the list (GET /{v}/catalog/list).

What each page costs upstream, whatever it shows: the shopper's preferences and their options (when the
shopper can have some, in parallel with the rest), the categories (cached), one `GET /recipes` per list (one
per category row on the home, all in parallel), then one `GET /recipes/batch?view=summary` for the cards'
prices (often cached). The lists apply the completion filter at the store and, unless `all_recipes`, the
shopper's preferences (`preferences=apply`, done by the upstream).

Links between the pages come from the supplier's routing for the environment (gateway/models.py
`Routing.page_url`): a page the routing does not name is not linked. Pagination and filters are links with the
page's own parameters (`?page=2&...`), relative to the customer's page that forwards them: they work without
JavaScript, and components/catalog.js loads the next page in place.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlencode

from flask import current_app, render_template
from markupsafe import Markup

from prerender.gateway import (
    Category,
    Paged,
    PreferenceOptions,
    Preferences,
    Recipe,
    RecipePage,
    RecipeQuery,
    Supplier,
    UnknownStore,
    UpstreamError,
    fallbacks,
    get_upstream,
)
from prerender.rendering.assets import get_assets
from prerender.rendering.cards import CardOptions, RecipeCardView, build_card, is_displayable
from prerender.rendering.i18n import Translator, translator_for
from prerender.rendering.pictures import EAGER, HIGH
from prerender.rendering.planner import planner_destination, planner_entry
from prerender.rendering.preferences import (
    NO_PREFERENCES,
    PreferencesPanelView,
    active_filters,
    has_preferences,
    panel_view,
)
from prerender.rendering.urls import with_query
from prerender.schemas.catalog import HISTORY_STYLE_DEFAULTS, MAX_CATALOG_PAGE
from prerender.schemas.menus import RECIPE_TYPES
from prerender.web.context import RequestContext

# Recipes per page of a list (the maker's documented 20), and orders per page of the history.
LIST_SIZE = 20
CATALOG_MODULES = ("sdk/svc.js", "components/recipe-card.js", "components/catalog.js")
# The analytics path each page sends its pageview with unless the customer names one (`analytics_path`).
ANALYTICS_PATHS = {
    "home": "/catalog/home",
    "category": "/catalog/category",
    "list": "/catalog/list",
    "favorites": "/catalog/favorites",
    "my-space": "/catalog/my-space",
    "basket-preview": "/catalog/my-space/basket-preview",
}
# Text templates the catalog's module fills in the browser.
BROWSER_TEXTS = (
    "CATALOG.LOAD_FAILED",
    "CATALOG_PREFERENCES.SAVED",
    "CATALOG_PREFERENCES.INGREDIENTS_FOUND",
    "CATALOG_PREFERENCES.FAILED",
    "CATALOG_MY_SPACE.REMOVED",
    "CATALOG_FAVORITES.COUNT_UNIT",
    "CATALOG_MY_SPACE.REMOVE_FAILED",
    "CATALOG_BASKET_PREVIEW.SUMMARY",
    "CATALOG_BASKET_PREVIEW.PRODUCTS",
    "RECIPE_CARD.GUESTS",
    "CATALOG_BASKET_PREVIEW.REMOVED",
    "CATALOG_BASKET_PREVIEW.REMOVE_FAILED",
    "PLANNER_PAGE.ADDED",
    "PLANNER_PAGE.FAILED",
    "PLANNER_PAGE.IN_MENU",
)


# --- links ------------------------------------------------------------------------------------------


# The page parameters links carry, with their defaults (a parameter at its default is left out of a link).
LINK_DEFAULTS: dict[str, Any] = {
    "category_id": None,
    "search": "",
    "all_recipes": False,
    "recipe_type_id": "",
    "recipe_type_filter": False,
    "planner": False,
    "display_infos": False,
    "display_recipe_variant": 1,
    "max_recipes_per_category": 6,
    "tab": "favorites",
    "show_tab_selector": True,
    "history_style": "list",
    "page": 1,
}


def link_params(query: dict[str, Any]) -> dict[str, Any]:
    """The parameters of a page's own links: those of its query that links carry (not the store nor the
    analytics path: the customer gives them), types as one comma-separated value."""
    params = {name: query[name] for name in LINK_DEFAULTS if name in query}
    if "recipe_type_id" in params:
        params["recipe_type_id"] = ",".join(params["recipe_type_id"])
    return params


def link_defaults(version: str) -> dict[str, Any]:
    """LINK_DEFAULTS for a page of API `version`: my-space's history is a grid by default in v1, a list in v2."""
    return {**LINK_DEFAULTS, "history_style": HISTORY_STYLE_DEFAULTS[version]}


def page_link(params: dict[str, Any], *, defaults: dict[str, Any] = LINK_DEFAULTS, **changes: Any) -> str:
    """A link to the same customer page with some parameters changed: a query string alone, resolved against
    the page the fragment is in (its customer forwards these parameters to the route). Parameters at their
    default (`defaults`, the route's) are left out, so links are canonical."""
    merged = {**params, **changes}
    pairs = [
        (name, "true" if value is True else "false" if value is False else str(value))
        for name, value in merged.items()
        if value is not None and value != defaults.get(name)
    ]
    return "?" + urlencode(pairs)


@dataclass(frozen=True)
class CatalogLinks:
    """The customer's catalog pages for this supplier and environment (None: not in its routing)."""

    home: str | None = None
    category: str | None = None
    list: str | None = None
    favorites: str | None = None
    my_space: str | None = None
    basket_preview: str | None = None
    # The way into the planner: the planner entry on the catalog home (v2 renders it there, `planner_entry_html`),
    # never the current-menu page it leads to (the specification's only entry point is the entry component).
    planner: str | None = None
    # The retailer's cart page (routing `retailerCart`).
    cart: str | None = None

    def category_url(self, category_id: str) -> str | None:
        return with_query(self.category, category_id=category_id) if self.category else None

    def list_url(self, **params: Any) -> str | None:
        return with_query(self.list, **params) if self.list else None

    def favorites_url(self, api_version: str) -> str | None:
        """Where the toolbar's favorites link leads: v1's favorites page, v2's my-space (v2 has no favorites page)."""
        my_space = with_query(self.my_space, tab="favorites") if self.my_space else None
        if api_version == "v1":
            return self.favorites or my_space
        return my_space or self.favorites


def planner_entry_anchor() -> str:
    """The id of the catalog home's planner entry block (catalog/home_fragment.html), the toolbar's planner link's
    fragment."""
    return f"{current_app.config['ELEMENT_PREFIX']}-catalog-home-planner-entry"


def catalog_links(supplier: Supplier | None, environment: str) -> CatalogLinks:
    """The links the catalog pages use, from the supplier's routing for the environment."""
    if supplier is None or environment not in supplier.routing:
        return CatalogLinks()
    routing = supplier.routing[environment]
    home = routing.page_url("home")
    has_planner = planner_destination(supplier, environment) is not None
    return CatalogLinks(
        home=home,
        category=routing.page_url("category"),
        list=routing.page_url("list"),
        favorites=routing.page_url("favorites"),
        my_space=routing.page_url("mySpace"),
        basket_preview=routing.page_url("basketPreview"),
        planner=f"{home}#{planner_entry_anchor()}" if home and has_planner else None,
        cart=routing.url_of(routing.retailer_cart) if routing.retailer_cart else None,
    )


# --- the shopper's preferences ----------------------------------------------------------------------


@dataclass(frozen=True)
class ShopperPreferences:
    """The preferences of the request's shopper, as a page uses them."""

    preferences: Preferences
    options: PreferenceOptions | None

    @property
    def guests(self) -> int | None:
        return self.preferences.guests if self.preferences.enabled else None

    def panel(self) -> PreferencesPanelView | None:
        return panel_view(self.options, self.preferences) if self.options is not None else None

    def filters(self, t: Translator) -> tuple[str, ...]:
        return active_filters(self.options, self.preferences, t) if self.options is not None else ()


NO_SHOPPER_PREFERENCES = ShopperPreferences(preferences=NO_PREFERENCES, options=None)


def start_preferences(ctx: RequestContext) -> Future[ShopperPreferences] | None:
    """Reads the shopper's preferences and the panel's options on the gateway's pool (None: the shopper cannot
    have preferences, see rendering/preferences.py)."""
    if not has_preferences(ctx):
        return None
    return get_upstream().concurrent.start(_read_preferences, ctx)


def _read_preferences(ctx: RequestContext) -> ShopperPreferences:
    catalog = get_upstream().catalog
    try:
        options = catalog.preference_options(ctx.upstream)
        preferences = catalog.preferences(ctx.upstream)
    except UpstreamError as error:
        # The page goes on without the panel: the lists still apply the stored preferences upstream.
        fallbacks.failed_without("preferences", error, request_id=ctx.request_id)
        return NO_SHOPPER_PREFERENCES
    if not preferences.enabled:
        return NO_SHOPPER_PREFERENCES
    return ShopperPreferences(preferences=preferences, options=options)


def finish_preferences(future: Future[ShopperPreferences] | None) -> ShopperPreferences:
    return future.result() if future is not None else NO_SHOPPER_PREFERENCES


# --- cards ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CatalogCardView:
    """One cell of a list: a recipe card, and whether it offers "add to my menu" instead of the basket."""

    card: RecipeCardView
    type: str
    planner: bool


@dataclass(frozen=True)
class CardLook:
    """How a page's cards look: the variant asked, the details shown, the store, the guests, the planner."""

    display_variant: int
    display_infos: bool
    store_id: str | None
    serves: int | None = None
    planner: bool = False


def catalog_cards(
    ctx: RequestContext, recipe_ids: Sequence[str], look: CardLook, *, t: Translator
) -> tuple[CatalogCardView, ...]:
    """The cards of these recipes, in this order, priced at the store (one batch call, often cached); those the
    completion filter hides are left out."""
    ids = list(dict.fromkeys(recipe_ids))
    if not ids:
        return ()
    options = CardOptions(
        display_variant=look.display_variant, orientation="vertical", store_id=look.store_id, serves=look.serves
    )
    recipes: dict[str, Recipe] = get_upstream().recipes.by_ids(
        ctx.upstream, ids, store_id=look.store_id, serves=look.serves, summary=True
    )
    cards = []
    for rid in ids:
        recipe = recipes.get(rid)
        if recipe is None or not is_displayable(recipe, options):
            continue
        card = replace(build_card(recipe, options, ctx, t=t), show_infos=look.display_infos)
        if look.planner:
            # Recipes go to the planner's menu here, not to the basket: no basket button, no heart.
            card = replace(card, show_cta=False, show_like=False, client_personalization=False)
        cards.append(CatalogCardView(card=card, type=recipe.type, planner=look.planner))
    return tuple(cards)


# The most cards a catalog row shows across (catalog.css: a carousel shows four from 1024px of width, a grid
# of 240px columns about as many; a phone two).
FIRST_ROW = 4


def in_first_view(cells: tuple[CatalogCardView, ...]) -> tuple[CatalogCardView, ...]:
    """A page's first row fetches its pictures at once, the first one first (docs/decisions.md); the rest of the
    page keeps them lazy."""
    return tuple(
        replace(cell, card=replace(cell.card, picture_priority=HIGH if index == 0 else EAGER))
        if index < FIRST_ROW
        else cell
        for index, cell in enumerate(cells)
    )


# --- the toolbar and the header ---------------------------------------------------------------------


@dataclass(frozen=True)
class ToolbarView:
    """Search, favorites, the planner and the preferences, on top of every catalog page."""

    search: str
    # Where the search goes: the customer's list page, else this page ("").
    search_action: str
    favorites_url: str | None
    planner_url: str | None
    preferences: PreferencesPanelView | None
    # Personalization off for a known supplier: the SDK drops its copy of the preferences.
    personalization_off: bool


@dataclass(frozen=True)
class CategoryLinkView:
    id: str
    name: str
    url: str | None
    current: bool = False


@dataclass(frozen=True)
class HeaderView:
    """The catalog home's header: title, toolbar and the category shortcuts."""

    toolbar: ToolbarView
    categories: tuple[CategoryLinkView, ...]
    all_recipes_url: str | None


def toolbar_view(
    ctx: RequestContext, links: CatalogLinks, prefs: ShopperPreferences, *, search: str = ""
) -> ToolbarView:
    return ToolbarView(
        search=search,
        search_action=links.list or "",
        favorites_url=links.favorites_url(ctx.api_version),
        # v1 has no planner entry (a v2 component): its catalog home cannot lead into the planner.
        planner_url=links.planner if ctx.api_version == "v2" else None,
        preferences=prefs.panel(),
        personalization_off=ctx.supplier is not None and not ctx.supplier.personalization,
    )


def read_categories(ctx: RequestContext) -> tuple[Category, ...]:
    """The categories, or none when the upstream cannot say (the pages go on without their shortcuts)."""
    try:
        return get_upstream().catalog.categories(ctx.upstream)
    except UpstreamError as error:
        fallbacks.failed_without("categories", error, request_id=ctx.request_id)
        return ()


def header_view(
    ctx: RequestContext,
    links: CatalogLinks,
    prefs: ShopperPreferences,
    categories: Sequence[Category],
    *,
    current: str | None = None,
) -> HeaderView:
    return HeaderView(
        toolbar=toolbar_view(ctx, links, prefs),
        categories=tuple(
            CategoryLinkView(id=c.id, name=c.name, url=links.category_url(c.id), current=c.id == current)
            for c in categories
        ),
        all_recipes_url=links.list_url(all_recipes=True),
    )


# --- lists ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TypeFilterView:
    type: str
    label: str
    url: str
    pressed: bool


@dataclass(frozen=True)
class ListView:
    """A paginated list of cards (a category, the search results, every recipe, the favorites)."""

    cards: tuple[CatalogCardView, ...]
    total: int
    page: int
    next_url: str | None
    previous_url: str | None
    type_filters: tuple[TypeFilterView, ...]
    active_filters: tuple[str, ...]
    # The list ignoring the shopper's preferences (shown when they narrow it).
    unfiltered_url: str | None
    failed: bool = False
    # More recipes match than a shopper may page through (`next_page_url`): how many the pages list, which the
    # last page says, with a word to narrow the list. None when every recipe can be reached.
    listed_at_most: int | None = None
    # A page after the list's last (Paged.past_the_end): that page, which the empty state names and "previous"
    # leads to. None on the list's own pages.
    last_page: int | None = None

    @classmethod
    def unavailable(
        cls, page: int, type_filters: tuple[TypeFilterView, ...] = (), active: tuple[str, ...] = ()
    ) -> ListView:
        """The list when the upstream could not give it: the page says so."""
        return cls((), 0, page, None, None, type_filters, active, None, failed=True)


def type_filters(query: dict[str, Any], params: dict[str, Any], t: Translator) -> tuple[TypeFilterView, ...]:
    """The recipe-type chips (`recipe_type_filter=true`): each a link toggling its type, back to page 1."""
    if not query["recipe_type_filter"]:
        return ()
    chosen = list(query["recipe_type_id"])
    chips = []
    for recipe_type in RECIPE_TYPES:
        pressed = recipe_type in chosen
        # In RECIPE_TYPES' order, as the query's (schemas/catalog.py): one URL per set of types.
        types = [x for x in RECIPE_TYPES if (x in chosen) != (x == recipe_type)]
        chips.append(
            TypeFilterView(
                type=recipe_type,
                label=t(f"RECIPE_CARD.TYPE_{recipe_type}"),
                url=page_link(params, recipe_type_id=",".join(types), page=1),
                pressed=pressed,
            )
        )
    return tuple(chips)


def list_view(
    ctx: RequestContext,
    page_answer: RecipePage | None,
    query: dict[str, Any],
    params: dict[str, Any],
    look: CardLook,
    *,
    t: Translator,
    filters: tuple[str, ...] = (),
    unfiltered_url: str | None = None,
) -> ListView:
    """The view of one page of a list (`page_answer` None: the upstream failed)."""
    chips = type_filters(query, params, t) if "recipe_type_filter" in query else ()
    if page_answer is None:
        return ListView.unavailable(query["page"], chips, filters)
    try:
        cards = catalog_cards(ctx, [item.id for item in page_answer.items], look, t=t)
    except UpstreamError as error:
        fallbacks.failed_without("catalog cards", error, request_id=ctx.request_id)
        return ListView.unavailable(query["page"], chips, filters)
    page = query["page"]
    defaults = link_defaults(ctx.api_version)  # my-space's favorites keep the history's layout of their version
    return ListView(
        cards=in_first_view(cards) if page == 1 else cards,  # a later page comes below the first
        total=page_answer.total,
        page=page,
        next_url=next_page_url(params, defaults=defaults, page=page, has_more=page_answer.has_more),
        previous_url=previous_page_url(params, defaults=defaults, answer=page_answer),
        type_filters=chips,
        active_filters=filters,
        unfiltered_url=unfiltered_url if filters else None,
        listed_at_most=listed_at_most(page, page_answer.per_page, has_more=page_answer.has_more),
        last_page=page_answer.last_page if page_answer.past_the_end else None,
    )


def next_page_url(params: dict[str, Any], *, defaults: dict[str, Any], page: int, has_more: bool) -> str | None:
    """The link to the page after `page`, when the upstream has more and the routes take that page: they take
    MAX_CATALOG_PAGE pages (prerender/schemas/catalog.py), and a link to the next would be a 400."""
    return page_link(params, defaults=defaults, page=page + 1) if has_more and page < MAX_CATALOG_PAGE else None


def previous_page_url(params: dict[str, Any], *, defaults: dict[str, Any], answer: Paged) -> str | None:
    """The link to the page before `answer`'s; from a page past the end (an old link, a hand-written query), to
    the last page holding items rather than to another empty one."""
    if answer.page <= 1:
        return None
    before = min(answer.page - 1, answer.last_page, MAX_CATALOG_PAGE)
    return page_link(params, defaults=defaults, page=before)


def listed_at_most(page: int, per_page: int, *, has_more: bool) -> int | None:
    """How many items the pages of a list show at most, on its last page when the upstream has more; else None."""
    return MAX_CATALOG_PAGE * per_page if has_more and page >= MAX_CATALOG_PAGE else None


def read_page(ctx: RequestContext, query: RecipeQuery) -> Future[RecipePage]:
    """A page of the catalog, read beside the request's other calls."""
    upstream = get_upstream()
    return upstream.concurrent.start(upstream.catalog.recipe_page, ctx.upstream, query)


def collect(future: Future[RecipePage], ctx: RequestContext) -> RecipePage | None:
    """A list's answer, or None when the upstream failed (the page says so; an unknown store still raises)."""
    try:
        return future.result()
    except UpstreamError as error:
        if isinstance(error, UnknownStore):
            raise
        fallbacks.failed_without("catalog list", error, request_id=ctx.request_id)
        return None


# --- rendering --------------------------------------------------------------------------------------


def render_catalog(template: str, ctx: RequestContext, **values: Any) -> str:
    """A catalog page's fragment: the page and the modules that upgrade it (its route's answer then ends with
    the shopper's credential: prerender/web/fragment_response.py)."""
    t = translator_for(ctx)
    return render_template(
        template,
        t=t,
        prefix=current_app.config["ELEMENT_PREFIX"],
        api_version=ctx.api_version,
        browser_texts={key: t(key) for key in BROWSER_TEXTS},
        module_urls=get_assets().module_urls(CATALOG_MODULES),
        **values,
    )


def environment() -> str:
    """The deployment's environment, whose routing the pages link with (prerender/config.py)."""
    return str(current_app.config["ENVIRONMENT"])


def planner_entry_html(ctx: RequestContext, store_id: str | None, prefs: ShopperPreferences) -> Markup | None:
    """The planner entry block of the home (v2, when the supplier's routing has a planner), its stepper from the
    preferences the page read."""
    if ctx.api_version != "v2" or ctx.supplier is None:
        return None
    if planner_destination(ctx.supplier, environment()) is None:
        return None
    return Markup(planner_entry(ctx, store_id=store_id, preferred_guests=prefs.guests))
