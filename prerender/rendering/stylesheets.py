"""Which stylesheets each styles route combines (docs/styles.md).

A route that mirrors a component includes its sub-components' sheets. Component routes never include
`base`: the design system is a separate sheet, needed whenever any component is on a page.
"""

from __future__ import annotations

# The card, its drawer, and the recipe publisher's CTA that opens the same drawer.
_RECIPE_CARD = ("recipe-card", "like-button", "drawer", "recipe-details", "no-supplier-cta")
# The entry block and its onboarding modal (also the current-menu page's).
_PLANNER_ENTRY = ("planner-entry", "planner-onboarding")
# The catalog shell and the preferences panel its toolbar opens (every catalog page with a toolbar).
_CATALOG = ("catalog", "preferences")

# Route path below /{api_version}/styles/ -> sheet names (files static/css/<name>.css), in link order.
STYLE_BUNDLES: dict[str, tuple[str, ...]] = {
    "base": ("base",),
    "recipe-card": _RECIPE_CARD,
    # Every catalog page's: a retailer linking this route alone gets each page it may show (the home's planner
    # entry included), as the per-page routes below narrow it.
    "catalog": (
        *_RECIPE_CARD,
        *_PLANNER_ENTRY,
        *_CATALOG,
        "catalog-home",
        "catalog-list",
        "catalog-category",
        "catalog-favorites",
        "my-space",
        "basket-preview",
    ),
    "catalog/catalog-home": (*_RECIPE_CARD, *_PLANNER_ENTRY, *_CATALOG, "catalog-home"),
    # A category page has the list page's recipe-type chips (catalog-list.css).
    "catalog/catalog-category": (*_RECIPE_CARD, *_CATALOG, "catalog-list", "catalog-category"),
    "catalog/catalog-favorites": (*_RECIPE_CARD, *_CATALOG, "catalog-favorites"),
    "catalog/catalog-list": (*_RECIPE_CARD, *_CATALOG, "catalog-list"),
    # my-space's page set includes the basket preview (GET /v2/catalog/my-space/basket-preview).
    "catalog/my-space": (*_RECIPE_CARD, *_CATALOG, "my-space", "basket-preview"),
    "planner": (*_RECIPE_CARD, "catalog", "catalog-list", "breadcrumb", *_PLANNER_ENTRY, "quick-menu", "planner"),
    "planner/planner-entry": _PLANNER_ENTRY,
}


def all_sheets() -> tuple[str, ...]:
    """Every sheet once, base first: the combined `/styles` route."""
    ordered = {"base": None}
    for sheets in STYLE_BUNDLES.values():
        ordered.update(dict.fromkeys(sheets))
    return tuple(ordered)
