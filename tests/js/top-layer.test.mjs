// Unit tests of prerender/static/sdk/top-layer.js `TopLayer`, in Node: elements with the Popover API's members,
// and the browser's top layer as a list (the last shown is on top).
import { test, describe, beforeEach } from "node:test";
import assert from "node:assert/strict";

import { TopLayer } from "../../prerender/static/sdk/top-layer.js";

/** @type {PopoverElement[]} the top layer, bottom first */
let layer;
beforeEach(() => {
  layer = [];
});

class PopoverElement {
  isConnected = true;
  attributes = new Map();
  constructor(name) {
    this.name = name;
  }
  getAttribute(name) {
    return this.attributes.get(name) ?? null;
  }
  setAttribute(name, value) {
    this.attributes.set(name, value);
  }
  removeAttribute(name) {
    this.attributes.delete(name);
  }
  matches(selector) {
    assert.equal(selector, ":popover-open");
    return layer.includes(this);
  }
  showPopover() {
    this.shows = (this.shows ?? 0) + 1;
    if (this.getAttribute("popover") === null) throw new DOMException("not a popover", "NotSupportedError");
    if (!this.isConnected || layer.includes(this)) throw new DOMException("invalid state", "InvalidStateError");
    layer.push(this);
  }
  hidePopover() {
    if (!this.isConnected || !layer.includes(this)) throw new DOMException("invalid state", "InvalidStateError");
    layer.splice(layer.indexOf(this), 1);
  }
}

const names = () => layer.map((element) => element.name);

describe("TopLayer", () => {
  test("an overlay raised goes on top as a manual popover, and leaves when lowered", () => {
    const topLayer = new TopLayer();
    const drawer = new PopoverElement("drawer");
    const onboarding = new PopoverElement("onboarding");
    topLayer.raise(drawer);
    topLayer.raise(onboarding);
    assert.deepEqual(names(), ["drawer", "onboarding"]);
    assert.equal(drawer.getAttribute("popover"), "manual");
    topLayer.lower(drawer);
    assert.deepEqual(names(), ["onboarding"]);
    topLayer.lower(drawer); // not shown: nothing
    topLayer.raise(onboarding); // shown already: stays where it is
    assert.deepEqual(names(), ["onboarding"]);
  });

  test("the overlay kept above stays above those raised after it", () => {
    const topLayer = new TopLayer();
    const toaster = new PopoverElement("toaster");
    const drawer = new PopoverElement("drawer");
    topLayer.keepAbove(toaster);
    topLayer.raise(drawer);
    assert.deepEqual(names(), ["drawer", "toaster"]);
    topLayer.lower(drawer);
    topLayer.raise(drawer);
    assert.deepEqual(names(), ["drawer", "toaster"]);
  });

  test("a bar lifted goes under the overlay kept above, covers nothing, and is an ordinary element once dropped", () => {
    const topLayer = new TopLayer();
    const toaster = new PopoverElement("toaster");
    const twin = new PopoverElement("twin");
    const drawer = new PopoverElement("drawer");
    topLayer.keepAbove(toaster);
    topLayer.lift(twin);
    assert.deepEqual(names(), ["twin", "toaster"]);
    assert.equal(topLayer.covering$.value, false);
    topLayer.raise(drawer); // the drawer opened from the twin's button: above it
    assert.deepEqual(names(), ["twin", "drawer", "toaster"]);
    const toasterShows = toaster.shows;
    topLayer.lift(twin); // lifted already (it is asked again at each scroll): nothing moves, nothing shown again
    assert.deepEqual(names(), ["twin", "drawer", "toaster"]);
    assert.equal(toaster.shows, toasterShows);
    topLayer.lower(drawer);
    topLayer.drop(twin);
    assert.deepEqual(names(), ["toaster"]);
    assert.equal(twin.getAttribute("popover"), null); // a popover not shown would never be displayed
    topLayer.drop(twin); // not lifted: nothing to do
    assert.equal(topLayer.covering$.value, false);
  });

  test("a disconnected element, or a browser without popovers, is left to the sheets' stacking", () => {
    const topLayer = new TopLayer();
    const removed = new PopoverElement("removed");
    removed.isConnected = false;
    topLayer.raise(removed);
    topLayer.lower(removed);
    assert.deepEqual(names(), []);
    const old = {
      isConnected: true,
      getAttribute: () => null,
      setAttribute: () => assert.fail("no popover attribute"),
      removeAttribute: () => {},
    };
    topLayer.raise(/** @type {any} */ (old));
    topLayer.lower(/** @type {any} */ (old));
    topLayer.keepAbove(/** @type {any} */ (old));
    topLayer.lift(/** @type {any} */ (old));
    topLayer.drop(/** @type {any} */ (old));
  });

  test("covering$ says whether a modal overlay covers the page: not the toaster, not one removed unclosed", () => {
    const topLayer = new TopLayer();
    const seen = [];
    topLayer.covering$.subscribe((covering) => seen.push(covering));
    const toaster = new PopoverElement("toaster");
    const drawer = new PopoverElement("drawer");
    const onboarding = new PopoverElement("onboarding");
    topLayer.keepAbove(toaster);
    assert.equal(topLayer.covering$.value, false);
    topLayer.raise(drawer);
    topLayer.raise(onboarding);
    topLayer.lower(onboarding);
    assert.equal(topLayer.covering$.value, true);
    topLayer.lower(drawer);
    assert.equal(topLayer.covering$.value, false);
    topLayer.raise(drawer);
    drawer.isConnected = false; // a single-page app replaced the body with the drawer open
    topLayer.raise(onboarding);
    topLayer.lower(onboarding);
    assert.equal(topLayer.covering$.value, false);
    assert.deepEqual(seen, [false, true, false, true, false]);
  });

  test("a popover the browser refuses to show is left to the sheets' stacking", () => {
    const topLayer = new TopLayer();
    const refused = new PopoverElement("refused");
    refused.showPopover = () => {
      throw new DOMException("refused", "InvalidStateError");
    };
    assert.doesNotThrow(() => topLayer.raise(refused));
    assert.deepEqual(names(), []);
    // Without the attribute it had not: a popover not shown would never be displayed.
    assert.equal(refused.getAttribute("popover"), null);
  });
});
