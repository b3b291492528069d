// Unit tests of prerender/static/sdk/session.js `browserId`: the id a reconcile names its browser by, the same in
// all the tabs of the site (they share localStorage), so that the service compares the times of their carts.
import { test, afterEach } from "node:test";
import assert from "node:assert/strict";

import { readdir, readFile } from "node:fs/promises";

import { Session } from "../../prerender/static/sdk/session.js";
import { BROWSER_ENTRIES, SHOPPER_ENTRIES, TAB_ENTRIES } from "../../prerender/static/sdk/storage-entries.js";

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

test("a logout removes the shopper's entries from localStorage and keeps the browser's", () => {
  const localStorage = new SharedStorage();
  globalThis.window = /** @type {any} */ ({ localStorage });
  const session = tabOf();
  const browsers = [...BROWSER_ENTRIES, "shown/12"].map((name) => `_svc/${name}`);
  for (const name of SHOPPER_ENTRIES) localStorage.setItem(`_svc/${name}`, "x");
  for (const key of [...browsers, "host-page/own"]) localStorage.setItem(key, "x"); // the page's own: not the SDK's
  session.reset();
  const left = [...Array(localStorage.length).keys()].map((i) => localStorage.key(i));
  assert.deepEqual(left.sort(), [...new Set([...browsers, "host-page/own"])].sort());
});

test("a logout removes its supplier's shopper entries and the site-wide ones, not another supplier's", () => {
  const localStorage = new SharedStorage();
  globalThis.window = /** @type {any} */ ({ localStorage });
  const session = tabOf();
  session.receiveCredential({ ...USER, supplier: "1" });
  const others = SHOPPER_ENTRIES.map((name) => `_svc/supplier-2/${name}`); // a brand of the same site
  for (const name of SHOPPER_ENTRIES) localStorage.setItem(session.supplierKey(name), "x");
  for (const key of ["_svc/cachedFinalizeMenuUrl", "_svc/planner/guests", ...others]) localStorage.setItem(key, "x");
  assert.equal(session.supplierKey("payment-started"), "_svc/supplier-1/payment-started");
  session.reset();
  const left = [...Array(localStorage.length).keys()].map((i) => localStorage.key(i));
  assert.deepEqual(left.sort(), others.sort());
});

test("a page holds one supplier's credentials: another supplier's element is refused, said once", () => {
  const localStorage = new SharedStorage();
  globalThis.window = /** @type {any} */ ({ localStorage });
  const error = console.error;
  const said = [];
  console.error = (message) => said.push(message);
  try {
    const page = tabOf();
    page.receiveCredential({ ...USER, supplier: "1" }); // the retailer's card
    const publisher = { token: "publisher.t0ken", kind: "authless", id: "p1", expiresAt: "4000000600", supplier: "3" };
    assert.equal(page.receiveCredential(publisher), false); // a publisher's CTA in the same page
    assert.equal(page.receiveCredential({ ...publisher, token: "publisher.s3cond" }), false);
    assert.equal(page.shopperKey, "user:u1");
    assert.equal(page.headers().authorization, "Bearer user.t0ken");
    assert.equal(said.length, 1);
    assert.match(said[0], /supplier 3 are ignored: this page's credentials are supplier 1's/);
    // The page's supplier stays through a logout: the next visitor's element is taken, another supplier's not.
    page.reset();
    assert.equal(page.receiveCredential({ ...VISITOR, token: "authless.n3w", id: "a2", supplier: "1" }), true);
    assert.equal(page.receiveCredential(publisher), false);
  } finally {
    console.error = error;
  }
});

test("the visitor's credential remembered for the merge is its supplier's: another supplier's page keeps its own", () => {
  const localStorage = new SharedStorage();
  globalThis.window = /** @type {any} */ ({ localStorage });
  const retailer = tabOf();
  retailer.receiveCredential({ ...VISITOR, supplier: "1" });
  const brand = tabOf(); // a page of another supplier of the site, in another tab
  brand.receiveCredential({ ...VISITOR, token: "authless.br4nd", id: "b1", supplier: "2" });
  assert.equal(retailer.authlessCredentialOf("a1"), "authless.t0ken");
  assert.equal(brand.authlessCredentialOf("b1"), "authless.br4nd");
  assert.equal(brand.authlessCredentialOf("a1"), null);
});

