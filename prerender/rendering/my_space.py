"""The shopper's own pages: the favorites page (GET /v1/catalog/favorites), my-space with its Favorites and
History tabs (GET /{v}/catalog/my-space) and the basket preview (GET /v2/catalog/my-space/basket-preview).

Favorites need a connected user (likes are a user's); history and the basket also work for an authless
visitor. A logged-out shopper gets a prompt to log in (the SDK asks the customer's page through
`svc.planner.defineLoginRequired`), never an error page. Upstream calls: the favorites (`GET /likes/recipes`)
then one batch for their cards; the history (`GET /baskets/history`, its recipes carried in the answer); the
basket (`GET /basket`). Preferences never apply here.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, tzinfo
from decimal import Decimal, InvalidOperation
from typing import Any
from zoneinfo import ZoneInfo

from flask import current_app

from prerender.gateway import HistoryPage, UnknownStore, UpstreamError, fallbacks, get_upstream
from prerender.rendering.catalog import (
    ANALYTICS_PATHS,
    CardLook,
    CatalogLinks,
    ListView,
    catalog_links,
    environment,
    link_defaults,
    link_params,
    list_view,
    listed_at_most,
    next_page_url,
    page_link,
    previous_page_url,
    render_catalog,
)
from prerender.rendering.i18n import Translator, translator_for
from prerender.rendering.pictures import safe_picture_url
from prerender.rendering.urls import with_query
from prerender.schemas.catalog import MY_SPACE_TABS
from prerender.web import upstream_answers
from prerender.web.context import RequestContext

FAVORITES_SIZE = 20
HISTORY_SIZE = 10

# Who may see a page of the shopper's own (`access`).
OPEN, LOGIN, UNAVAILABLE = "open", "login", "unavailable"


def access(ctx: RequestContext, *, user_only: bool) -> str:
    """Whether the request may see a shopper's own page: OPEN; LOGIN when it names no shopper (a user, or with
    `user_only` false an authless visitor too) or no supplier vouches for it; UNAVAILABLE when the upstream could not
    say whose page this is (the supplier lookup failed): to try again, not a "log in" the shopper cannot act on."""
    shopper = ctx.is_connected if user_only else (ctx.is_connected or ctx.authless_id is not None)
    if not shopper:
        return LOGIN
    if ctx.supplier is not None:
        return OPEN
    return UNAVAILABLE if ctx.supplier_lookup_failed else LOGIN


def _money(value: Any, t: Translator) -> str | None:
    try:
        return t.money(Decimal(str(value))) if value is not None else None
    except InvalidOperation:
        return None


# --- favorites ----------------------------------------------------------------------------------------


def favorites_list(ctx: RequestContext, query: dict[str, Any], *, t: Translator) -> ListView:
    """A page of the connected user's liked recipes as cards (an empty, failed list when the upstream fails)."""
    look = CardLook(
        display_variant=query["display_recipe_variant"],
        display_infos=query["display_infos"],
        store_id=query["store_id"],
    )
    try:
        answer = get_upstream().catalog.favorites(
            ctx.upstream, page=query["page"], per_page=FAVORITES_SIZE, store_id=query["store_id"]
        )
    except UnknownStore:
        raise
    except UpstreamError as error:
        fallbacks.failed_without("favorites", error, request_id=ctx.request_id)
        return ListView.unavailable(query["page"])
    return list_view(ctx, answer, query, link_params(query), look, t=t)


@dataclass(frozen=True)
class FavoritesPageView:
    connected: bool
    results: ListView
    links: CatalogLinks
    analytics_path: str
    route: str
    link_params: dict[str, Any]
    store_id: str | None


