"""The pictures of the fragments in the demo shop on a phone (docs/decisions.md, "Issue 24: pictures in the
fragments"): each picture's box is there before a byte of the picture has come and does not change when it
comes (no layout shift), and the one card in the first view is the one whose picture is fetched first."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import BrowserContext, Locator, Page, Route, expect

from examples.shop.visitor import STORE_COOKIE

from .helpers import hydrated_cards, loaded

PHONE = {"width": 375, "height": 800}
CARD_PICTURES = ".svc-recipe-card__picture img[data-svc-picture='recipe']"


class HeldPictures:
    """Holds coreapi's picture requests until `release`: what the page looks like before its pictures come."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.routes: list[Route] = []
        page.route("**/media/**", lambda route: self.routes.append(route))

    def release(self) -> None:
        held, self.routes = self.routes, []
        for route in held:
            route.continue_()
        self.page.unroute("**/media/**")  # and lets go of any that came meanwhile


@pytest.fixture
def held(page: Page, context: BrowserContext, shop_url: str) -> Iterator[HeldPictures]:
    page.set_viewport_size(PHONE)
    context.add_cookies([{"name": STORE_COOKIE, "value": "1001", "url": shop_url}])
    pictures = HeldPictures(page)
    yield pictures
    pictures.release()


def size(element: Locator) -> tuple[float, float]:
    box = element.bounding_box()
    assert box is not None, element
    return round(box["width"], 1), round(box["height"], 1)


def test_a_card_picture_box_is_there_before_the_picture_and_stays(page: Page, held: HeldPictures, shop_url: str):
    page.goto(f"{shop_url}/", wait_until="domcontentloaded")
    pictures = page.locator(CARD_PICTURES)
    expect(pictures.first).to_be_attached()
    first = pictures.first
    assert page.evaluate("img => !img.complete", first.element_handle())  # its request is held
    before = [size(pictures.nth(i)) for i in range(pictures.count())]
    for width, height in before:
        assert width > 100 and abs(height - width * 3 / 4) <= 1, before  # the card's 4:3 frame
    held.release()
    loaded(page, first)
    assert size(first) == before[0]
    assert [size(pictures.nth(i)) for i in range(pictures.count())] == before


def test_the_first_card_in_view_is_fetched_first_the_others_lazily(page: Page, held: HeldPictures, shop_url: str):
    page.goto(f"{shop_url}/", wait_until="domcontentloaded")
    pictures = page.locator(CARD_PICTURES)
    expect(pictures.first).to_be_attached()
    first = pictures.first
    assert first.get_attribute("fetchpriority") == "high" and first.get_attribute("loading") is None
    box = first.bounding_box()
    assert box is not None and box["y"] + box["height"] / 2 < PHONE["height"]  # in the phone's first view
    # The request for it is already made, before any script or scroll.
    assert any(first.get_attribute("src") == route.request.url for route in held.routes), held.routes
    others = [pictures.nth(i) for i in range(1, pictures.count())]
    assert others and all(img.get_attribute("loading") == "lazy" for img in others)
    assert all(img.get_attribute("fetchpriority") is None for img in others)


def test_the_drawer_hero_box_is_there_before_the_picture(page: Page, held: HeldPictures, shop_url: str):
    page.goto(f"{shop_url}/", wait_until="domcontentloaded")
    card = hydrated_cards(page).first
    title = card.locator(".svc-recipe-card__title").inner_text().strip()
    card.locator(".svc-recipe-card-cta").click()
    dialog = page.get_by_role("dialog", name=title)
    hero = dialog.locator(".svc-recipe-details__hero-img")
    expect(hero).to_be_visible()
    assert hero.get_attribute("fetchpriority") == "high" and hero.get_attribute("loading") is None
    width, height = size(hero)
    assert width > 300 and abs(height - width * 10 / 16) <= 1  # the hero's 16:10 frame, at the drawer's width
    held.release()
    loaded(page, hero)
    assert size(hero) == (width, height)


def test_a_picture_that_fails_without_a_default_shows_the_tinted_box(
    page: Page, context: BrowserContext, shop_url: str
):
    """A picture whose address answers 404, on a page that set no default picture (sdk/customization.js): its box
    keeps its size and shows the components' tinted placeholder, not the browser's broken-picture icon."""
    page.set_viewport_size(PHONE)
    context.add_cookies([{"name": STORE_COOKIE, "value": "1001", "url": shop_url}])
    page.route(re.compile(r"/media/recipes/\d+\.svg(\?.*)?$"), lambda route: route.fulfill(status=404, body=""))
    page.goto(f"{shop_url}/")
    picture = hydrated_cards(page).first.locator(CARD_PICTURES)
    expect(picture).to_have_attribute("data-svc-picture-failed", re.compile(r"/media/recipes/\d+\.svg"))
    expect(picture).not_to_have_attribute("src", re.compile(".*"))
    width, height = size(picture)
    assert width > 100 and abs(height - width * 3 / 4) <= 1
    tint = page.evaluate("() => getComputedStyle(document.documentElement).getPropertyValue('--svc-color-surface-alt')")
    assert tint.strip() == "#f5f7f6"
    expect(picture).to_have_css("background-color", "rgb(245, 247, 246)")
    # Given a source again that loads (a drawer row's next product, or the picture back): no longer a failed one.
    page.unroute(re.compile(r"/media/recipes/\d+\.svg(\?.*)?$"))
    picture.evaluate("(img) => { img.src = img.dataset.svcPictureFailed; }")
    expect(picture).not_to_have_attribute("data-svc-picture-failed", re.compile(".*"))
    loaded(page, picture)
