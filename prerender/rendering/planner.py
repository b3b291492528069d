"""The planner entry block (GET /v2/planner/entry): where each mode leads, what the entry shows, its fragment.

The entry sends the shopper to the customer's current-menu page, which the customer hosts at its own URL:
the supplier's routing for the configured environment (`ENVIRONMENT`, prerender/config.py) gives it,
`baseUrl` + `planner.current`, or `baseUrl` + `features.planner` when `planner.current` is empty or
missing. Each mode carries that URL with `mode=selection|custom` (and `store_id` when given), for the
current-menu page to read; the guest count travels in localStorage (`_<prefix>/planner/guests`), which the
entry's module writes. Without a known supplier, or without usable routing for the environment, the entry
renders with its modes disabled and says the planner is not available: never an error.

The fragment needs one upstream read, often cached: the store list, to refuse a `store_id` the upstream does not
know (a 400, as on the other routes, rather than modes leading to a current-menu page that refuses it). When
that list cannot be read, the entry renders anyway (the current-menu page checks the store again). For a shopper
who can have preferences (rendering/preferences.py) it reads them too (never cached: the shopper's own): the
stepper starts from their number of people (`preferred-guests`; in the browser a count the shopper chose since it
saved that preference wins, components/planner-entry.js); unreadable, the entry renders without. The catalog home,
which reads them for its lists, passes them in (`planner_entry`). The supplier is the request's (resolved by the header
guard).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from flask import current_app, render_template

from prerender.gateway import Supplier, UnknownStore, UpstreamError, fallbacks, get_upstream
from prerender.rendering.assets import get_assets
from prerender.rendering.i18n import translator_for
from prerender.rendering.preferences import has_preferences
from prerender.rendering.urls import with_query
from prerender.web.context import RequestContext

log = logging.getLogger(__name__)

# Guests the stepper offers (docs/browser-api.md); the default until the browser reads the stored count.
GUESTS_MIN = 1
GUESTS_MAX = 12
GUESTS_DEFAULT = 4
# The two ways into the planner, in the order they are shown: the first is the primary action.
MODES = ("selection", "custom")
# Text keys of each mode (PLANNER_MENU_OPTION of the specification).
MODE_TEXTS = {
    "selection": ("PLANNER_MENU_OPTION.SELECTION", "PLANNER_MENU_OPTION.SELECTION_SUBTITLE"),
    "custom": ("PLANNER_MENU_OPTION.CUSTOM", "PLANNER_MENU_OPTION.CUSTOM_SUBTITLE"),
}
# Steps of the onboarding modal (PLANNER_ONBOARDING.STEP_<n>_TITLE / _TEXT).
ONBOARDING_STEPS = 3
# The SDK first, then the entry (each module is idempotent); the entry loads the onboarding modal's module when
# its help button is first used (components/planner-entry.js).
ENTRY_MODULES = ("sdk/svc.js", "components/planner-entry.js")


@dataclass(frozen=True)
class ModeView:
    """One mode button: its name, texts, and the URL it leads to (None: the mode is disabled)."""

    name: str
    title: str
    subtitle: str
    href: str | None

    @property
    def form_action(self) -> str:
        """`href` without its query: the action of the GET form that takes a page without scripts there."""
        return urlunsplit(urlsplit(self.href or "")._replace(query=""))

    @property
    def form_fields(self) -> list[tuple[str, str]]:
        """`href`'s query as the form's hidden fields (a GET form replaces its action's query with its fields)."""
        return parse_qsl(urlsplit(self.href or "").query, keep_blank_values=True)


@dataclass(frozen=True)
class PlannerEntryView:
    """Everything the entry template shows, already decided."""

    store_id: str | None
    guests_min: int
    guests_max: int
    modes: tuple[ModeView, ...]
    # The current-menu page without the mode (None: the planner is not available for this supplier here).
    destination: str | None
    onboarding_id: str
    # The supplier could not be checked (the upstream failed): unavailable for now, not "not on this site".
    lookup_failed: bool = False
    # The number of people of the shopper's preferences, where the stepper starts (None: it has none, or they could
    # not be read).
    preferred_guests: int | None = None

    @property
    def available(self) -> bool:
        return self.destination is not None

    @property
    def guests(self) -> int:
        """Where the server-rendered stepper stands: the preference, else the default."""
        return self.preferred_guests or GUESTS_DEFAULT


def planner_destination(supplier: Supplier | None, environment: str) -> str | None:
    """The customer's current-menu page for an environment, or None (no supplier, no routing for the
    environment, no path, or a base URL that is not an absolute http(s) URL: a `javascript:` one must never
    reach a page)."""
    if supplier is None:
        return None
    routing = supplier.routing.get(environment)
    if routing is None:
        return None
    path = routing.current_menu_path or routing.planner_path
    if not path:
        return None
    url = routing.url_of(path)
    if url is None:
        log.warning(
            "supplier %s: unusable planner URL (base %r, path %r) for %s",
            supplier.id,
            routing.base_url,
            path,
            environment,
        )
    return url


def mode_url(destination: str, mode: str, store_id: str | None) -> str:
    """The destination with `mode` (and `store_id`) in its query, its own other parameters kept."""
    return with_query(destination, mode=mode, store_id=store_id or None)


def build_entry(
    ctx: RequestContext, *, store_id: str | None, environment: str, preferred_guests: int | None
) -> PlannerEntryView:
    """The entry's view model for the request's supplier in an environment; `preferred_guests`: the number of people
    of the shopper's preferences (None: none, or not known)."""
    t = translator_for(ctx)
    destination = planner_destination(ctx.supplier, environment)
    if destination is None:
        supplier = ctx.supplier.id if ctx.supplier else "none (no valid supplier-token)"
        log.info("planner entry without a destination: supplier %s, environment %s", supplier, environment)
    modes = tuple(
        ModeView(
            name=mode,
            title=t(MODE_TEXTS[mode][0]),
            subtitle=t(MODE_TEXTS[mode][1]),
            href=mode_url(destination, mode, store_id) if destination else None,
        )
        for mode in MODES
    )
    preferred = min(GUESTS_MAX, max(GUESTS_MIN, preferred_guests)) if preferred_guests is not None else None
    return PlannerEntryView(
        store_id=store_id,
        guests_min=GUESTS_MIN,
        guests_max=GUESTS_MAX,
        modes=modes,
        destination=destination,
        onboarding_id=f"{current_app.config['ELEMENT_PREFIX']}-planner-onboarding",
        lookup_failed=ctx.supplier is None and ctx.supplier_lookup_failed,
        preferred_guests=preferred,
    )


def read_preferred_guests(ctx: RequestContext) -> int | None:
    """The number of people of the shopper's preferences, read for the entry's own route (a catalog page passes those
    it read already); None for a shopper who cannot have preferences (rendering/preferences.py), has not chosen one,
    or whose preferences cannot be read now (the entry renders without)."""
    if not has_preferences(ctx):
        return None
    try:
        preferences = get_upstream().catalog.preferences(ctx.upstream)
    except UpstreamError as error:
        fallbacks.failed_without(
            "preferences", error, request_id=ctx.request_id, consequence=", the planner entry without them"
        )
        return None
    return preferences.guests if preferences.enabled else None


def render_entry(entry: PlannerEntryView, ctx: RequestContext) -> str:
    """The entry fragment: the entry, its onboarding modal (hidden), then the module scripts."""
    return render_template(
        "planner/entry_fragment.html",
        entry=entry,
        t=translator_for(ctx),
        prefix=current_app.config["ELEMENT_PREFIX"],
        steps=ONBOARDING_STEPS,
        module_urls=get_assets().module_urls(ENTRY_MODULES),
    )


def check_store(ctx: RequestContext, store_id: str | None) -> None:
    """Raise UnknownStore (the caller's 400) for a `store_id` the upstream's store list does not hold. Nothing to
    check without a store or a supplier (the modes are disabled then); an unreadable list checks nothing."""
    if not store_id or ctx.supplier is None:
        return
    try:
        stores = get_upstream().stores.every_store(ctx.upstream)
    except UpstreamError as error:
        fallbacks.failed_without(
            "stores", error, request_id=ctx.request_id, consequence=f", store {store_id} not checked"
        )
        return
    if all(store.id != store_id for store in stores):
        problem = {"status": 400, "errors": {"query": {"store_id": ["Unknown store."]}}}
        raise UnknownStore(400, problem, "stores")


def planner_entry(ctx: RequestContext, *, store_id: str | None, preferred_guests: int | None) -> str:
    """The entry fragment for the request (without the shopper's credential element)."""
    environment = str(current_app.config["ENVIRONMENT"])
    entry = build_entry(ctx, store_id=store_id, environment=environment, preferred_guests=preferred_guests)
    return render_entry(entry, ctx)
