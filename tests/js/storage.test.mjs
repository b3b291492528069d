// Unit tests of prerender/static/sdk/storage.js: `isRecent`, the age of a time stamp the SDK kept in storage (a
// payment started, a transfer pending, the planner's resume URL), on a device whose clock may be set back; and
// `safeStorage`, the storage that never throws, with a working, a full and a blocked storage.
import { describe, test, mock, afterEach } from "node:test";
import assert from "node:assert/strict";

import { isRecent, safeStorage } from "../../prerender/static/sdk/storage.js";

const NOW = Date.UTC(2026, 10, 30, 12);
const HOUR = 3_600_000;

afterEach(() => mock.restoreAll());

test("a stamp younger than the age is recent, one as old or older is not", () => {
  mock.method(Date, "now", () => NOW);
  assert.equal(isRecent(NOW - HOUR + 1, HOUR), true);
  assert.equal(isRecent(NOW - HOUR, HOUR), false);
  assert.equal(isRecent(NOW, HOUR), true);
});

test("a stamp well after now (kept while the clock ran ahead, set back since) is not recent", () => {
  mock.method(Date, "now", () => NOW);
  assert.equal(isRecent(NOW + 6 * 60_000, HOUR), false);
  assert.equal(isRecent(NOW + 3 * 24 * HOUR, HOUR), false);
});

test("a stamp a few minutes after now (a clock stepped back a little) still counts", () => {
  mock.method(Date, "now", () => NOW);
  assert.equal(isRecent(NOW + 1, HOUR), true);
  assert.equal(isRecent(NOW + 4 * 60_000, HOUR), true);
});

test("a stamp that is no number is not recent", () => {
  mock.method(Date, "now", () => NOW);
  for (const at of [undefined, null, "soon", {}, Number.NaN]) assert.equal(isRecent(at, HOUR), false);
});

// `safeStorage`: the storage the SDK keeps its entries in, whatever the browser allows.

/** A Web Storage over a Map; `refuse` makes its writes throw as a full storage does. */
function fakeStorage({ refuse = false } = {}) {
  const items = new Map();
  return {
    items,
    get length() {
      return items.size;
    },
    key: (/** @type {number} */ i) => [...items.keys()][i] ?? null,
    getItem: (/** @type {string} */ key) => items.get(key) ?? null,
    setItem(/** @type {string} */ key, /** @type {string} */ value) {
      if (refuse) throw new DOMException("exceeded the quota", "QuotaExceededError");
      items.set(key, String(value));
    },
    removeItem: (/** @type {string} */ key) => void items.delete(key),
  };
}

describe("safeStorage", () => {
  afterEach(() => delete globalThis.window);

  test("a working storage keeps the value, says so, and reads what another page wrote since", () => {
    const storage = fakeStorage();
    globalThis.window = /** @type {any} */ ({ sessionStorage: storage });
    const store = safeStorage("sessionStorage");
    assert.equal(store.set("k", "1"), true);
    assert.equal(storage.items.get("k"), "1");
    storage.items.set("k", "2"); // another tab of the same storage
    assert.equal(store.get("k"), "2");
    storage.items.delete("k");
    assert.equal(store.get("k"), null, "no older copy of this page's comes back");
  });

  test("a full storage: the page reads back its newer value, not the older one the storage still holds", () => {
    const storage = fakeStorage({ refuse: true });
    storage.items.set("k", "old");
    globalThis.window = /** @type {any} */ ({ localStorage: storage });
    const store = safeStorage("localStorage");
    assert.equal(store.set("k", "new"), false, "not kept where a reload finds it");
    assert.equal(store.get("k"), "new");
    assert.deepEqual(store.keys(), ["k"]);
    store.remove("k");
    assert.equal(store.get("k"), null);
    assert.deepEqual(store.keys(), []);
  });

  test("a storage that throws when touched (blocked site data): memory for the life of the page", () => {
    globalThis.window = /** @type {any} */ ({});
    Object.defineProperty(globalThis.window, "sessionStorage", {
      get() {
        throw new DOMException("Access is denied for this document.", "SecurityError");
      },
    });
    const store = safeStorage("sessionStorage");
    assert.equal(store.get("k"), null);
    assert.equal(store.set("k", "1"), false);
    assert.equal(store.get("k"), "1");
    assert.deepEqual(store.keys(), ["k"]);
    store.remove("k");
    assert.equal(store.get("k"), null);
  });
});

test("safeStorage: a value another tab wrote after this page's refused write is newer, and read", () => {
  const storage = fakeStorage({ refuse: true });
  storage.items.set("k", "old");
  globalThis.window = /** @type {any} */ ({ localStorage: storage });
  const store = safeStorage("localStorage");
  assert.equal(store.set("k", "mine"), false);
  assert.equal(store.get("k"), "mine");
  storage.items.set("k", "theirs"); // another tab, once the storage had room
  assert.equal(store.get("k"), "theirs");
  storage.items.set("k", "later");
  assert.equal(store.get("k"), "later", "the storage is read again from then on");
  delete globalThis.window;
});
