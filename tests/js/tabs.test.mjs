// Unit tests of prerender/static/sdk/tabs.js `Tabs` (the shopper's other tabs of the site) and of what
// sdk/session.js `Session` does with them: a credential a page gives is taken by the shopper's other tabs (another
// shopper's always, the same shopper's when it lasts as long), a user's logout is followed by the tabs acting for
// that user, and nothing is told on. The tabs talk through Node's own BroadcastChannel in the first tests (the
// browser's API, as the SDK uses it), and through tests/js/support.mjs `ChannelHub` where a test needs to close
// and reopen a page's channel.
import { test, describe, afterEach } from "node:test";
import assert from "node:assert/strict";

import { Tabs, logoutChannel } from "../../prerender/static/sdk/tabs.js";
import { ChannelHub, FakePage, flush } from "./support.mjs";

// sdk/session.js reads the page's language from the document when it is built.
globalThis.document ??= /** @type {any} */ ({ documentElement: { lang: "fr" }, readyState: "complete" });
const { Session } = await import("../../prerender/static/sdk/session.js");

/** @type {Tabs[]} every Tabs a test opened, closed after it (an open BroadcastChannel keeps Node running) */
const opened = [];
afterEach(() => {
  for (const tabs of opened.splice(0)) tabs.close();
});

/**
 * A Tabs on the channel `name`, without a page unless one is given, talking with supplier "1"'s tabs unless told
 * (`supplier: ""`: as the SDK's before its page gave a credential).
 * @param {object} [options]
 */
function tabsOf({ supplier = "1", ...options } = {}) {
  const tabs = new Tabs({ name: "_svc/tabs", page: null, lifecycle: null, ...options });
  tabs.supplier = supplier;
  opened.push(tabs);
  return tabs;
}

/** What a `<svc-shopper>` element carries. */
const USER = { token: "user.t0ken", kind: "user", id: "u1", expiresAt: 4_000_000_000, supplier: "1" };
const VISITOR = { token: "authless.t0ken", kind: "authless", id: "a1", expiresAt: 4_000_000_000, supplier: "1" };

/** A message `handler` gets, once it arrives. @param {Tabs} tabs @param {string} type */
const nextMessage = (tabs, type) => new Promise((resolve) => {
  const stop = tabs.on(/** @type {any} */ (type), (message) => {
    stop();
    resolve(message);
  });
});

