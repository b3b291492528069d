"""Property test over every template: whatever the upstream sends in its text and URL fields (markup,
quotes, javascript: URLs, 10 kB descriptions), the fragments stay harmless and show the text as text."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from bs4 import BeautifulSoup
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prerender.gateway import Pricing, Recipe
from prerender.rendering.cards import CardOptions, build_card, render_card
from prerender.rendering.details import build_details, render_details
from prerender.rendering.i18n import translator_for

from .test_card_template import RETAILER, ctx

HOSTILE = [
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "' onmouseover='x",
    "javascript:alert(1)",
    "</svc-recipe-card><script>x</script>",
    "{{ 7*7 }}",
    "&lt;b&gt;",
    "\u202e\u0000é€",
]
texts = st.one_of(st.sampled_from(HOSTILE), st.text(min_size=1, max_size=200), st.just("x" * 10_000)).filter(
    lambda t: t.strip()
)
urls = st.one_of(
    st.sampled_from(
        [
            "javascript:alert(1)",
            "data:text/html,<script>x</script>",
            "//evil.example/x",
            'http://up/a.svg" onerror="x',
            "http://up/ok.svg",
        ]
    ),
    st.text(max_size=50),
)


@st.composite
def recipes(draw) -> Recipe:
    product = {
        "id": "p1",
        "name": draw(texts),
        "brand": draw(texts),
        "size": draw(texts),
        "picture_url": draw(urls),
        "price": 2.5,
        "available": True,
        "promoted": draw(st.booleans()),
        "packages": 2,
    }
    alternative = {**product, "id": "p2", "name": draw(texts)}
    ingredient = {
        "id": "i1",
        "name": draw(texts),
        "display": draw(texts),
        "primary": True,
        "products": [product, alternative],
    }
    return Recipe(
        id="12",
        title=draw(texts),
        picture_url=draw(urls),
        type=draw(st.sampled_from(["main-dish", "x<y"])),
        difficulty=2,
        total_time=30,
        guests=4,
        available=True,
        promoted=draw(st.booleans()),
        pricing=Pricing(4, Decimal("10"), Decimal("2.5")),
        description=draw(texts),
        ingredients=(ingredient,),
        steps=({"position": 1, "text": draw(texts)},),
    )


def words(text: str) -> list[str]:
    """Text as a reader sees it: HTML parsing normalises line breaks (\r -> \n), and drops NUL characters from
    an element's text (the HTML standard's "in body" insertion mode ignores them)."""
    return text.replace("\x00", "").split()


def assert_harmless(html: str, *, module_scripts: int) -> BeautifulSoup:
    soup = BeautifulSoup(html, "html5lib")
    scripts = soup.find_all("script")
    executable = [s for s in scripts if s.get("type") not in ("application/json",)]
    assert len(executable) == module_scripts and all(s.get("src") and not s.string for s in executable)
    for tag in soup.find_all(True):
        assert not [name for name in tag.attrs if name.lower().startswith("on")], tag.name
        for name in ("src", "href"):
            if tag.get(name):
                assert tag[name].startswith(("http://", "https://")), tag[name]
    return soup


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(recipe=recipes(), variant=st.sampled_from([1, 2, 3]))
def test_cards_stay_harmless(app, recipe, variant):
    context = ctx()
    with app.test_request_context("/"):
        t = translator_for(context)
        options = CardOptions(display_variant=variant, orientation="vertical", store_id="1001", serves=None)
        html = render_card(build_card(recipe, options, context, t=t), t)
        nopers = replace(context, supplier=replace(RETAILER, personalization=False))
        client_side = render_card(build_card(recipe, options, nopers, t=t), t)
    soup = assert_harmless(html, module_scripts=2)
    assert words(soup.select_one(".svc-recipe-card__title").get_text()) == words(recipe.title)
    assert_harmless(client_side, module_scripts=2)


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(recipe=recipes())
def test_drawer_content_stays_harmless(app, recipe):
    context = ctx()
    with app.test_request_context("/"):
        t = translator_for(context)
        html = render_details(build_details(recipe, context, store_id="1001", guests=None, t=t), context)
    soup = assert_harmless(html, module_scripts=0)
    data = soup.select_one("script.svc-recipe-details__data")
    assert data is not None and "</script" not in (data.string or "").lower()
    assert words(soup.select_one(".svc-recipe-details__title").get_text()) == words(recipe.title)