test("the shopper's entries an SDK of before kept under the site's key become the page's supplier's", () => {
  const localStorage = new SharedStorage();
  globalThis.window = /** @type {any} */ ({ localStorage });
  const kept = JSON.stringify({ total: 12, cart: [{ id: "p1", quantity: 1 }], at: 1, shopper: "user:u1" });
  localStorage.setItem("_svc/payment-started", kept); // a payment started before the deploy
  localStorage.setItem("_svc/preferences", "{}");
  localStorage.setItem("_svc/supplier-1/preferences", '{"diets":[]}'); // its own wins
  localStorage.setItem("_svc/planner/guests", "6"); // the specification's key stays
  const page = tabOf();
  page.receiveCredential({ ...USER, supplier: "1" });
  assert.equal(localStorage.getItem("_svc/supplier-1/payment-started"), kept);
  assert.equal(localStorage.getItem("_svc/payment-started"), null);
  assert.equal(localStorage.getItem("_svc/supplier-1/preferences"), '{"diets":[]}');
  assert.equal(localStorage.getItem("_svc/preferences"), null);
  assert.equal(localStorage.getItem("_svc/planner/guests"), "6");
});

test("before the session has a credential, its supplier's entries are those of the element already in the page", () => {
  globalThis.window = /** @type {any} */ ({ localStorage: new SharedStorage() });
  const page = tabOf();
  const documentBefore = globalThis.document;
  const element = { getAttribute: (/** @type {string} */ name) => (name === "supplier-id" ? "2" : null) };
  globalThis.document = /** @type {any} */ ({
    ...documentBefore,
    querySelectorAll: (/** @type {string} */ selector) => (selector === "svc-shopper[supplier-id]" ? [element] : []),
  });
  try {
    // A fragment inserted with innerHTML: its components connect before the credential element that ends it.
    assert.equal(page.supplierKey("publisher-store"), "_svc/supplier-2/publisher-store");
  } finally {
    globalThis.document = documentBefore;
  }
  assert.equal(page.supplierKey("publisher-store"), "_svc/publisher-store"); // none in the page: the site's key
});

