// Unit tests of prerender/static/sdk/origin-check.js `OriginCheck`: after a call failed without an answer, the
// service's `GET /origin-check` tells a page whose origin the service does not allow from a network's failure, said
// once as a console error; an unreadable answer (a front's error page, the network) or an allowed origin says
// nothing. fetch is a double; the clock and the browser's online state are the test's.
import { test, describe } from "node:test";
import assert from "node:assert/strict";

import { CHECK_EVERY_MS, OriginCheck } from "../../prerender/static/sdk/origin-check.js";
import { ApiClient } from "../../prerender/static/sdk/http.js";
import { clientSession } from "./support.mjs";

const CHECK_URL = "http://prerender.test/origin-check";

/** A fetch double answering `answer` (an object: the JSON of a 200; a number: that status; null: no readable answer). */
function fetcher(answer) {
  const calls = [];
  const fetch = (url, init) => {
    calls.push({ url, init });
    if (answer === null) return Promise.reject(new TypeError("Failed to fetch"));
    if (typeof answer === "number") return Promise.resolve(new Response("<html>Bad Gateway</html>", { status: answer }));
    return Promise.resolve(new Response(JSON.stringify(answer), { status: 200, headers: { "content-type": "application/json" } }));
  };
  return { fetch, calls };
}

function check(answer, { online = true, clock = { now: 0 } } = {}) {
  const { fetch, calls } = fetcher(answer);
  const origin = new OriginCheck({ prefix: "svc", fetcher: fetch, now: () => clock.now, online: () => online });
  return { origin, calls, clock };
}

describe("OriginCheck", () => {
  test("the service says this origin is not allowed: said once, naming the origin and the setting", async (t) => {
    const errors = t.mock.method(console, "error", () => {});
    const { origin, calls, clock } = check({ origin: "http://shop.test", allowed: false });
    await origin.afterNetworkFailure(CHECK_URL);
    assert.equal(calls.length, 1);
    assert.deepEqual(calls[0], { url: CHECK_URL, init: { mode: "cors", credentials: "omit", cache: "no-store" } });
    assert.equal(errors.mock.callCount(), 1);
    const said = String(errors.mock.calls[0].arguments[0]);
    assert.match(said, /its origin, http:\/\/shop\.test,/);
    assert.match(said, /PRERENDER_CORS_ALLOWED_ORIGINS/);
    assert.match(said, /prerender \(http:\/\/prerender\.test\)/);
    clock.now += CHECK_EVERY_MS * 10;
    await origin.afterNetworkFailure(CHECK_URL);
    assert.equal(calls.length, 1); // said: never asked again
  });

  for (const [name, answer] of [
    ["no readable answer (the network, or a front's error page without CORS headers)", null],
    ["a front's 502 it may read", 502],
    ["an allowed origin (the failure was another: a connection cut, a restart)", { origin: "http://shop.test", allowed: true }],
    ["an answer of another shape", { status: "ok" }],
  ]) {
    test(`${name}: nothing said`, async (t) => {
      const errors = t.mock.method(console, "error", () => {});
      const { origin, calls } = check(answer);
      await origin.afterNetworkFailure(CHECK_URL);
      assert.equal(calls.length, 1);
      assert.equal(errors.mock.callCount(), 0);
    });
  }

  test("offline: nothing asked", async () => {
    const { origin, calls } = check({ origin: "http://shop.test", allowed: false }, { online: false });
    await origin.afterNetworkFailure(CHECK_URL);
    assert.equal(calls.length, 0);
  });

  test("one check a minute at most, and one at a time", async () => {
    const { origin, calls, clock } = check(null);
    await Promise.all([origin.afterNetworkFailure(CHECK_URL), origin.afterNetworkFailure(CHECK_URL)]);
    assert.equal(calls.length, 1);
    clock.now += CHECK_EVERY_MS - 1;
    await origin.afterNetworkFailure(CHECK_URL);
    assert.equal(calls.length, 1);
    clock.now += 1;
    await origin.afterNetworkFailure(CHECK_URL);
    assert.equal(calls.length, 2);
  });
});

describe("ApiClient and the origin check", () => {
  test("a call that fails without an answer asks the service's /origin-check; its own failure is unchanged", async () => {
    const realFetch = globalThis.fetch;
    globalThis.fetch = () => Promise.reject(new TypeError("Failed to fetch"));
    try {
      const asked = [];
      const originCheck = /** @type {any} */ ({ afterNetworkFailure: (url) => asked.push(url) });
      const client = new ApiClient(clientSession, { originCheck });
      await assert.rejects(client.request("GET", "/basket", { query: { store_id: "1" } }), (error) => {
        assert.equal(error.status, 0);
        assert.match(String(error.problem.type), /#network$/);
        return true;
      });
      assert.deepEqual(asked, [CHECK_URL]);
    } finally {
      globalThis.fetch = realFetch;
    }
  });
});