describe("Tabs", () => {
  test("a message reaches the other tabs of the channel, not the one that sent it", async () => {
    const [a, b, c] = [tabsOf(), tabsOf(), tabsOf()];
    const toA = [];
    a.on("basket", (message) => toA.push(message));
    const atB = nextMessage(b, "basket");
    const atC = nextMessage(c, "basket");
    a.post({ type: "basket", shopper: "user:u1" });
    assert.deepEqual(await atB, { type: "basket", shopper: "user:u1" });
    assert.deepEqual(await atC, { type: "basket", shopper: "user:u1" });
    await flush();
    assert.deepEqual(toA, []);
  });

  test("another prefix's channel, an unknown type and junk reach no handler", async () => {
    const a = tabsOf();
    const other = tabsOf({ name: "_other/tabs" });
    const b = tabsOf();
    const got = [];
    b.on("basket", (message) => got.push(message));
    other.post({ type: "basket", shopper: "user:u1" });
    a.post(/** @type {any} */ ({ type: "surprise" }));
    a.post(/** @type {any} */ ("basket"));
    const sentinel = nextMessage(b, "reset");
    a.post({ type: "reset", shopper: "user:u1" });
    await sentinel;
    assert.deepEqual(got, []);
  });

  test("a handler that throws is logged; the others still get the message", async (t) => {
    const logged = t.mock.method(console, "error", () => {});
    const [a, b] = [tabsOf(), tabsOf()];
    b.on("basket", () => {
      throw new Error("boom");
    });
    const received = nextMessage(b, "basket");
    a.post({ type: "basket", shopper: "user:u1" });
    await received;
    assert.equal(logged.mock.callCount(), 1);
  });

  test("a page that shows again says how long it was hidden", () => {
    const page = new FakePage();
    const clock = { now: 1000 };
    const tabs = tabsOf({ page, now: () => clock.now });
    const returns = [];
    tabs.onReturn((awayMs) => returns.push(awayMs));
    assert.equal(tabs.visible, true);
    page.hide();
    assert.equal(tabs.visible, false);
    clock.now += 90_000;
    page.show();
    assert.deepEqual(returns, [90_000]);
  });

  test("a page kept in the back/forward cache closes its channel, and its return reopens it", async () => {
    const hub = new ChannelHub();
    /** @type {Record<string, (event: { persisted?: boolean }) => void>} */
    const lifecycle = {};
    const kept = tabsOf({ open: hub.open, lifecycle: { addEventListener: (type, listener) => void (lifecycle[type] = listener) } });
    const other = tabsOf({ open: hub.open });
    const got = [];
    const returns = [];
    kept.on("basket", (message) => got.push(message));
    kept.onReturn((awayMs) => returns.push(awayMs));
    lifecycle.pagehide({ persisted: false }); // a page unloaded for good keeps it to the end
    other.post({ type: "basket", shopper: "user:u1" });
    await flush();
    assert.equal(got.length, 1);
    lifecycle.pagehide({ persisted: true });
    other.post({ type: "basket", shopper: "user:u1" });
    kept.post({ type: "basket", shopper: "user:u1" }); // a closed channel: nothing sent, nothing thrown
    await flush();
    assert.equal(got.length, 1);
    lifecycle.pageshow({ persisted: true });
    assert.deepEqual(returns, [Number.POSITIVE_INFINITY]);
    other.post({ type: "basket", shopper: "user:u1" });
    await flush();
    assert.equal(got.length, 2);
  });

  test("without BroadcastChannel, or when opening it throws, a tab follows nothing and posts nothing", async () => {
    const hub = new ChannelHub();
    const listener = tabsOf({ open: hub.open });
    const heard = [];
    listener.on("basket", (message) => heard.push(message));
    const none = tabsOf({ open: null });
    const refused = tabsOf({ open: () => {
      throw new Error("SecurityError");
    } });
    for (const tabs of [none, refused]) {
      tabs.on("basket", (message) => heard.push(message));
      tabs.post({ type: "basket", shopper: "user:u1" }); // no throw
    }
    tabsOf({ open: hub.open }).post({ type: "basket", shopper: "user:u2" });
    await flush();
    assert.deepEqual(heard, [{ type: "basket", shopper: "user:u2" }]); // the listener's only
  });
});

