// Unit tests of prerender/static/sdk/http.js, in Node: an attempt that gets no answer in time is a network
// failure (a read's error state and "try again", never "loading" for ever), a write whose attempt timed out is
// sent again with the same Idempotency-Key, and the caller's own abort stays an abort. fetch is a double that
// never answers unless told to (fault injection: a node that stopped answering).
import { test, describe, afterEach } from "node:test";
import assert from "node:assert/strict";

import { ApiClient, ApiError, localProblem, logFailure } from "../../prerender/static/sdk/http.js";
import { clientSession } from "./support.mjs";

const session = clientSession;

const realFetch = globalThis.fetch;
afterEach(() => {
  globalThis.fetch = realFetch;
});

/** Node does not keep running for AbortSignal.timeout's timer alone (a browser page does): a timer that does. */
async function keptAlive(/** @type {Promise<unknown>} */ promise) {
  const keepAlive = setInterval(() => {}, 1000);
  try {
    return await promise;
  } finally {
    clearInterval(keepAlive);
  }
}

/** A fetch whose first `hung` calls never answer (until aborted), then answer `body`; it records each call. */
function fetchDouble(hung, body = { ok: true }) {
  const calls = [];
  globalThis.fetch = (url, init) => {
    calls.push({ url, init });
    if (calls.length <= hung) {
      return new Promise((_, reject) => {
        if (init.signal.aborted) reject(init.signal.reason);  // as fetch does with a signal aborted already
        init.signal.addEventListener("abort", () => reject(init.signal.reason));
      });
    }
    return Promise.resolve(new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } }));
  };
  return calls;
}

describe("an attempt without an answer in time", () => {
  test("a read is a network failure the notices show with 'try again'", async () => {
    fetchDouble(1);
    const client = new ApiClient(session, { attemptTimeoutMs: 30 });
    await assert.rejects(keptAlive(client.request("GET", "/recipe-details")), (error) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.status, 0);
      assert.equal(error.problem.type, "about:blank#timeout");
      return true;
    });
  });

  test("a write is sent again with the same Idempotency-Key, and its answer is the write's", async () => {
    const calls = fetchDouble(1, { recipes: [] });
    const client = new ApiClient(session, { attemptTimeoutMs: 30 });
    const answer = await keptAlive(client.request("POST", "/basket/recipes", { json: { recipe_id: "1" }, write: true }));
    assert.deepEqual(answer, { recipes: [] });
    assert.equal(calls.length, 2);
    const keys = calls.map((call) => call.init.headers["idempotency-key"]);
    assert.ok(keys[0] && keys[0] === keys[1]);
  });

  test("a browser without AbortSignal.timeout (Safari before 16) times an attempt out all the same", async () => {
    fetchDouble(1);
    const timeout = AbortSignal.timeout;
    delete AbortSignal.timeout;
    try {
      const client = new ApiClient(session, { attemptTimeoutMs: 30 });
      await assert.rejects(client.request("GET", "/basket"), (error) => error instanceof ApiError && error.status === 0);
    } finally {
      AbortSignal.timeout = timeout;
    }
  });

  test("the caller's abort stays an abort, not a network failure", async () => {
    fetchDouble(1);
    const client = new ApiClient(session, { attemptTimeoutMs: 60_000 });
    const controller = new AbortController();
    const request = client.request("GET", "/basket", { signal: controller.signal });
    controller.abort();
    await assert.rejects(request, (error) => error instanceof DOMException && error.name === "AbortError");
  });
});

/** A fetch that answers each call with the next of `answers` ({status, body, headers}); it records each call. */
function answering(answers) {
  const calls = [];
  globalThis.fetch = (url, init) => {
    calls.push({ url, init });
    const { status = 200, body = {}, headers = {} } = answers[Math.min(calls.length, answers.length) - 1];
    const type = status >= 400 ? "application/problem+json" : "application/json";
    return Promise.resolve(new Response(JSON.stringify(body), { status, headers: { "content-type": type, ...headers } }));
  };
  return calls;
}

