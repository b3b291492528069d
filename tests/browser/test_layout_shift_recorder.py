"""The layout-shift recorder of the browser tests and of `python -m bench.shifts` (bench/shifts.py), on a real
shift in Chromium: a failure it reports says what moved, from where to where and when, also for a box Chromium
names no node for."""

from __future__ import annotations

from playwright.sync_api import Page

from bench.shifts import UNNAMED

from .helpers import layout_shifts, record_layout_shifts

# Two frames painted, then 60 px of room above: a box, a line of text and an empty item's `::before` badge move down.
PAGE = """<!doctype html><html><head><style>
  body { margin: 0; font: 20px/30px sans-serif; }
  ol { margin: 0; padding: 0; list-style: none; }
  li { position: relative; }
  li::before { content: "1"; position: absolute; left: 300px; top: 0; width: 38px; height: 38px; background: #000; }
</style></head><body>
<div id="room"></div>
<div class="box one" style="width:200px;height:100px;background:#345"></div>
<p class="note" style="margin:0">A line of text</p>
<ol><li></li></ol>
<script>
  requestAnimationFrame(() => requestAnimationFrame(() => {
    document.getElementById("room").style.height = "60px";
  }));
</script></body></html>"""


def test_the_recorder_says_what_moved_where_and_when(page: Page):
    page.set_viewport_size({"width": 800, "height": 600})
    record_layout_shifts(page)
    page.goto("about:blank")
    page.set_content(PAGE)
    page.wait_for_function("() => window.__shifts.length > 0")
    [shift] = layout_shifts(page)
    moved = dict(zip(shift["moved"], shift["rects"], strict=True))
    assert moved == {
        "div.box.one": "0,0,200,100 -> 0,60,200,100",
        "p.note": "0,100,800,30 -> 0,160,800,30",  # text is named by its block
        UNNAMED: "300,130,38,38 -> 300,190,38,38",  # the `::before` badge
    }
    assert shift["value"] > 0 and shift["at"] > 0 and shift["scrollY"] == 0
