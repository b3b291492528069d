"""The no-supplier add-to-cart CTA of a recipe publisher, and the transfer of its basket to the publisher's
affiliated retailer (README.md, "a recipe publisher's add-to-cart button").

The CTA names the recipe by the publisher's own id: the upstream's external-id lookup resolves it, else the
value is taken as the service's recipe id, else there is no CTA. Whether the recipe is in the user's basket
is decided here, from the basket wherever it is priced (a publisher's page knows no store). The basket
is read on the gateway's pool while the (cached) external-id lookup and recipe are read, so a CTA costs one
upstream round trip once those and the affiliated retailer are cached. The retailer's stores are not in the
fragment: the drawer reads them when it opens (`GET /{v}/basket/transfers/stores`, prerender/blueprints/
transfers.py), since a retailer's 3 000 stores would weigh 500 KB in every button of a page.
"""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from flask import current_app, render_template

from prerender.gateway import Store, Supplier, UpstreamError, fallbacks, get_upstream
from prerender.rendering.assets import get_assets
from prerender.rendering.i18n import Translator, translator_for
from prerender.schemas.fields import ID_PATTERN
from prerender.web.context import RequestContext

CTA_MODULES = ("sdk/svc.js", "components/no-supplier-cta.js")
# The query parameters the retailer's SDK reads on arrival (prerender/static/sdk/transfer.js).
TRANSFER_PARAMS = ("affiliate", "transferred_basket_token", "point_of_sale_ext_id")


@dataclass(frozen=True)
class TransferOffer:
    """The affiliated retailer the basket can go to (the drawer reads its stores when it opens)."""

    retailer: str
    # False for a publisher without an affiliated retailer that has a site here: the drawer says so.
    available: bool = True


@dataclass(frozen=True)
class CtaView:
    """Everything the CTA fragment shows, already decided."""

    recipe_id: str
    external_id: str
    title: str
    guests: int
    in_basket: bool
    # The store the user's basket is priced at (the one picked in the drawer earlier), if any.
    store_id: str | None
    offer: TransferOffer | None

    def browser_data(self, t: Translator) -> dict[str, Any]:
        """What the element and the drawer's store picker need, put in the page through `tojson`."""
        retailer = self.offer.retailer if self.offer else ""
        texts = {
            # {store} stays for the browser to fill with the store it shows.
            key.lower(): t(f"NO_SUPPLIER_CTA.{key}", retailer=retailer, store="{store}")
            for key in (
                "BUY_INGREDIENTS",
                "SEE_INGREDIENTS",
                "STORE_TITLE",
                "STORE_LABEL",
                "STORE_PLACEHOLDER",
                "STORE_SUBMIT",
                "STORE_REQUIRED",
                "STORE_CHANGE",
                "STORE_CURRENT",
                "STORES_LOADING",
                "STORES_UNAVAILABLE",
                "STORES_RETRY",
                "TRANSFER",
                "TRANSFER_HINT",
                "TRANSFER_EMPTY",
                "TRANSFER_PENDING",
                "TRANSFER_FAILED",
                "NO_RETAILER",
            )
        }
        offer = None
        if self.offer is not None:
            offer = {
                "available": self.offer.available,
                "retailer": self.offer.retailer,
                # For the drawer of the release before, which a page may have loaded from another node during a
                # rolling deploy: it read the stores from here, and with none says they cannot be shown rather
                # than failing. This release's drawer reads them (components/basket-transfer.js). To be dropped
                # in the release after.
                "stores": [],
                "stores_loaded": False,
            }
        return {"recipe_id": self.recipe_id, "title": self.title, "texts": texts, "transfer": offer}


def store_data(store: Store) -> dict[str, Any]:
    """A store of the drawer's picker: `latitude` and `longitude` only when the upstream knows where it is (the
    picker lists the nearest first once the page gave the shopper's location, `user.setLocation`)."""
    data: dict[str, Any] = {"id": store.id, "name": store.name, "city": store.city}
    if store.latitude is not None and store.longitude is not None:
        data["latitude"] = store.latitude
        data["longitude"] = store.longitude
    return data


def resolve_recipe_id(ctx: RequestContext, publisher_id: str) -> str | None:
    """The service's id of the publisher's recipe: its external id's match, else the value itself when it can be a
    recipe id (None when it cannot: the CTA is then empty)."""
    matched = get_upstream().recipes.id_by_external_id(ctx.upstream, publisher_id)
    if matched is not None:
        return matched
    return publisher_id if ID_PATTERN.fullmatch(publisher_id) else None