describe("Session and the shopper's other tabs", () => {
  /** A visitor's credential its page gave an hour before the others: the page is supplier 1's. */
  const EARLIER = { ...VISITOR, token: "authless.e4rly", id: "a0", expiresAt: VISITOR.expiresAt - 3600 };
  /**
   * A session of a tab on the channel. Its supplier is the one of the credentials its page gives: by default its page
   * gave EARLIER (`fresh`: none yet).
   */
  const sessionOf = ({ fresh = false } = {}) => {
    const tabs = tabsOf({ supplier: "" });
    const session = new Session({ prefix: "svc", apiBase: "https://prerender.test", tabs });
    if (!fresh) session.receiveCredential(EARLIER);
    return session;
  };
  /** Resolves once `session`'s identity is `key` ("" for none). */
  const identityBecomes = (session, key) => new Promise((resolve) => {
    const subscription = session.identity$.subscribe((identity) => {
      if ((identity ? `${identity.kind}:${identity.id}` : "") === key) {
        queueMicrotask(() => subscription.unsubscribe());
        resolve(identity);
      }
    });
  });

  test("a login in one tab: the other, a logged-out visitor's, acts for the user from then on", async () => {
    const [loggedIn, stale] = [sessionOf(), sessionOf()];
    stale.receiveCredential(VISITOR);
    loggedIn.receiveCredential(VISITOR);
    const adopted = identityBecomes(stale, "user:u1");
    loggedIn.receiveCredential(USER);
    await adopted;
    assert.equal(stale.headers().authorization, "Bearer user.t0ken");
  });

  test("a tab whose page gave no credential yet takes none: it cannot tell which supplier's page it is", async () => {
    const [a, b] = [sessionOf(), sessionOf({ fresh: true })];
    a.receiveCredential(VISITOR);
    await flush();
    assert.equal(b.credential, null);
    b.receiveCredential({ ...VISITOR, token: "authless.0ther", id: "a2", expiresAt: VISITOR.expiresAt - 600 });
    const adopted = identityBecomes(b, "user:u1");
    a.receiveCredential(USER); // a login in a: b, now known as supplier 1's, follows
    await adopted;
  });

  test("another supplier's page of the same site: its credentials, logouts and writes are not followed", async () => {
    const [retailer, publisher] = [sessionOf(), sessionOf({ fresh: true })];
    const basketTold = [];
    retailer.receiveCredential(USER);
    tabsOf().on("basket", (message) => basketTold.push(message));
    // A recipe blog of the same site, under a publisher's token: a credential issued later, of supplier 3.
    publisher.receiveCredential({ token: "publisher.t0ken", kind: "user", id: "p1", expiresAt: USER.expiresAt + 600, supplier: "3" });
    await flush();
    assert.equal(retailer.shopperKey, "user:u1");
    assert.equal(retailer.headers().authorization, "Bearer user.t0ken");
    assert.equal(publisher.shopperKey, "user:p1");
    // The same user id at both suppliers (a group's brands share their logins): a logout at one leaves the other.
    const sameUser = sessionOf({ fresh: true });
    sameUser.receiveCredential({ ...USER, token: "brand.t0ken", supplier: "2" });
    sameUser.reset();
    tabsOf({ supplier: "2" }).post({ type: "basket", shopper: "user:u1" });
    await flush();
    assert.equal(retailer.headers().authorization, "Bearer user.t0ken");
    assert.deepEqual(basketTold, []);
  });

  test("a logout told by an SDK of before (no supplier) is heard: the tabs acting for that user forget it", async () => {
    const [a, b] = [sessionOf(), sessionOf()];
    a.receiveCredential(USER);
    await flush();
    assert.equal(b.shopperKey, "user:u1");
    const forgotten = identityBecomes(b, "");
    const old = new BroadcastChannel("_svc/tabs"); // an old SDK's tab posts its messages as they are
    old.postMessage({ type: "reset", shopper: "user:u1" });
    old.close();
    await forgotten;
  });

  test("an element of before supplier-id: its tab tells and hears nothing", async () => {
    const [old, current] = [sessionOf({ fresh: true }), sessionOf()];
    old.receiveCredential({ ...USER, supplier: undefined });
    current.receiveCredential({ ...VISITOR, expiresAt: USER.expiresAt - 600 });
    await flush();
    assert.equal(current.shopperKey, "authless:a1");
    current.receiveCredential({ ...USER, token: "user.n3w", expiresAt: USER.expiresAt + 600 });
    await flush();
    assert.equal(old.headers().authorization, "Bearer user.t0ken");
  });

  test("another tab's credential is taken when it was issued no earlier than this tab's", async () => {
    const [a, b] = [sessionOf(), sessionOf()];
    b.receiveCredential(USER);
    a.receiveCredential({ ...USER, token: "older.t0ken", expiresAt: USER.expiresAt - 600 });
    await flush();
    assert.equal(b.credential.token, "user.t0ken");
    a.receiveCredential({ ...USER, token: "newer.t0ken", expiresAt: USER.expiresAt + 600 });
    await flush();
    assert.equal(b.credential.token, "newer.t0ken");
    // A page's late element with the visitor's credential of before the login changes no other tab.
    a.receiveCredential({ ...VISITOR, expiresAt: USER.expiresAt - 1200 });
    await flush();
    assert.equal(a.shopperKey, "authless:a1"); // its own page's element: the most recent one wins there
    assert.equal(b.shopperKey, "user:u1");
    // The same instant's credential (issued in the same ten minutes) is taken: a login just after a page loaded.
    a.receiveCredential({ ...VISITOR, token: "authless.n0w", expiresAt: USER.expiresAt + 600 });
    await flush();
    assert.equal(b.shopperKey, "authless:a1");
  });

  test("a taken credential is not told on: two tabs do not pass credentials back and forth", async () => {
    const [a, b] = [sessionOf(), sessionOf()];
    const watcher = tabsOf();
    const told = [];
    watcher.on("credential", (message) => told.push(message.credential.token));
    a.receiveCredential(USER);
    await flush();
    assert.equal(b.credential.token, "user.t0ken");
    assert.deepEqual(told, ["user.t0ken"]);
  });

  test("a user's logout in one tab: the tabs acting for that user forget the credential; another user's logout changes nothing", async () => {
    const [a, b] = [sessionOf(), sessionOf()];
    a.receiveCredential(USER);
    await flush();
    assert.equal(b.shopperKey, "user:u1");
    tabsOf().post({ type: "reset", shopper: "user:u2" }); // another user's logout, in a tab of theirs
    await flush();
    assert.equal(b.shopperKey, "user:u1");
    const forgotten = identityBecomes(b, "");
    a.reset();
    await forgotten;
    assert.equal(b.credential, null);
    assert.equal(b.headers().authorization, undefined);
  });

  test("a logout's forgotten credential, offered again by another tab, is not taken", async () => {
    const [a, b] = [sessionOf(), sessionOf()];
    a.receiveCredential(USER);
    await flush();
    b.reset(); // b logs out: a forgets u1 too
    await flush();
    assert.equal(a.credential, null);
    const watcher = tabsOf();
    watcher.post({ type: "credential", credential: USER }); // a stale page offers the logged-out credential
    await flush();
    assert.equal(b.credential, null);
  });

  test("a login again within ten minutes of a logout: the same credential from a page started since is taken", async () => {
    const [a, b] = [sessionOf(), sessionOf()];
    a.receiveCredential(USER);
    await flush();
    b.reset(); // b logs out: a forgets u1 too
    await flush();
    const watcher = tabsOf();
    // A page of before the logout (the back/forward cache) is not believed; one started since was given it by
    // the retailer's server again (the service gives a shopper one credential per ten minutes).
    watcher.post({ type: "credential", credential: USER, pageStarted: Date.now() - 60_000 });
    await flush();
    assert.equal(a.credential, null);
    watcher.post({ type: "credential", credential: USER, pageStarted: Date.now() + 1 });
    await flush();
    assert.equal(a.shopperKey, "user:u1");
    assert.equal(b.shopperKey, "user:u1");
  });

  test("a single-page app's login again, named after the logout: the other tabs take the credential too", async () => {
    const [a, b] = [sessionOf(), sessionOf()];
    a.receiveCredential(USER);
    await flush();
    const warn = console.warn;
    console.warn = () => {};
    try {
      a.reset();
      await flush();
      assert.equal(a.receiveCredential(USER), false); // the login's fragment: the same credential
      a.claim("user", "u1"); // user.loadWithExternalId("u1")
      await flush();
      assert.equal(a.shopperKey, "user:u1");
      assert.equal(b.shopperKey, "user:u1");
    } finally {
      console.warn = warn;
    }
  });

  test("a logged-out visitor's reset stays with its page", async () => {
    const [a, b] = [sessionOf(), sessionOf()];
    a.receiveCredential(VISITOR);
    await flush();
    a.reset();
    await flush();
    assert.equal(a.credential, null);
    assert.equal(b.shopperKey, "authless:a1");
  });

  test("a malformed credential from another tab is ignored", async () => {
    const [a, b] = [sessionOf(), sessionOf()];
    b.receiveCredential(VISITOR);
    tabsOf().post({ type: "credential", credential: /** @type {any} */ ({ token: "bad token", kind: "user", id: "u1", expiresAt: 1 }) });
    tabsOf().post({ type: "credential", credential: /** @type {any} */ (null) });
    await flush();
    assert.equal(b.shopperKey, "authless:a1");
    assert.equal(a.shopperKey, "authless:a1"); // b's own credential, told when b's page gave it
  });

  test("an element of this page's credential another tab replaced is not taken back, nor told", async () => {
    const [loggedIn, other] = [sessionOf(), sessionOf()];
    other.receiveCredential(VISITOR);
    loggedIn.receiveCredential(VISITOR);
    await flush();
    loggedIn.receiveCredential(USER); // the login, issued in the same ten minutes as the visitor's
    await flush();
    assert.equal(other.shopperKey, "user:u1");
    assert.equal(other.fromAnotherTab, true);
    assert.equal(other.receiveCredential(VISITOR), false); // other's page connects its visitor's card again
    await flush();
    assert.equal(other.shopperKey, "user:u1");
    assert.equal(loggedIn.shopperKey, "user:u1");
    assert.equal(loggedIn.fromAnotherTab, false);
  });

  test("after a logout, another tab's credential issued before the forgotten one is not taken", async () => {
    const [a, b] = [sessionOf(), sessionOf()];
    a.receiveCredential({ ...USER, expiresAt: USER.expiresAt + 600 });
    await flush();
    a.reset();
    await flush();
    assert.equal(b.credential, null);
    // An older credential of the same user, from a tab kept in the back/forward cache.
    tabsOf().post({ type: "credential", credential: { ...USER, token: "user.0ld" } });
    await flush();
    assert.equal(a.credential, null);
    assert.equal(b.credential, null);
    tabsOf().post({ type: "credential", credential: { ...VISITOR, expiresAt: USER.expiresAt + 600 } }); // the page after the logout
    await flush();
    assert.equal(a.shopperKey, "authless:a1");
  });

  test("a tab that follows another's logout leaves the shared authless credential to the page that logged out", async () => {
    const [a, b] = [sessionOf(), sessionOf()];
    a.receiveCredential(USER);
    await flush();
    // What the page after the logout remembered (localStorage, which the tabs share) while b had not heard yet.
    b.local.set("_svc/supplier-1/authless-credential", JSON.stringify({ credential: "authless.n3w", id: "a2", expiresAt: USER.expiresAt }));
    a.reset();
    await flush();
    assert.equal(b.credential, null);
    assert.equal(b.authlessCredentialOf("a2"), "authless.n3w");
  });

  test("a tab restored from the back/forward cache asks the others, and takes a credential issued since", async () => {
    const hub = new ChannelHub();
    /** @type {Record<string, (event: { persisted?: boolean }) => void>} */
    const lifecycle = {};
    const restoredTabs = tabsOf({ open: hub.open, lifecycle: { addEventListener: (type, listener) => void (lifecycle[type] = listener) } });
    const restored = new Session({ prefix: "svc", apiBase: "https://prerender.test", tabs: restoredTabs });
    const other = new Session({ prefix: "svc", apiBase: "https://prerender.test", tabs: tabsOf({ open: hub.open }) });
    restored.receiveCredential(VISITOR);
    await flush();
    lifecycle.pagehide({ persisted: true }); // Back/forward cache: it hears nothing now
    other.receiveCredential(USER); // the login, in the other tab
    await flush();
    assert.equal(restored.shopperKey, "authless:a1");
    lifecycle.pageshow({ persisted: true });
    await flush();
    assert.equal(restored.shopperKey, "user:u1");
  });
});