def favorites_fragment(ctx: RequestContext, query: dict[str, Any]) -> str:
    """GET /v1/catalog/favorites."""
    t = translator_for(ctx)
    allowed = access(ctx, user_only=True)
    connected = allowed != LOGIN
    if allowed == LOGIN:
        results = ListView((), 0, 1, None, None, (), (), None)
    elif allowed == UNAVAILABLE:
        results = ListView.unavailable(query["page"])
    else:
        results = favorites_list(ctx, query, t=t)
    page = FavoritesPageView(
        connected=connected,
        results=results,
        links=catalog_links(ctx.supplier, environment()),
        analytics_path=query["analytics_path"] or ANALYTICS_PATHS["favorites"],
        route=f"/{ctx.api_version}/catalog/favorites",
        link_params=link_params(query),
        store_id=query["store_id"],
    )
    return render_catalog("catalog/favorites_fragment.html", ctx, page=page)


# --- history ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HistoryItemView:
    recipe_id: str
    title: str
    picture_url: str | None
    guests: int
    total_time: int | None
    difficulty: int | None
    price_text: str | None


@dataclass(frozen=True)
class OrderView:
    id: str
    date: str  # YYYY-MM-DD, for <time datetime>
    date_text: str
    total_text: str | None
    items: tuple[HistoryItemView, ...]


@dataclass(frozen=True)
class HistoryView:
    orders: tuple[OrderView, ...]
    total: int
    next_url: str | None
    previous_url: str | None
    failed: bool = False
    # More orders than a shopper may page through: how many the pages list, which the last page says (the older
    # ones are not listed). None when every order can be reached.
    listed_at_most: int | None = None
    # A page after the history's last (Paged.past_the_end): that page, as ListView.last_page.
    last_page: int | None = None


def date_text(iso: str, t: Translator, zone: tzinfo) -> tuple[str, str]:
    """The day of an ISO 8601 timestamp in the shoppers' time zone (one without an offset is UTC, as the upstream
    writes them), for `datetime` and as the language writes it ("20 novembre 2026")."""
    try:
        moment = datetime.fromisoformat(iso)
    except ValueError:  # no timestamp Python reads: its first ten characters, if they are a day
        try:
            return iso[:10], t.day(date.fromisoformat(iso[:10]))
        except ValueError:
            return iso[:10], iso[:10]
    if moment.tzinfo is not None or len(iso) > len("2026-11-30"):  # a moment, not a day
        moment = (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).astimezone(zone)
    day = moment.date()
    return day.isoformat(), t.day(day)


def history_view(
    answer: HistoryPage, query: dict[str, Any], *, t: Translator, defaults: dict[str, Any], zone: tzinfo
) -> HistoryView:
    params = link_params(query)
    orders = []
    for order in answer.orders:
        day, text = date_text(order.confirmed_at, t, zone)
        items = tuple(
            HistoryItemView(
                recipe_id=r.recipe_id,
                title=r.title,
                picture_url=safe_picture_url(r.picture_url) if r.picture_url else None,
                guests=r.guests,
                total_time=r.total_time,
                difficulty=r.difficulty,
                price_text=_money(r.price, t),
            )
            for r in order.recipes
        )
        orders.append(OrderView(id=order.id, date=day, date_text=text, total_text=_money(order.total, t), items=items))
    page = query["page"]
    return HistoryView(
        orders=tuple(orders),
        total=answer.total,
        next_url=next_page_url(params, defaults=defaults, page=page, has_more=answer.has_more),
        previous_url=previous_page_url(params, defaults=defaults, answer=answer),
        listed_at_most=listed_at_most(page, answer.per_page, has_more=answer.has_more),
        last_page=answer.last_page if answer.past_the_end else None,
    )


# --- my-space -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TabView:
    name: str
    label: str
    url: str
    active: bool
    count: int | None = None
    # What the count counts, for a screen reader ("3 commandes"; the favorites count recipes, the history orders).
    count_unit: str = ""


@dataclass(frozen=True)
class MySpaceView:
    tab: str
    title: str
    show_tabs: bool
    tabs: tuple[TabView, ...]
    history_style: str
    style_links: tuple[TabView, ...]
    # Favorites need a connected user; history needs a named shopper.
    needs_login: bool
    favorites: ListView | None
    history: HistoryView | None
    analytics_path: str
    route: str
    link_params: dict[str, Any]
    store_id: str | None


