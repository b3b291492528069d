"""My space's order history at the routes' page cap (prerender/rendering/my_space.py): the last page a shopper
may reach (MAX_CATALOG_PAGE, prerender/schemas/catalog.py) links no next page, which would be a 400, and says how
many orders the pages list. A shopper with a thousand orders is rare; the rule is the catalog lists' one
(tests/integration/test_page_caps.py runs that one against a live coreapi)."""

from __future__ import annotations

from zoneinfo import ZoneInfo

import pytest

from prerender.gateway.catalog import HistoryPage
from prerender.rendering.catalog import link_defaults
from prerender.rendering.i18n import TextCatalog
from prerender.rendering.my_space import history_view
from prerender.schemas.catalog import MAX_CATALOG_PAGE

FR = TextCatalog(overrides_dir=None).translator("fr")
PER_PAGE = 10


def view_of(page: int, total: int):
    answer = HistoryPage(orders=(), page=page, per_page=PER_PAGE, total=total)
    return history_view(answer, {"page": page}, t=FR, defaults=link_defaults("v2"), zone=ZoneInfo("Europe/Paris"))


@pytest.mark.parametrize(
    ("page", "total", "linked", "listed_at_most"),
    [
        (MAX_CATALOG_PAGE - 1, MAX_CATALOG_PAGE * PER_PAGE + 1, True, None),
        (MAX_CATALOG_PAGE, MAX_CATALOG_PAGE * PER_PAGE + 1, False, MAX_CATALOG_PAGE * PER_PAGE),
        (MAX_CATALOG_PAGE, MAX_CATALOG_PAGE * PER_PAGE, False, None),  # every order reached: nothing to say
    ],
)
def test_the_last_reachable_page_links_no_next_and_says_how_many_are_listed(
    page: int, total: int, linked: bool, listed_at_most: int | None
) -> None:
    view = view_of(page, total)
    assert (view.next_url is not None, view.listed_at_most) == (linked, listed_at_most)
    if linked:
        assert f"page={page + 1}" in str(view.next_url)


def test_the_sentence_is_in_the_shoppers_language() -> None:
    assert FR("CATALOG_MY_SPACE.ORDERS_LISTED_AT_MOST", count=1000) == (
        "Seules vos 1\u202f000 dernières commandes sont listées ici."  # a narrow no-break space, as French writes it
    )
