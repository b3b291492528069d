"""The shopper's preferences on the catalog pages: whether they apply, the panel that edits them, and the active
filters a page shows.

Preferences exist for a shopper the customer named (a user or an authless visitor) of a supplier with
personalization on. With personalization off (the specification's switch) the panel is not rendered, nothing
is read or applied, and the page tells the browser SDK to drop its own copy (`personalization="off"` on the
page's root: components/catalog.js, `forgetSaved` of components/catalog/preferences.js); the upstream removes
the stored ones when the switch is turned off (`flask --app coreapi set-personalization`, docs/upstream.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from prerender.gateway import Choice, PreferenceOptions, Preferences
from prerender.rendering.i18n import Translator
from prerender.web.context import RequestContext

NO_PREFERENCES = Preferences()


@dataclass(frozen=True)
class OptionView:
    """One checkbox of the panel."""

    id: str
    name: str
    checked: bool


@dataclass(frozen=True)
class PreferencesPanelView:
    """The panel (a dialog the toolbar's button opens), filled with the shopper's current choices."""

    diets: tuple[OptionView, ...]
    equipment: tuple[OptionView, ...]
    ingredients: tuple[OptionView, ...]
    guests: int | None
    guests_min: int
    guests_max: int
    # How many choices are active (the button's badge).
    active_count: int


def has_preferences(ctx: RequestContext) -> bool:
    """Whether this request's shopper can have preferences: a named shopper of a known supplier with
    personalization on."""
    return ctx.supplier is not None and ctx.personalization and (ctx.is_connected or ctx.authless_id is not None)


def _options(choices: Sequence[Choice], selected: Sequence[str]) -> tuple[OptionView, ...]:
    chosen = set(selected)
    return tuple(OptionView(id=c.id, name=c.name, checked=c.id in chosen) for c in choices)


def panel_view(options: PreferenceOptions, preferences: Preferences) -> PreferencesPanelView:
    """The panel's view: every option, the shopper's checked."""
    return PreferencesPanelView(
        diets=_options(options.diets, preferences.diets),
        equipment=_options(options.equipment, preferences.missing_equipment),
        ingredients=_options(options.ingredients, preferences.avoided_ingredients),
        guests=preferences.guests,
        guests_min=options.guests_min,
        guests_max=options.guests_max,
        active_count=len(preferences.diets) + len(preferences.avoided_ingredients) + len(preferences.missing_equipment),
    )


def active_filters(options: PreferenceOptions, preferences: Preferences, t: Translator) -> tuple[str, ...]:
    """The labels of the filters the shopper's preferences put on a list, in the panel's order."""
    if not preferences.filters:
        return ()

    def without(name: str) -> str:
        # "Sans four", "No oven": the option's name in running text.
        return t("CATALOG_PREFERENCES.WITHOUT", name=name[:1].lower() + name[1:])

    names = {
        "diet": {c.id: c.name for c in options.diets},
        "equipment": {c.id: c.name for c in options.equipment},
        "ingredient": {c.id: c.name for c in options.ingredients},
    }
    labels = [names["diet"].get(d, d) for d in preferences.diets]
    labels += [without(names["equipment"].get(e, e)) for e in preferences.missing_equipment]
    labels += [without(names["ingredient"].get(i, i)) for i in preferences.avoided_ingredients]
    return tuple(labels)