# The unit of each tab's count (the browser writes the favorites' again as one is removed: components/catalog.js).
COUNT_UNITS = {"favorites": "CATALOG_FAVORITES.COUNT_UNIT", "history": "CATALOG_MY_SPACE.HISTORY_COUNT_UNIT"}


def my_space_tabs(
    params: dict[str, Any], tab: str, t: Translator, *, defaults: dict[str, Any], count: int | None = None
) -> tuple[TabView, ...]:
    """The Favorites and History tabs: links to the same page with `tab` (and the page reset)."""
    return tuple(
        TabView(
            name=name,
            label=t(f"CATALOG_MY_SPACE.TAB_{name.upper()}"),
            url=page_link(params, defaults=defaults, tab=name, page=1),
            active=name == tab,
            count=count if name == tab else None,
            count_unit=t(COUNT_UNITS[name], count=count) if name == tab and count is not None else "",
        )
        for name in MY_SPACE_TABS
    )


def my_space_fragment(ctx: RequestContext, query: dict[str, Any]) -> str:
    """GET /{v}/catalog/my-space."""
    t = translator_for(ctx)
    tab = query["tab"]
    params = link_params(query)
    defaults = link_defaults(ctx.api_version)
    favorites: ListView | None = None
    history: HistoryView | None = None
    allowed = access(ctx, user_only=tab == "favorites")
    needs_login = allowed == LOGIN
    if tab == "favorites":
        if allowed == UNAVAILABLE:
            favorites = ListView.unavailable(query["page"])
        elif allowed == OPEN:
            favorites = favorites_list(ctx, query, t=t)
    else:
        if allowed == UNAVAILABLE:
            history = HistoryView((), 0, None, None, failed=True)
        elif allowed == OPEN:
            try:
                history = history_view(
                    get_upstream().catalog.history(ctx.upstream, page=query["page"], per_page=HISTORY_SIZE),
                    query,
                    t=t,
                    defaults=defaults,
                    zone=ZoneInfo(current_app.config["DISPLAY_TIME_ZONE"]),
                )
            except UpstreamError as error:
                fallbacks.failed_without("history", error, request_id=ctx.request_id)
                history = HistoryView((), 0, None, None, failed=True)
    count = (
        favorites.total
        if favorites and not favorites.failed
        else history.total
        if history and not history.failed
        else None
    )
    view = MySpaceView(
        tab=tab,
        title=t(f"CATALOG_MY_SPACE.TAB_{tab.upper()}")
        if not query["show_tab_selector"]
        else t("CATALOG_MY_SPACE.TITLE"),
        show_tabs=query["show_tab_selector"],
        tabs=my_space_tabs(params, tab, t, defaults=defaults, count=count),
        history_style=query["history_style"],
        style_links=tuple(
            TabView(
                name=style,
                label=t(f"CATALOG_MY_SPACE.STYLE_{style.upper()}"),
                url=page_link(params, defaults=defaults, history_style=style),
                active=style == query["history_style"],
            )
            for style in ("list", "grid")
        ),
        needs_login=needs_login,
        favorites=favorites,
        history=history,
        analytics_path=query["analytics_path"] or ANALYTICS_PATHS["my-space"],
        route=f"/{ctx.api_version}/catalog/my-space",
        link_params=params,
        store_id=query["store_id"],
    )
    return render_catalog("catalog/my_space_fragment.html", ctx, page=view)


# --- basket preview -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PreviewRecipeView:
    recipe_id: str
    title: str
    picture_url: str | None
    guests: int
    product_count: int
    price_text: str | None


@dataclass(frozen=True)
class BasketPreviewView:
    title: str
    embed: bool
    show_tabs: bool
    tabs: tuple[TabView, ...]
    store_id: str | None
    recipes: tuple[PreviewRecipeView, ...]
    product_count: int
    total_text: str | None
    cart_url: str | None
    # No named shopper (nothing to show), or the upstream failed.
    needs_login: bool
    failed: bool
    # The upstream does not know `store_id`: the empty basket is shown (the root says so to the customer's server).
    unknown_store: bool
    analytics_path: str
    # The page's own route and parameters: the browser asks it again when the basket changed in another tab.
    route: str
    link_params: dict[str, Any]


