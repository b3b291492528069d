"""A batch of analytics events whose answer was lost (the service stored it, then answered 504) is sent again
by the SDK with the same event ids, so coreapi stores each event once (prerender/static/sdk/analytics.js,
docs/browser-api.md). The 504 is injected with Playwright's routing, a fault on the wire; the events reach
the real stack. The page's clock stands still: the SDK's own flush, 2 s after an event, never runs, so that
the test's two flushes are the only batches sent, however slow the machine."""

from __future__ import annotations

import datetime as dt
import uuid

from playwright.sync_api import BrowserContext, Page, Route

from .helpers import record_events, stored_events, visit


def test_events_answered_504_after_they_were_stored_are_stored_once(
    page: Page, context: BrowserContext, shop_url: str, coreapi_url: str
):
    sent: list[list[str | None]] = []

    def stored_then_504(route: Route) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        sent.append([event.get("id") for event in route.request.post_data_json["events"]])
        answer = route.fetch()  # the batch reaches prerender and coreapi...
        if len(sent) == 1:  # ...but the first answer is lost on the way back
            route.fulfill(status=504, content_type="application/problem+json", body='{"status": 504}')
        else:
            route.fulfill(response=answer)

    start = dt.datetime(2026, 1, 5, 10, 0, 0)
    page.clock.install(time=start)
    page.clock.pause_at(start + dt.timedelta(seconds=1))
    visit(context, page, shop_url)
    page.route("**/v1/events", stored_then_504)
    record_events(page)
    path = f"/retry-{uuid.uuid4().hex}"  # this test's events: two pageviews of a path of its own
    page.evaluate("path => { window.svc.analytics.pageview(path); window.svc.analytics.pageview(path); }", path)
    tracked = page.evaluate("path => window.__events.filter((e) => e.path === path)", path)
    assert len({event["id"] for event in tracked}) == 2  # one id per event, a UUID
    assert all(uuid.UUID(event["id"]) for event in tracked)

    for _ in range(2):  # the first attempt is answered 504 and kept in the queue; the second gets through
        with page.expect_response(lambda r: r.url.endswith("/v1/events") and r.request.method == "POST"):
            page.evaluate("window.svc.analytics.flush()")

    ids = sorted(event["id"] for event in tracked)
    assert len(sent) == 2 and all(set(ids) <= set(batch) for batch in sent)  # the same ids, sent again
    stored = stored_events(coreapi_url, context, shop_url)
    assert sorted(event["id"] for event in stored if event["path"] == path) == ids  # each once
