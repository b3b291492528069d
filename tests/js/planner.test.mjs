// Unit tests of prerender/static/sdk/planner.js `Planner` across the shopper's tabs (sdk/tabs.js): a menu write one
// tab's page made is told to the other tabs of that shopper, with its store, which emit `changedElsewhere$` at once
// when they show, else once when they show again (the last store told); another shopper's change and a page
// without a shopper tell nothing. Two
// Planners on one tests/js/support.mjs `ChannelHub`, each with its FakePage and a small session double.
import { test, describe } from "node:test";
import assert from "node:assert/strict";

import { Planner } from "../../prerender/static/sdk/planner.js";
import { Tabs } from "../../prerender/static/sdk/tabs.js";
import { ChannelHub, FakePage, flush } from "./support.mjs";

/** Session double: the shopper, as Planner reads it (`kind:id`, or "" without a credential). */
class FakeSession {
  constructor(shopperKey = "user:u1") {
    this.shopperKey = shopperKey;
  }
}

/** Two tabs' Planners on one channel; each counts what its `changedElsewhere$` emitted. */
function twoTabs() {
  const hub = new ChannelHub();
  const tab = () => {
    const page = new FakePage();
    const session = new FakeSession();
    const tabs = new Tabs({ name: "_svc/tabs", open: hub.open, page, lifecycle: null });
    const planner = new Planner({ session: /** @type {any} */ (session), tabs });
    const heard = { count: 0, stores: [] };
    planner.changedElsewhere$.subscribe(({ store }) => {
      heard.count += 1;
      heard.stores.push(store);
    });
    return { page, session, planner, heard };
  };
  return { a: tab(), b: tab() };
}

describe("Planner and the shopper's other tabs", () => {
  test("a menu change in one tab is heard in the other with its store, not in its own", async () => {
    const { a, b } = twoTabs();
    a.planner.menuChanged("1001");
    a.planner.menuChanged(null);
    await flush();
    assert.deepEqual(b.heard.stores, ["1001", null]);
    assert.equal(a.heard.count, 0);
  });

  test("a hidden tab hears once it shows again, once however many changes it missed", async () => {
    const { a, b } = twoTabs();
    b.page.hide();
    a.planner.menuChanged("1001");
    a.planner.menuChanged("1002");
    await flush();
    assert.equal(b.heard.count, 0);
    b.page.show();
    assert.deepEqual(b.heard.stores, ["1002"], "the last change told");
    b.page.hide();
    b.page.show();
    assert.equal(b.heard.count, 1, "nothing more was missed");
  });

  test("another shopper's menu is not this tab's; a page without a shopper tells nothing", async () => {
    const { a, b } = twoTabs();
    b.session.shopperKey = "user:u2";
    a.planner.menuChanged("1001");
    await flush();
    assert.equal(b.heard.count, 0);
    b.session.shopperKey = "user:u1";
    a.session.shopperKey = "";
    a.planner.menuChanged("1001");
    await flush();
    assert.equal(b.heard.count, 0);
  });
});
