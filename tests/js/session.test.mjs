// Unit tests of prerender/static/sdk/session.js `browserId`: the id a reconcile names its browser by, the same in
// all the tabs of the site (they share localStorage), so that the service compares the times of their carts.
import { test, afterEach } from "node:test";
import assert from "node:assert/strict";

import { Session } from "../../prerender/static/sdk/session.js";

globalThis.document ??= /** @type {any} */ ({ documentElement: { lang: "fr" }, readyState: "complete" });

/** A localStorage as the browser gives the tabs of one site: one store for all of them. */
class SharedStorage {
  #items = new Map();
  get length() {
    return this.#items.size;
  }
  key(index) {
    return [...this.#items.keys()][index] ?? null;
  }
  getItem(key) {
    return this.#items.get(key) ?? null;
  }
  setItem(key, value) {
    this.#items.set(key, String(value));
  }
  removeItem(key) {
    this.#items.delete(key);
  }
}

const tabOf = () => new Session({ prefix: "svc", apiBase: "https://prerender.test" });

afterEach(() => {
  delete globalThis.window;
});

test("the tabs of a browser name it by one id, kept in localStorage, that the reconcile route takes", () => {
  const localStorage = new SharedStorage();
  globalThis.window = /** @type {any} */ ({ localStorage });
  const first = tabOf().browserId;
  assert.match(first, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(localStorage.getItem("_svc/browser-id"), first);
  assert.equal(tabOf().browserId, first, "another tab of the site: the same id");
  assert.equal(tabOf().browserId, first);
});

test("another browser (another localStorage) has another id", () => {
  globalThis.window = /** @type {any} */ ({ localStorage: new SharedStorage() });
  const one = tabOf().browserId;
  globalThis.window = /** @type {any} */ ({ localStorage: new SharedStorage() });
  assert.notEqual(tabOf().browserId, one);
});

test("a kept id the route would refuse (altered by a page script) is replaced", () => {
  const localStorage = new SharedStorage();
  globalThis.window = /** @type {any} */ ({ localStorage });
  for (const kept of ["", "has space", "x".repeat(65), "-leading-dash"]) {
    localStorage.setItem("_svc/browser-id", kept);
    const id = tabOf().browserId;
    assert.notEqual(id, kept);
    assert.equal(localStorage.getItem("_svc/browser-id"), id);
  }
});

test("without usable localStorage a page keeps one id for its life", () => {
  globalThis.window = /** @type {any} */ ({
    get localStorage() {
      throw new Error("SecurityError");
    },
  });
  const session = tabOf();
  assert.equal(session.browserId, session.browserId);
});