describe("a browser without BroadcastChannel: the logouts' channel", () => {
  /** Windows of one site: an entry one writes reaches the others' `storage` listeners, as a browser does. */
  function siteWindows(count) {
    const items = new Map();
    const windows = Array.from({ length: count }, () => ({ listeners: new Set() }));
    for (const own of windows) {
      Object.assign(own, {
        addEventListener: (/** @type {string} */ type, listener) => type === "storage" && own.listeners.add(listener),
        removeEventListener: (/** @type {string} */ type, listener) => own.listeners.delete(listener),
        localStorage: {
          setItem(/** @type {string} */ key, /** @type {string} */ value) {
            items.set(key, value);
            for (const other of windows) if (other !== own) for (const listener of other.listeners) listener({ key, newValue: value });
          },
          removeItem(/** @type {string} */ key) {
            items.delete(key);
            for (const other of windows) if (other !== own) for (const listener of other.listeners) listener({ key, newValue: null });
          },
        },
      });
    }
    return { windows, items };
  }

  test("a logout reaches the other tabs; nothing else is told, and storage keeps nothing", async () => {
    const { windows, items } = siteWindows(2);
    const [a, b] = windows.map((win) => tabsOf({ open: (/** @type {string} */ name) => logoutChannel(name, /** @type {any} */ (win)) }));
    const heard = [];
    b.on("reset", (message) => heard.push(message));
    b.on("credential", (message) => heard.push(message));
    a.post({ type: "credential", credential: { ...USER } });
    a.post({ type: "reset", shopper: "user:u1" });
    await flush();
    assert.deepEqual(heard, [{ type: "reset", shopper: "user:u1" }]);
    assert.equal(items.size, 0);
  });

  test("an entry of another kind written under the logouts' key is not heard", async () => {
    const { windows } = siteWindows(2);
    const [, b] = windows.map((win) => tabsOf({ open: (/** @type {string} */ name) => logoutChannel(name, /** @type {any} */ (win)) }));
    const heard = [];
    b.on("credential", (message) => heard.push(message));
    windows[0].localStorage.setItem("_svc/tabs/reset", JSON.stringify({ type: "credential", supplier: "1", credential: { ...USER } }));
    await flush();
    assert.deepEqual(heard, []);
  });

  test("a closed tab (a page in the back/forward cache) hears nothing", async () => {
    const { windows } = siteWindows(2);
    const [a, b] = windows.map((win) => tabsOf({ open: (/** @type {string} */ name) => logoutChannel(name, /** @type {any} */ (win)) }));
    const heard = [];
    b.on("reset", (message) => heard.push(message));
    b.close();
    a.post({ type: "reset", shopper: "user:u1" });
    await flush();
    assert.deepEqual(heard, []);
  });
});
