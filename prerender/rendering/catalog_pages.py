"""The four catalog pages' view models and fragments: header, home, category, list (rendering/catalog.py has
the pieces they share and what each costs upstream)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from markupsafe import Markup
from werkzeug.exceptions import NotFound

from prerender.gateway import RecipeQuery, UpstreamError, fallbacks
from prerender.rendering.catalog import (
    ANALYTICS_PATHS,
    LIST_SIZE,
    CardLook,
    CatalogCardView,
    HeaderView,
    ListView,
    ToolbarView,
    catalog_cards,
    catalog_links,
    collect,
    environment,
    finish_preferences,
    header_view,
    in_first_view,
    link_params,
    list_view,
    page_link,
    planner_entry_html,
    read_categories,
    read_page,
    render_catalog,
    start_preferences,
    toolbar_view,
)
from prerender.rendering.i18n import translator_for
from prerender.web.context import RequestContext

# --- header -----------------------------------------------------------------------------------------


def header_fragment(ctx: RequestContext, query: dict[str, Any]) -> str:
    """GET /{v}/catalog/header: the home's header alone."""
    future = start_preferences(ctx)
    categories = read_categories(ctx)
    links = catalog_links(ctx.supplier, environment())
    header = header_view(ctx, links, finish_preferences(future), categories)
    return render_catalog("catalog/header_fragment.html", ctx, header=header)


# --- home -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CategoryRowView:
    """A category's row on the home: its first recipes and its "see all" link."""

    id: str
    name: str
    url: str | None
    cards: tuple[CatalogCardView, ...]


@dataclass(frozen=True)
class HomeView:
    header: HeaderView
    rows: tuple[CategoryRowView, ...]
    active_filters: tuple[str, ...]
    planner_entry: Markup | None
    analytics_path: str
    # No row could be read: the page says the recipes are unavailable (not "no recipes").
    failed: bool


def ids_once(rows: list[CategoryRowView]) -> list[CategoryRowView]:
    """The rows with each recipe's card id on its first card only: a recipe in two categories is in two rows, and
    the page's anchors and `getElementById` find the first (an id names one element of a page)."""
    seen: set[str] = set()

    def once(cell: CatalogCardView) -> CatalogCardView:
        first = cell.card.recipe_id not in seen
        seen.add(cell.card.recipe_id)
        return cell if first else replace(cell, card=replace(cell.card, carries_id=False))

    return [replace(row, cards=tuple(once(cell) for cell in row.cards)) for row in rows]


def home_fragment(ctx: RequestContext, query: dict[str, Any]) -> str:
    """GET /{v}/catalog: the header, then a row of cards per category that has any."""
    t = translator_for(ctx)
    prefs_future = start_preferences(ctx)
    links = catalog_links(ctx.supplier, environment())
    categories = read_categories(ctx)
    apply = prefs_future is not None
    futures = {
        category.id: read_page(
            ctx,
            RecipeQuery(
                page=1,
                store_id=query["store_id"],
                category_id=category.id,
                apply_preferences=apply,
                per_page=query["max_recipes_per_category"],
            ),
        )
        for category in categories
    }
    prefs = finish_preferences(prefs_future)
    pages = {category_id: collect(future, ctx) for category_id, future in futures.items()}
    look = CardLook(
        display_variant=query["display_recipe_variant"],
        display_infos=query["display_infos"],
        store_id=query["store_id"],
        serves=prefs.guests,
    )
    rows: list[CategoryRowView] = []
    failed = bool(categories) and all(page is None for page in pages.values())
    if not failed:
        # One batch for every row's prices.
        every_id = [item.id for page in pages.values() if page for item in page.items]
        try:
            cards = {card.card.recipe_id: card for card in catalog_cards(ctx, every_id, look, t=t)}
        except UpstreamError as error:
            cards, failed = {}, True
            fallbacks.failed_without("catalog cards", error, request_id=ctx.request_id)
        for category in categories:
            page = pages.get(category.id)
            row_cards = tuple(cards[item.id] for item in page.items if item.id in cards) if page else ()
            if row_cards:
                rows.append(
                    CategoryRowView(
                        id=category.id, name=category.name, url=links.category_url(category.id), cards=row_cards
                    )
                )
    if rows:  # the first row is in view (the pictures of the others wait for the shopper's scroll)
        rows[0] = replace(rows[0], cards=in_first_view(rows[0].cards))
    rows = ids_once(rows)
    home = HomeView(
        header=header_view(ctx, links, prefs, categories),
        rows=tuple(rows),
        active_filters=prefs.filters(t),
        planner_entry=planner_entry_html(ctx, query["store_id"], prefs),
        analytics_path=query["analytics_path"] or ANALYTICS_PATHS["home"],
        failed=failed or not categories,
    )
    return render_catalog("catalog/home_fragment.html", ctx, home=home)


