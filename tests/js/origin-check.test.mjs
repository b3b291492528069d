// Unit tests of prerender/static/sdk/origin-check.js `OriginCheck`: after a call failed without an answer, the same
// address asked without reading the answer (`no-cors`) and then to read it (`cors`) tells a page whose origin the
// service does not allow from a network's failure, said once as a console error. fetch is a double answering per
// mode; the clock and the browser's online state are the test's.
import { test, describe } from "node:test";
import assert from "node:assert/strict";

import { CHECK_EVERY_MS, OriginCheck } from "../../prerender/static/sdk/origin-check.js";
import { ApiClient } from "../../prerender/static/sdk/http.js";
import { clientSession } from "./support.mjs";

const URL_ASKED = "http://prerender.test/v1/basket?store_id=1";

/** A fetch double: `answers[mode]` true answers, false fails as a refused or unreachable call; records each call. */
function fetcher(answers) {
  const calls = [];
  const fetch = (url, init) => {
    calls.push({ url, mode: init.mode, headers: init.headers, credentials: init.credentials });
    return answers[init.mode] ? Promise.resolve(new Response(null, { status: 401 })) : Promise.reject(new TypeError("Failed to fetch"));
  };
  return { fetch, calls };
}

function check(answers, { online = true, clock = { now: 0 } } = {}) {
  const { fetch, calls } = fetcher(answers);
  const origin = new OriginCheck({
    prefix: "svc", fetcher: fetch, now: () => clock.now, online: () => online, pageOrigin: () => "http://shop.test",
  });
  return { origin, calls, clock };
}

describe("OriginCheck", () => {
  test("the service answers but its answer is unreadable: said once, naming the page's origin and the setting", async (t) => {
    const errors = t.mock.method(console, "error", () => {});
    const { origin, calls, clock } = check({ "no-cors": true, cors: false });
    await origin.afterNetworkFailure(URL_ASKED);
    assert.deepEqual(calls.map((call) => call.mode), ["no-cors", "cors"]);
    assert.ok(calls.every((call) => call.url === URL_ASKED && call.headers === undefined && call.credentials === "omit"));
    assert.equal(errors.mock.callCount(), 1);
    const said = String(errors.mock.calls[0].arguments[0]);
    assert.match(said, /http:\/\/shop\.test/);
    assert.match(said, /PRERENDER_CORS_ALLOWED_ORIGINS/);
    assert.match(said, /prerender \(http:\/\/prerender\.test\)/);
    clock.now += CHECK_EVERY_MS * 10;
    await origin.afterNetworkFailure(URL_ASKED);
    assert.equal(calls.length, 2); // said: never asked again
  });

  test("nothing answers there (the network, or the service down): nothing said, the readable ask not made", async (t) => {
    const errors = t.mock.method(console, "error", () => {});
    const { origin, calls } = check({ "no-cors": false, cors: false });
    await origin.afterNetworkFailure(URL_ASKED);
    assert.deepEqual(calls.map((call) => call.mode), ["no-cors"]);
    assert.equal(errors.mock.callCount(), 0);
  });

  test("a readable answer (a connection cut, a restart): nothing said", async (t) => {
    const errors = t.mock.method(console, "error", () => {});
    const { origin, calls } = check({ "no-cors": true, cors: true });
    await origin.afterNetworkFailure(URL_ASKED);
    assert.equal(calls.length, 2);
    assert.equal(errors.mock.callCount(), 0);
  });

  test("offline: nothing asked", async () => {
    const { origin, calls } = check({ "no-cors": true, cors: false }, { online: false });
    await origin.afterNetworkFailure(URL_ASKED);
    assert.equal(calls.length, 0);
  });

  test("one check a minute at most, and one at a time", async () => {
    const { origin, calls, clock } = check({ "no-cors": false, cors: false });
    await Promise.all([origin.afterNetworkFailure(URL_ASKED), origin.afterNetworkFailure(URL_ASKED)]);
    assert.equal(calls.length, 1);
    clock.now += CHECK_EVERY_MS - 1;
    await origin.afterNetworkFailure(URL_ASKED);
    assert.equal(calls.length, 1);
    clock.now += 1;
    await origin.afterNetworkFailure(URL_ASKED);
    assert.equal(calls.length, 2);
  });
});

describe("ApiClient and the origin check", () => {
  test("a call that fails without an answer asks the check about its address; its own failure is unchanged", async () => {
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
      assert.deepEqual(asked, ["http://prerender.test/v1/basket"]);
    } finally {
      globalThis.fetch = realFetch;
    }
  });
});