def _sold_lines(raw: dict[str, Any]) -> list[dict[str, Any]]:
    """A basket entry's lines that its store sells."""
    return [line for line in raw.get("lines") or [] if isinstance(line, dict) and line.get("available") is not False]


def _sold_products(recipes: list[Any]) -> int:
    """The products the basket's recipes put in the cart at its store: each product once, however many recipes use
    it, and none the store does not sell (the rows' lines; the browser counts the same:
    components/catalog/basket-counts.js)."""
    return len({str(line.get("product_id")) for raw in recipes if isinstance(raw, dict) for line in _sold_lines(raw)})


def _preview_recipe(raw: dict[str, Any], t: Translator) -> PreviewRecipeView | None:
    if not isinstance(raw, dict) or "recipe_id" not in raw:
        return None
    # The lines the store sells: a line it does not (after a move to another store) is neither priced nor counted,
    # as the drawer leaves it out of "add the N products" (the browser counts the same:
    # components/catalog/basket-counts.js).
    lines = _sold_lines(raw)
    total = sum((Decimal(str(line.get("price") or 0)) for line in lines), Decimal(0))
    picture = raw.get("picture_url")
    return PreviewRecipeView(
        recipe_id=str(raw["recipe_id"]),
        title=str(raw.get("title") or ""),
        picture_url=safe_picture_url(picture) if isinstance(picture, str) and picture else None,
        guests=int(raw.get("guests") or 0),
        product_count=len(lines),
        price_text=t.money(total) if lines else None,
    )


def basket_preview_fragment(ctx: RequestContext, query: dict[str, Any]) -> str:
    """GET /v2/catalog/my-space/basket-preview."""
    t = translator_for(ctx)
    links = catalog_links(ctx.supplier, environment())
    store_id = query["store_id"]
    allowed = access(ctx, user_only=False)
    needs_login = allowed == LOGIN
    basket: dict[str, Any] = {}
    failed = allowed == UNAVAILABLE
    unknown_store = False
    if allowed == OPEN:
        try:
            # At a store the upstream does not know, the empty basket so marked (the basket gateway).
            basket = upstream_answers.basket(ctx.upstream, store_id=store_id)
            unknown_store = basket.get("unknown_store") is True
        except UpstreamError as error:
            fallbacks.failed_without("basket preview", error, request_id=ctx.request_id)
            failed = True
    recipes = tuple(
        view for view in (_preview_recipe(raw, t) for raw in basket.get("recipes") or []) if view is not None
    )
    # The my-space tabs lead to the customer's my-space page; the basket's own tab is this page.
    tabs: tuple[TabView, ...] = ()
    if links.my_space is not None:
        tabs = tuple(
            TabView(
                name=name,
                label=t(f"CATALOG_MY_SPACE.TAB_{name.upper()}"),
                url=with_query(links.my_space, tab=name),
                active=False,
            )
            for name in MY_SPACE_TABS
        )
    tabs += (TabView(name="basket", label=t("CATALOG_MY_SPACE.TAB_BASKET"), url="", active=True),)
    view = BasketPreviewView(
        title=query["title"] or t("CATALOG_BASKET_PREVIEW.TITLE"),
        embed=query["embed"],
        show_tabs=query["show_tab_selector"],
        tabs=tabs,
        # Not an unknown store: the page's module would ask with it again (another tab's change) and the drawer too.
        store_id=None if unknown_store else basket.get("store_id") or store_id,
        recipes=recipes,
        product_count=_sold_products(basket.get("recipes") or []),
        total_text=_money(basket.get("total"), t) if recipes else None,
        cart_url=links.cart,
        needs_login=needs_login,
        failed=failed,
        unknown_store=unknown_store,
        analytics_path=ANALYTICS_PATHS["basket-preview"],
        route=f"/{ctx.api_version}/catalog/my-space/basket-preview",
        link_params={name: value for name, value in query.items() if name != "store_id" and value not in (None, False)},
    )
    return render_catalog("catalog/basket_preview_fragment.html", ctx, page=view)
