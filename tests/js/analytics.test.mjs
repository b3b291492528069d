// Unit tests of prerender/static/sdk/analytics.js `Analytics`, in Node, with a fake page and HTTP client: how
// often the SDK tries again to send its events while they do not go through (a service down, or its endpoint
// blocked by the shopper's tracker blocker: an outside check saw a blocked tab try every 2 s, for hours), and how
// the events of a page being left reach the service where the browser has no beacon.
import { describe, test, beforeEach, afterEach, mock } from "node:test";
import assert from "node:assert/strict";

import { Analytics } from "../../prerender/static/sdk/analytics.js";
import { ApiError } from "../../prerender/static/sdk/http.js";
import { Stream } from "../../prerender/static/sdk/observable.js";
import { FakeSession } from "./support.mjs";

beforeEach(() => {
  mock.timers.enable({ apis: ["setTimeout"] });
  globalThis.document = /** @type {any} */ ({
    visibilityState: "visible",
    addEventListener() {},
    querySelector: () => null,
  });
  globalThis.window = /** @type {any} */ ({ addEventListener() {} });
  globalThis.location = /** @type {any} */ ({ pathname: "/idees" });
  // A page's navigator, without sendBeacon unless a test gives it one (Node's own, where there is one, has none).
  Object.defineProperty(globalThis, "navigator", { value: {}, configurable: true, writable: true });
});

afterEach(() => {
  mock.timers.reset();
  mock.restoreAll();
  delete globalThis.document;
  delete globalThis.window;
  delete globalThis.location;
});

/** Analytics whose sends answer in turn from `outcomes` (an Error is thrown), each send's time recorded. */
function analyticsAnswering(/** @type {unknown[]} */ outcomes) {
  const sentAt = [];
  let now = 0;
  const session = Object.assign(new FakeSession({ kind: "user", id: "u-1", forbidProfiling: false }), {
    leaving$: new Stream(),
    isConfigured: true,
    url: (/** @type {string} */ path) => `https://prerender.test/v1${path}`,
    headers: () => ({ authorization: "Bearer t0ken" }),
  });
  const client = {
    request: async () => {
      sentAt.push(now);
      const outcome = outcomes.shift();
      if (outcome instanceof Error) throw outcome;
      return outcome;
    },
  };
  const analytics = new Analytics({ client: /** @type {any} */ (client), session: /** @type {any} */ (session) });
  /** Lets `ms` pass on the page's clock, and the sends it starts finish. @param {number} ms */
  const wait = async (ms) => {
    for (let step = 0; step < ms; step += 1000) {
      now += 1000;
      mock.timers.tick(1000);
      for (let turn = 0; turn < 10; turn += 1) await Promise.resolve();
    }
  };
  return { analytics, sentAt, wait };
}

const BLOCKED = () => new ApiError({ title: "Network", status: 0 });

test("events that do not go through are tried again later each time, at most every five minutes", async () => {
  const { analytics, sentAt, wait } = analyticsAnswering(Array.from({ length: 20 }, BLOCKED));
  analytics.track("recipe.show", { recipe_id: "5" });
  await wait(60 * 60_000);
  // 2 s, then 4, 8, 16... after each failure, up to 300 s: 18 attempts in the hour, not 1 800.
  assert.deepEqual(sentAt.slice(0, 6), [2000, 6000, 14000, 30000, 62000, 126000]);
  const gaps = sentAt.slice(1).map((at, i) => at - sentAt[i]);
  assert.ok(gaps.every((gap) => gap <= 300_000), String(gaps));
  assert.equal(sentAt.length, 18);
});

test("a send that goes through brings back the 2 s rhythm", async () => {
  const { analytics, sentAt, wait } = analyticsAnswering([BLOCKED(), BLOCKED(), {}, {}]);
  analytics.track("recipe.show", { recipe_id: "5" });
  await wait(14_000); // sent at 2 s (failed), 6 s (failed), 14 s (went through)
  analytics.track("recipe.show", { recipe_id: "6" });
  await wait(2000);
  assert.deepEqual(sentAt, [2000, 6000, 14000, 16000]);
});

test("while sends fail, a full batch waits for its turn instead of being sent at once", async () => {
  const { analytics, sentAt, wait } = analyticsAnswering([BLOCKED(), {}]);
  analytics.track("recipe.show", { recipe_id: "5" });
  await wait(2000);
  for (let i = 0; i < 25; i += 1) analytics.track("recipe.show", { recipe_id: String(i) });
  assert.deepEqual(sentAt, [2000], "no send before the failure's delay");
  await wait(4000);
  assert.deepEqual(sentAt, [2000, 6000]);
});

describe("the events of a page being left", () => {
  /** The requests the page's fetch was asked for. */
  function recordFetches() {
    const fetched = [];
    mock.method(globalThis, "fetch", async (/** @type {string} */ url, /** @type {RequestInit} */ init) => {
      fetched.push({ url, ...init });
      return new Response(null, { status: 204 });
    });
    return fetched;
  }

  test("a browser without sendBeacon sends them as a kept-alive fetch, the same body", () => {
    const fetched = recordFetches();
    const { analytics } = analyticsAnswering([]);
    analytics.track("entry.add-all", { recipe_id: "5" });
    analytics.beacon();
    assert.equal(fetched.length, 1);
    const [sent] = fetched;
    assert.equal(sent.url, "https://prerender.test/v1/events");
    assert.equal(sent.keepalive, true);
    assert.equal(sent.credentials, "omit");
    const body = JSON.parse(sent.body);
    assert.deepEqual(body.headers, { authorization: "Bearer t0ken" });
    assert.deepEqual(body.events.map((event) => event.name), ["entry.add-all"]);
  });

  test("a kept-alive fetch that fails puts its events back in the queue", async () => {
    mock.method(globalThis, "fetch", async () => {
      throw new TypeError("Failed to fetch");
    });
    const { analytics, sentAt, wait } = analyticsAnswering([{}]);
    analytics.track("entry.add-all", { recipe_id: "5" });
    analytics.beacon();
    for (let turn = 0; turn < 10; turn += 1) await Promise.resolve();
    await wait(2000); // the page stayed (hidden): the next send takes them
    assert.equal(sentAt.length, 1);
  });

  test("a beacon the browser refuses (its quota) keeps the events for later, and no fetch is tried", () => {
    const fetched = recordFetches();
    globalThis.navigator.sendBeacon = () => false;
    const { analytics } = analyticsAnswering([]);
    analytics.track("entry.add-all", { recipe_id: "5" });
    analytics.beacon();
    assert.equal(fetched.length, 0, "a kept-alive fetch shares the beacons' quota");
  });

  test("a beacon the browser takes is the only request", () => {
    const fetched = recordFetches();
    const beacons = [];
    globalThis.navigator.sendBeacon = (/** @type {string} */ url, /** @type {string} */ body) => beacons.push(body) > 0;
    const { analytics } = analyticsAnswering([]);
    analytics.track("entry.add-all", { recipe_id: "5" });
    analytics.beacon();
    assert.equal(beacons.length, 1);
    assert.equal(fetched.length, 0);
  });
});
