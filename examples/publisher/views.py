"""The blog's pages: the home page, the recipe lists, the recipe pages, the health check."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, Response, current_app, make_response, render_template, request

from examples.stylesheets import OPENED_LATER, defer_sheets

from .fragments import RecipeFragments, fetch_recipe_fragments
from .reader import Reader, persist, reader_from
from .recipes import BY_ID, CATEGORIES, FEATURED_ID, RECIPES, in_category, newest_first, recipe_of, related
from .services import get_services

bp = Blueprint("publisher", __name__)

# prerender's sheets that the first paint of a recipe page does not need (examples/stylesheets.py): what opens on
# a click, and the recipe card's own sheets, which the recipe-card route serves with the button's but the blog
# never shows a card (the button is styled by base and no-supplier-cta).
LATER_SHEETS = OPENED_LATER | {"recipe-card", "like-button"}


@dataclass(frozen=True)
class Page:
    """What the layout template needs besides the page's own content."""

    reader: Reader | None = None
    # prerender's stylesheet links (only on a recipe page with its button).
    styles_html: str = ""
    # The navigation entry of the page: "home", "all" or a category.
    section: str | None = None

    @property
    def head_styles(self) -> str:
        """prerender's stylesheet links for <head>: those of what opens later do not block the first paint."""
        return defer_sheets(self.styles_html, LATER_SHEETS)

    @property
    def context(self) -> dict[str, Any]:
        """What static/publisher.js needs to set up prerender's SDK (rendered as JSON in the page). Never the
        supplier token: it stays on the blog's server."""
        reader = self.reader
        return {
            "language": reader.language if reader else current_app.config["LANGUAGE"],
            "sessionId": reader.session_id if reader else None,
            "authlessId": reader.authless_id if reader else None,
        }


@bp.get("/healthz")
def healthz() -> dict[str, str]:
    """Liveness of the blog itself: never calls prerender."""
    return {"status": "ok"}


def _reader(request_id: str) -> Reader:
    prerender = get_services().prerender
    return reader_from(request, prerender, language=current_app.config["LANGUAGE"], request_id=request_id)


def _render(template: str, page: Page, status: int = 200, **values: object) -> Response:
    """A page made for this reader: never cached by others, its cookies kept."""
    response = make_response(render_template(template, page=page, **values), status)
    response.headers["Cache-Control"] = "private, no-store"
    if page.reader is not None:
        persist(page.reader, response, secure=current_app.config["COOKIE_SECURE"])
    return response


@bp.get("/")
def home() -> Response:
    """The hero (the recipe of the moment) and the latest recipes."""
    reader = _reader(uuid.uuid4().hex)
    featured = BY_ID[FEATURED_ID]
    latest = [recipe for recipe in newest_first(RECIPES) if recipe.id != featured.id]
    return _render("home.html", Page(reader=reader, section="home"), featured=featured, latest=latest)


@bp.get("/recettes")
def recipes() -> Response:
    """Every recipe, or those of one category (`?categorie=plats`); an unknown category lists them all."""
    reader = _reader(uuid.uuid4().hex)
    category = request.args.get("categorie", "")
    if category in CATEGORIES:
        listed, title, section = in_category(category), CATEGORIES[category], category
    else:
        listed, title, section = newest_first(RECIPES), "Toutes nos recettes", "all"
    return _render("recipes.html", Page(reader=reader, section=section), recipes=listed, title=title)


@bp.get("/recettes/<recipe_id>")
def recipe(recipe_id: str) -> Response:
    """One recipe, with prerender's add-to-cart button for its servings when prerender gives one."""
    found = recipe_of(recipe_id)
    if found is None:
        return not_found()
    started = time.monotonic()
    request_id = uuid.uuid4().hex
    reader = _reader(request_id)
    services = get_services()
    budget = current_app.config["PRERENDER_PAGE_BUDGET"] - (time.monotonic() - started)
    fragments: RecipeFragments = fetch_recipe_fragments(
        services.prerender,
        services.pool,
        reader,
        found.id,
        guests=found.servings,
        budget=budget,
        request_id=request_id,
    )
    page = Page(reader=reader, styles_html=fragments.styles_html, section=found.category)
    return _render("recipe.html", page, recipe=found, cta_html=fragments.cta_html, related=related(found))


@bp.app_errorhandler(404)
def not_found(_error: object = None) -> Response:
    """The blog's own page for an address it does not know."""
    return _render("not_found.html", Page(), 404, recipes=newest_first(RECIPES)[:3])