# --- category and list ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ListPageView:
    """A category page or the list page: a toolbar, a title, the list."""

    kind: str  # "category" or "list"
    title: str
    toolbar: ToolbarView
    home_url: str | None
    results: ListView
    planner: bool
    analytics_path: str
    # The route and its parameters, for the module's "load more" (it asks the same route for the next page).
    route: str
    link_params: dict[str, Any]
    store_id: str | None = None
    category_id: str | None = None


def _list_page(ctx: RequestContext, query: dict[str, Any], *, kind: str, category_id: str | None) -> ListPageView:
    t = translator_for(ctx)
    prefs_future = start_preferences(ctx)
    links = catalog_links(ctx.supplier, environment())
    apply = prefs_future is not None and not query.get("all_recipes", False)
    future = read_page(
        ctx,
        RecipeQuery(
            page=query["page"],
            per_page=LIST_SIZE,
            store_id=query["store_id"],
            types=query["recipe_type_id"],
            category_id=category_id,
            search=query["search"],
            apply_preferences=apply,
        ),
    )
    title = ""
    if category_id is not None:
        category = next((c for c in read_categories(ctx) if c.id == category_id), None)
        if category is None:
            future.cancel()
            raise NotFound(f"Unknown category {category_id!r}.")
        title = category.name
    prefs = finish_preferences(prefs_future)
    answer = collect(future, ctx)
    params = link_params(query)
    look = CardLook(
        display_variant=query["display_recipe_variant"],
        display_infos=query["display_infos"],
        store_id=query["store_id"],
        serves=prefs.guests,
        planner=query["planner"],
    )
    filters = prefs.filters(t) if apply else ()
    results = list_view(
        ctx,
        answer,
        query,
        params,
        look,
        t=t,
        filters=filters,
        unfiltered_url=page_link(params, all_recipes=True, page=1) if kind == "list" else None,
    )
    if kind == "list":
        if query["search"]:
            title = t("CATALOG_LIST.SEARCH_TITLE", search=query["search"])
        elif query["all_recipes"]:
            title = t("CATALOG_LIST.ALL_TITLE")
        else:
            title = t("CATALOG_LIST.TITLE")
    return ListPageView(
        kind=kind,
        title=title,
        toolbar=toolbar_view(ctx, links, prefs, search=query["search"]),
        home_url=links.home,
        results=results,
        planner=query["planner"],
        analytics_path=query["analytics_path"] or ANALYTICS_PATHS[kind],
        route=f"/{ctx.api_version}/catalog/{'category' if kind == 'category' else 'list'}",
        link_params=params,
        store_id=query["store_id"],
        category_id=category_id,
    )


def category_fragment(ctx: RequestContext, query: dict[str, Any]) -> str:
    """GET /{v}/catalog/category: one category's recipes (404 for an unknown category)."""
    page = _list_page(ctx, query, kind="category", category_id=query["category_id"])
    return render_catalog("catalog/list_fragment.html", ctx, page=page)


def list_fragment(ctx: RequestContext, query: dict[str, Any]) -> str:
    """GET /{v}/catalog/list: search results, recipe types, or every recipe."""
    page = _list_page(ctx, query, kind="list", category_id=None)
    return render_catalog("catalog/list_fragment.html", ctx, page=page)