describe("a 409 that asks to be asked again", () => {
  const inProgress = {
    status: 409,
    body: { title: "Conflict", status: 409, detail: "A request with this Idempotency-Key is in progress" },
    headers: { "retry-after": "0" },
  };

  test("a write still in progress is asked again with its key, and its answer is the write's", async () => {
    const calls = answering([inProgress, { status: 200, body: { changes: [{ id: "100001", quantity: 2 }] } }]);
    const client = new ApiClient(session);
    const answer = await client.request("POST", "/basket/recipes", { json: { recipe_id: "1" }, write: true });
    assert.deepEqual(answer, { changes: [{ id: "100001", quantity: 2 }] });
    assert.equal(calls.length, 2);
    const keys = calls.map((call) => call.init.headers["idempotency-key"]);
    assert.ok(keys[0] && keys[0] === keys[1]);
  });

  test("a 409 without Retry-After is the write's outcome (a payment short of the total)", async () => {
    const short = { status: 409, body: { title: "Conflict", status: 409, expected_total: 12.5 } };
    const calls = answering([short, { status: 200 }]);
    const client = new ApiClient(session);
    await assert.rejects(client.request("POST", "/baskets/handle-payment", { json: {}, write: true }), (error) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.status, 409);
      assert.equal(error.retryAfterMs, null);
      return true;
    });
    assert.equal(calls.length, 1);
  });

  test("a read the service asks to be asked again (a basket moved behind a held change) is asked again", async () => {
    const calls = answering([inProgress, inProgress, { status: 200, body: { recipes: [] } }]);
    const client = new ApiClient(session);
    assert.deepEqual(await client.request("GET", "/basket"), { recipes: [] });
    assert.equal(calls.length, 3);
    assert.ok(calls.every((call) => !("idempotency-key" in call.init.headers)), "a read carries no key");
  });

  test("a read is sent three times at most, and never again after a failure whose outcome is unknown", async () => {
    const held = answering([inProgress, inProgress, inProgress, { status: 200 }]);
    const client = new ApiClient(session);
    await assert.rejects(client.request("GET", "/basket"), (error) => error instanceof ApiError && error.status === 409);
    assert.equal(held.length, 3);
    const failed = answering([{ status: 503, body: { title: "Service Unavailable", status: 503 } }, { status: 200 }]);
    await assert.rejects(client.request("GET", "/basket"), (error) => error instanceof ApiError && error.status === 503);
    assert.equal(failed.length, 1);
  });

  test("an unkeyed write (a like, events, favorite items) is not sent again", async () => {
    const calls = answering([inProgress, { status: 200 }]);
    const client = new ApiClient(session);
    await assert.rejects(client.request("PUT", "/favorite-items", { json: { product_ids: [] } }),
      (error) => error instanceof ApiError && error.status === 409);
    assert.equal(calls.length, 1);
  });
});

describe("logFailure", () => {
  test("the network's and the service's failures, and the shopper's state, are warnings; a 4xx or a bug is an error", (t) => {
    const warned = t.mock.method(console, "warn", () => {});
    const errored = t.mock.method(console, "error", () => {});
    const transient = [
      new ApiError({ status: 503, title: "Unavailable" }),
      new ApiError({ status: 502, title: "Bad Gateway" }),
      new ApiError({ status: 429, title: "Too Many Requests" }),
      localProblem("network", "Network error"),
      localProblem("timeout", "Timeout"),
      localProblem("not-connected", "Likes are for logged-in users"),
    ];
    const toFix = [new ApiError({ status: 400, title: "Bad Request" }), localProblem("no-store", "No store"), new TypeError("x")];
    for (const error of transient) logFailure("svc", "could not load", error);
    for (const error of toFix) logFailure("svc", "could not load", error);
    assert.equal(warned.mock.callCount(), transient.length);
    assert.equal(errored.mock.callCount(), toFix.length);
    assert.deepEqual(warned.mock.calls[0].arguments, ["[svc] could not load", transient[0]]);
  });
});