def build_cta(ctx: RequestContext, publisher_id: str, guests: int | None) -> CtaView | None:
    """The CTA of a publisher's recipe, None when neither its external id nor its value names a recipe.
    Upstream failures of the recipe propagate (the blueprint answers an empty CTA); the basket and the store
    list only decorate it, so their failures render "not in the basket" and no store picker. A recipe in the
    basket shows the basket's guest count (what the drawer re-scales from), else `guests` or the recipe's."""
    upstream = get_upstream()
    basket = upstream.concurrent.start(upstream.baskets.where_open, ctx.upstream)
    recipe_id = resolve_recipe_id(ctx, publisher_id)
    recipe = (
        upstream.recipes.by_id(ctx.upstream, recipe_id, store_id=None, serves=None, summary=True) if recipe_id else None
    )
    if recipe is None:
        return None
    offer = transfer_offer(ctx)
    in_basket, store_id = _basket_state(basket, ctx)
    return CtaView(
        recipe_id=recipe.id,
        external_id=publisher_id,
        title=recipe.title,
        guests=in_basket.get(recipe.id) or guests or recipe.guests,
        in_basket=recipe.id in in_basket,
        store_id=store_id,
        offer=offer,
    )


def _basket_state(basket: Future[dict[str, Any]], ctx: RequestContext) -> tuple[dict[str, int], str | None]:
    """The guests of each recipe of the user's basket, and the store it is priced at; none when it cannot be
    read."""
    try:
        answer = basket.result()
    except UpstreamError as error:
        fallbacks.failed_without(
            "basket", error, request_id=ctx.request_id, consequence=", CTA rendered as not in the basket"
        )
        return {}, None
    entries = answer.get("recipes")
    if not isinstance(entries, list):
        entries = []
    in_basket = {
        str(entry.get("recipe_id")): _guest_count(entry.get("guests")) for entry in entries if isinstance(entry, dict)
    }
    store_id = answer.get("store_id")
    return in_basket, str(store_id) if store_id not in (None, "") and in_basket else None


def _guest_count(value: Any) -> int:
    """An entry's guests when the upstream gave a count of 1 to 50, else 0 (the other counts apply)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 50 else 0


def affiliated_retailer(ctx: RequestContext) -> Supplier | None:
    """Where the publisher's basket can go: its affiliated retailer, when it has a site in this environment
    (`has_site`); None when it has none, the upstream no longer knows it, or it has no site here."""
    supplier = ctx.supplier
    if supplier is None or supplier.affiliated_supplier_id is None:
        return None
    retailer = get_upstream().suppliers.by_id(
        supplier.affiliated_supplier_id,
        service_key=current_app.config["UPSTREAM_SERVICE_KEY"],
        request_id=ctx.request_id,
    )
    return retailer if retailer is not None and has_site(retailer, current_app.config["ENVIRONMENT"]) else None


def transfer_offer(ctx: RequestContext) -> TransferOffer | None:
    """What the drawer offers a publisher's reader: the affiliated retailer (unavailable when it has no site here,
    or cannot be read right now). None for a supplier that is not a publisher."""
    supplier = ctx.supplier
    if supplier is None or supplier.kind != "publisher":
        return None
    unavailable = TransferOffer(retailer="", available=False)
    try:
        retailer = affiliated_retailer(ctx)
    except UpstreamError as error:
        fallbacks.failed_without(
            "affiliated retailer", error, request_id=ctx.request_id, consequence=", CTA without transfer"
        )
        return unavailable
    return unavailable if retailer is None else TransferOffer(retailer=retailer.name)


def render_cta(cta: CtaView, ctx: RequestContext) -> str:
    """The CTA fragment, ending with the module scripts that upgrade it."""
    t = translator_for(ctx)
    return render_template(
        "cta/fragment.html",
        cta=cta,
        t=t,
        prefix=current_app.config["ELEMENT_PREFIX"],
        module_urls=get_assets().module_urls(CTA_MODULES),
    )


# --- the transfer link --------------------------------------------------------------------------------


def has_site(retailer: Supplier, environment: str) -> bool:
    """Whether the retailer's routing gives its site's address (http or https) in this environment."""
    routing = retailer.routing.get(environment)
    return routing is not None and routing.url_of("/") is not None


def transfer_url(publisher: Supplier, retailer: Supplier, *, environment: str, token: str, store_id: str) -> str:
    """The retailer page the browser goes to with the transfer's token: the retailer's catalog home (routing
    `baseUrl` + `features.catalog`, else `/`), with the parameters its SDK reads (needs `has_site`)."""
    routing = retailer.routing[environment]
    page = (routing.url_of(routing.catalog_path) if routing.catalog_path else None) or routing.url_of("/") or ""
    query = urlencode(dict(zip(TRANSFER_PARAMS, (publisher.name, token, store_id), strict=True)))
    return f"{page}{'&' if '?' in page else '?'}{query}"
