// Unit tests of prerender/static/sdk/planner.js `Planner` across the shopper's tabs (sdk/tabs.js): a menu write one
// tab's page made is told to the other tabs of that shopper, with its store, which emit `changedElsewhere$` at once
// when they show, else once when they show again (the last store told); another shopper's change and a page
// without a shopper tell nothing. Two
// Planners on one tests/js/support.mjs `ChannelHub`, each with its FakePage and a small session double.
import { test, describe } from "node:test";
import assert from "node:assert/strict";

import { Planner } from "../../prerender/static/sdk/planner.js";
import { ChannelHub, FakePage, flush, supplierTabs } from "./support.mjs";

/** Session double: the shopper, as Planner reads it (`kind:id`, or "" without a credential), and the browser's
 * localStorage (one Map for all the pages of a test). */
class FakeSession {
  constructor(shopperKey = "user:u1", stored = new Map(), supplier = "1") {
    this.shopperKey = shopperKey;
    this.supplier = supplier;
    this.local = {
      get: (/** @type {string} */ key) => stored.get(key) ?? null,
      set: (/** @type {string} */ key, /** @type {string} */ value) => void stored.set(key, value),
      remove: (/** @type {string} */ key) => void stored.delete(key),
    };
  }

  key(/** @type {string} */ name) {
    return `_svc/${name}`;
  }

  supplierKey(/** @type {string} */ name) {
    return `_svc/supplier-${this.supplier}/${name}`;
  }
}

/** Two tabs' Planners on one channel; each counts what its `changedElsewhere$` emitted. */
function twoTabs() {
  const hub = new ChannelHub();
  const tab = () => {
    const page = new FakePage();
    const session = new FakeSession();
    const tabs = supplierTabs({ name: "_svc/tabs", open: hub.open, page, lifecycle: null });
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

describe("Planner and the back/forward cache", () => {
  /**
   * Pages of one browser sharing its localStorage; each page's Planner counts what it heard. `page()` starts a
   * page now, which leaves for the back/forward cache with `keep()` and comes back with `restore()`.
   */
  function browser() {
    const stored = new Map();
    const hub = new ChannelHub();
    const page = (shopperKey = "user:u1", supplier = "1") => {
      /** @type {Record<string, (event: { persisted?: boolean }) => void>} */
      const lifecycle = {};
      const session = new FakeSession(shopperKey, stored, supplier);
      const tabs = supplierTabs({
        name: "_svc/tabs", open: hub.open, page: null,
        lifecycle: { addEventListener: (type, listener) => void (lifecycle[type] = listener) },
      });
      const planner = new Planner({ session: /** @type {any} */ (session), tabs });
      /** @type {(string | null)[]} */
      const heard = [];
      planner.changedElsewhere$.subscribe(({ store }) => heard.push(store));
      return {
        planner, heard, session,
        keep: () => lifecycle.pagehide({ persisted: true }),
        restore: () => lifecycle.pageshow({ persisted: true }),
      };
    };
    return { page };
  }

  test("a page restored after the shopper changed the menu on the page that replaced it follows that change", async () => {
    const { page } = browser();
    const menu = page();
    menu.keep(); // Back/forward: the shopper went on to another page in the same tab
    const next = page();
    next.planner.menuChanged("1001");
    await flush();
    assert.deepEqual(menu.heard, [], "a page in the cache hears nothing");
    menu.restore();
    assert.deepEqual(menu.heard, ["1001"], "its store, for the page to draw its menu again there");
    menu.keep();
    menu.restore();
    assert.deepEqual(menu.heard, ["1001"], "followed once");
  });

  test("a restored page draws nothing for its own change, an older one or another shopper's", async () => {
    const { page } = browser();
    const first = page();
    first.planner.menuChanged("1001"); // before the next page started: its menu has it
    const menu = page();
    menu.keep();
    menu.restore();
    assert.deepEqual(menu.heard, [], "a change older than the page");
    menu.planner.menuChanged("1001");
    menu.keep();
    menu.restore();
    assert.deepEqual(menu.heard, [], "its own change");
    menu.keep();
    page("user:u2").planner.menuChanged("1001");
    menu.restore();
    assert.deepEqual(menu.heard, [], "another shopper's menu");
    menu.keep();
    page("user:u1", "2").planner.menuChanged("1001"); // the same user id at another supplier's page of the site
    menu.restore();
    assert.deepEqual(menu.heard, [], "another supplier's shopper's menu");
  });

  test("a change already followed from another tab is not followed again on restore", async () => {
    const { page } = browser();
    const menu = page();
    const other = page();
    other.planner.menuChanged("1001");
    await flush();
    assert.deepEqual(menu.heard, ["1001"], "heard from the other tab");
    menu.keep();
    menu.restore();
    assert.deepEqual(menu.heard, ["1001"], "nothing more on restore");
  });
});

describe("Planner's finalize resume on a site of several suppliers", () => {
  test("a resume another supplier's page cached is neither followed nor dropped", () => {
    const stored = new Map();
    const retailer = new Planner({ session: /** @type {any} */ (new FakeSession("user:u1", stored, "1")) });
    retailer.require("store", "https://site.test/brand-one/planner", null);
    const brand = new Planner({ session: /** @type {any} */ (new FakeSession("user:u1", stored, "2")) });
    assert.equal(brand.cachedFinalize(), null);
    assert.equal(brand.resumeFinalize("store", "1001"), false);
    const again = new Planner({ session: /** @type {any} */ (new FakeSession("user:u1", stored, "1")) });
    assert.deepEqual(again.cachedFinalize(), { url: "https://site.test/brand-one/planner", needs: "store", store: null });
    assert.equal(stored.get("_svc/cachedFinalizeMenuUrl"), "https://site.test/brand-one/planner"); // the specification's key
  });

  test("each supplier resumes at its own page, whichever wrote the site's key last; another's page clears only its own", () => {
    const stored = new Map();
    const pageOf = (/** @type {string} */ supplier) => new Planner({ session: /** @type {any} */ (new FakeSession("user:u1", stored, supplier)) });
    pageOf("1").require("login", "https://site.test/brand-one/planner");
    pageOf("2").require("store", "https://site.test/brand-two/planner", null);
    assert.equal(pageOf("1").cachedFinalize()?.url, "https://site.test/brand-one/planner");
    assert.equal(pageOf("2").cachedFinalize()?.url, "https://site.test/brand-two/planner");
    pageOf("1").clearFinalizeUrl(); // brand one's current-menu page shows: the site's key is brand two's, kept
    assert.equal(stored.get("_svc/cachedFinalizeMenuUrl"), "https://site.test/brand-two/planner");
    assert.equal(pageOf("1").cachedFinalize(), null);
    pageOf("2").clearFinalizeUrl();
    assert.equal(stored.get("_svc/cachedFinalizeMenuUrl"), undefined);
  });
});