test("every storage entry the SDK and its components use is classed: a shopper's, the browser's or a tab's", async () => {
  const classed = new Set([...SHOPPER_ENTRIES, ...BROWSER_ENTRIES, ...TAB_ENTRIES]);
  const root = new URL("../../prerender/static/", import.meta.url);
  const names = (await readdir(root, { recursive: true })).filter((f) => f.endsWith(".js") && !f.startsWith("dist"));
  const sources = await Promise.all(names.map((name) => readFile(new URL(name, root), "utf8")));
  const constant = (/** @type {string} */ name) =>
    sources.map((source) => source.match(new RegExp(`const ${name} = "([^"]+)"`))?.[1]).find(Boolean);
  // The calls whose argument is not an entry's name: the keys' own definitions, the public `svc.key(name)` and the
  // show tracker's keys passing their caller's name on, a Storage's key(index), the loop of `reset` over
  // SHOPPER_ENTRIES, transfer.js's getter.
  const notAnEntry = new Set([
    "key(/** @type {string} */ name)",
    "supplierKey(name)",
    "session.key(name)",
    "session.supplierKey(name)",
    "storage.key(i)",
    "this.key(name)",
    "this.supplierKey(name)",
    "#key()",
  ]);
  const used = new Set();
  for (const [index, source] of sources.entries()) {
    for (const [call, argument] of source.matchAll(/[\w#]*\.?(?:[\w#]*key|#?supplierKey|#?siteKey)\(([^()]*)\)/g)) {
      if (notAnEntry.has(call)) continue;
      const literal = argument.match(/^\s*["'`]([^"'`$]+)/);
      const name = argument.match(/^\s*([A-Z_]+)\s*$/);
      assert.ok(literal || name, `${names[index]}: ${call} names no entry the test can read: a literal or a CONSTANT`);
      const entry = literal ? literal[1] : constant(name?.[1] ?? "");
      assert.ok(entry, `${names[index]}: ${name?.[1]} is defined nowhere`);
      used.add(entry);
    }
  }
  assert.ok(used.size >= 10, [...used].join(", ")); // the scan finds them
  for (const name of used) assert.ok(classed.has(name), `${name}: class it in sdk/session.js`);
});

test("an element saying profiling=\"false\" makes every request say it, from the first, until a logout", () => {
  globalThis.window = /** @type {any} */ ({ localStorage: new SharedStorage() });
  const user = { token: "user.t0ken", kind: "user", id: "u1", expiresAt: "4000000000" };
  const refused = tabOf();
  refused.receiveCredential({ ...user, profiling: "false" });
  assert.equal(refused.headers().profiling, "false");
  refused.receiveCredential({ ...user, token: "user.t0ken2", profiling: null }); // a later fragment's: still refused
  assert.equal(refused.headers().profiling, "false");
  refused.reset();
  assert.equal(refused.headers().profiling, undefined);
  const accepted = tabOf();
  accepted.receiveCredential({ ...user, profiling: null });
  assert.equal(accepted.headers().profiling, undefined);
});

// --- one page's shopper across a single-page app's logins and logouts ---------------------------------------------

const VISITOR = { token: "authless.t0ken", kind: "authless", id: "a1", expiresAt: "4000000000" };
const USER = { token: "user.t0ken", kind: "user", id: "u1", expiresAt: "4000000000" };

test("a view of before a login, restored by the app's router, does not switch back once the page named its user", () => {
  globalThis.window = /** @type {any} */ ({ localStorage: new SharedStorage() });
  const page = tabOf();
  assert.equal(page.receiveCredential(VISITOR), true);
  assert.equal(page.receiveCredential(USER), true); // the login's fragment
  page.claim("user", "u1"); // user.loadWithExternalId("u1"), the app's login
  assert.equal(page.receiveCredential(VISITOR), false); // Back: the cached shelf with the visitor's element
  assert.equal(page.shopperKey, "user:u1");
  assert.equal(page.receiveCredential(USER), true); // the user's own element again: still the user

  // Named first, then the login's fragment: the same.
  const namedFirst = tabOf();
  namedFirst.receiveCredential(VISITOR);
  namedFirst.claim("user", "u1");
  namedFirst.receiveCredential(USER);
  assert.equal(namedFirst.receiveCredential(VISITOR), false);

  // A page that named its visitor at its start (as the maker's integration does): the login's credential, the
  // server's later word, ends that name; once the app names its user, the visitor's view stays out.
  const named = tabOf();
  named.receiveCredential(VISITOR);
  named.claim("authless", "a1");
  named.receiveCredential(USER);
  named.claim("user", "u1");
  assert.equal(named.receiveCredential(VISITOR), false);
  assert.equal(named.shopperKey, "user:u1");
});

test("a page that logs out without reset() and keeps its visitor's id is the visitor's again, never the user's", () => {
  globalThis.window = /** @type {any} */ ({ localStorage: new SharedStorage() });
  const warn = console.warn;
  const warnings = [];
  console.warn = (text) => warnings.push(text);
  try {
    const page = tabOf();
    page.receiveCredential(VISITOR);
    page.receiveCredential(USER); // a login the page did not name
    assert.equal(page.receiveCredential(VISITOR), true); // the logged-out page's fragments: the same credential
    assert.equal(page.shopperKey, "authless:a1");
    assert.equal(page.receiveCredential(USER), false); // a view of before that logout: the user's stays out
    assert.equal(page.receiveCredential(USER), false);
    assert.equal(page.shopperKey, "authless:a1");
    assert.equal(warnings.filter((text) => String(text).includes("loadWithExternalId(\"u1\")")).length, 1); // said once
  } finally {
    console.warn = warn;
  }
});

test("a naming lets in one refused element of its shopper, within a minute, never instead of that shopper's own", () => {
  globalThis.window = /** @type {any} */ ({ localStorage: new SharedStorage() });
  const warn = console.warn;
  console.warn = () => {};
  const now = Date.now;
  try {
    const page = tabOf();
    page.receiveCredential(USER);
    page.reset();
    page.receiveCredential({ ...VISITOR, token: "authless.n3w", id: "a2" });
    page.claim("user", "u1"); // a login that then fails: no fragment of the user comes
    Date.now = () => now() + 61_000;
    assert.equal(page.receiveCredential(USER), false); // later, Back to a view of before the logout
    assert.equal(page.shopperKey, "authless:a2");
    Date.now = now;
    page.claim("user", "u1");
    assert.equal(page.receiveCredential(USER), true); // the login's fragment within the minute
    page.receiveCredential({ ...USER, token: "user.n3wer" });
    assert.equal(page.receiveCredential(USER), true); // not stale: the page's own, same shopper
    const older = tabOf();
    older.receiveCredential({ ...USER, token: "user.0ld" });
    older.receiveCredential(VISITOR);
    older.receiveCredential(USER);
    older.claim("user", "u1");
    assert.equal(older.receiveCredential({ ...USER, token: "user.0ld" }), false); // stale, and u1 is the page's already
    assert.equal(older.credential?.token ?? "user.t0ken", "user.t0ken");
  } finally {
    console.warn = warn;
    Date.now = now;
  }
});

test("after a logout no view of before it comes back; a new visitor's is taken, the earlier one once the page names it", () => {
  const localStorage = new SharedStorage();
  globalThis.window = /** @type {any} */ ({ localStorage });
  const warn = console.warn;
  console.warn = () => {};
  try {
    const page = tabOf();
    page.receiveCredential(VISITOR);
    page.receiveCredential(USER);
    page.reset();
    assert.equal(page.receiveCredential(USER), false); // views of before the logout
    assert.equal(page.receiveCredential(VISITOR), false);
    assert.equal(page.shopperKey, "");
    assert.equal(localStorage.getItem("_svc/authless-credential"), null);
    // The logged-out page's fragments, for a new visitor (README.md).
    assert.equal(page.receiveCredential({ ...VISITOR, token: "authless.n3w", id: "a2" }), true);
    assert.equal(page.shopperKey, "authless:a2");

    // A retailer that keeps its visitor's id across the logout names it (user.loadWithAuthlessId): the same
    // credential, within its ten minutes, is taken then.
    const keeps = tabOf();
    keeps.receiveCredential(VISITOR);
    keeps.receiveCredential(USER);
    keeps.reset();
    assert.equal(keeps.receiveCredential(VISITOR), false);
    keeps.claim("authless", "a1");
    assert.equal(keeps.shopperKey, "authless:a1");
  } finally {
    console.warn = warn;
  }
});

test("a login again within ten minutes of a logout: the forgotten credential is taken once the page claims the user", () => {
  globalThis.window = /** @type {any} */ ({ localStorage: new SharedStorage() });
  const warn = console.warn;
  console.warn = () => {};
  try {
    const elementFirst = tabOf();
    elementFirst.receiveCredential(USER);
    elementFirst.reset();
    assert.equal(elementFirst.receiveCredential(USER), false); // the same credential, the service's again
    elementFirst.claim("user", "u1"); // user.loadWithExternalId("u1") after the app's login
    assert.equal(elementFirst.shopperKey, "user:u1");

    const claimFirst = tabOf();
    claimFirst.receiveCredential(USER);
    claimFirst.reset();
    claimFirst.claim("user", "u1");
    assert.equal(claimFirst.receiveCredential(USER), true);

    const claimedBefore = tabOf();
    claimedBefore.claim("user", "u1"); // at the page's start, before the logout
    claimedBefore.receiveCredential(USER);
    claimedBefore.reset();
    assert.equal(claimedBefore.receiveCredential(USER), false);
    claimedBefore.claim("user", "u2"); // another user's login: the forgotten one stays refused
    assert.equal(claimedBefore.receiveCredential(USER), false);
    assert.equal(claimedBefore.shopperKey, "");
  } finally {
    console.warn = warn;
  }
});
