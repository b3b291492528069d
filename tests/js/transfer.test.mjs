// Unit tests of prerender/static/sdk/transfer.js `TransferArrivals`, in Node, through its injected dependencies:
// what happens to a pending basket transfer when its redeem fails. An answer about the link (unknown, expired,
// used, malformed) is final and drops it; a failure whose outcome is not known (no answer, a 5xx, a 409 asking to
// be asked again, a refused credential) keeps the link with its key, tried again in the page, then on the next.
import { test, describe, beforeEach, afterEach, mock } from "node:test";
import assert from "node:assert/strict";

import { RETRY_IN_PAGE_MS, TransferArrivals } from "../../prerender/static/sdk/transfer.js";
import { State } from "../../prerender/static/sdk/observable.js";
import { ApiError } from "../../prerender/static/sdk/http.js";

const TOKEN = "t".repeat(43);

beforeEach(() => {
  // The retailer's page the link opened (no sessionStorage here: the SDK's storage keeps values in memory).
  globalThis.window = /** @type {any} */ ({
    location: { href: `https://shop.test/idees?affiliate=Blog&transferred_basket_token=${TOKEN}&point_of_sale_ext_id=1001` },
    history: { state: null, replaceState() {} },
  });
});

/**
 * Arrivals whose redeems answer `outcomes` in turn (an ApiError is thrown, anything else answered); `told`: the
 * texts the visitor was shown (the toaster's, as no drawer is open), as their keys (with the affiliate they name);
 * `redeems`: each redeem's key and store. `stores`: the page's store at each attempt (the last one stays).
 * @param {unknown[]} outcomes @param {{ stores?: string[], track?: () => void }} [options]
 */
function arrivalsAnswering(outcomes, { stores = ["1001"], track = () => {} } = {}) {
  const told = [];
  const redeems = [];
  const arrivals = new TransferArrivals({
    session: /** @type {any} */ ({ prefix: "svc", key: (/** @type {string} */ name) => `svc.${name}`, identity$: new State(true) }),
    pos: /** @type {any} */ ({ whenLoaded: async () => (stores.length > 1 ? stores.shift() : stores[0]), load: async () => {} }),
    basket: /** @type {any} */ ({
      receiveTransfer: async (/** @type {string} */ token, /** @type {string} */ store, /** @type {string} */ key) => {
        redeems.push({ key, store });
        const outcome = outcomes.shift();
        if (outcome instanceof Error) throw outcome;
        return outcome;
      },
    }),
    notices: /** @type {any} */ ({
      t: (/** @type {string} */ key, /** @type {any} */ params) => (params?.affiliate ? `${key}:${params.affiliate}` : key),
      presentInDialog: () => false,
    }),
    toaster: /** @type {any} */ ({ prepare() {}, show: (/** @type {string} */ text) => told.push(text) }),
    track,
    settled: async () => {},
  });
  arrivals.catchArrival();
  return { arrivals, told, redeems };
}

/** Lets the timer of the next attempt in the page fire, and that attempt finish. @param {number} ms */
async function afterWaiting(ms) {
  mock.timers.tick(ms);
  for (let turn = 0; turn < 20; turn += 1) await Promise.resolve();
}

const RECEIVED = { basket: {}, changes: [], transfer: { recipe_count: 1, message: "Votre panier de Blog\u00a0: 1 recette" } };
const NOT_KNOWN_YET = {
  "a 409 asking to be asked again (the redeem in progress)": () =>
    new ApiError({ title: "Conflict", status: 409, detail: "in progress" }, { retryAfterMs: 1000 }),
  "a 503": () => new ApiError({ title: "Service Unavailable", status: 503 }),
  "no answer (a network failure)": () => new ApiError({ title: "Network", status: 0 }),
  "a rate limit (429)": () => new ApiError({ title: "Too Many Requests", status: 429 }),
};

describe("a redeem whose outcome is not known yet", () => {
  beforeEach(() => mock.timers.enable({ apis: ["setTimeout"] }));
  afterEach(() => mock.timers.reset());

  for (const [name, failure] of Object.entries(NOT_KNOWN_YET)) {
    test(`${name}: the link and its key are kept, tried again twice in the page, then left for the next page`, async () => {
      const { arrivals, told, redeems } = arrivalsAnswering([failure(), failure(), failure()]);
      const key = arrivals.pending()?.key;
      await arrivals.resume();
      assert.deepEqual(told, ["transfer.later:Blog"]);
      await afterWaiting(RETRY_IN_PAGE_MS[0]);
      await afterWaiting(RETRY_IN_PAGE_MS[1]);
      assert.deepEqual(told, ["transfer.later:Blog", "transfer.later:Blog", "transfer.next-page:Blog"]);
      assert.deepEqual(redeems.map((redeem) => redeem.key), [key, key, key]);
      assert.equal(arrivals.pending()?.token, TOKEN);
      assert.equal(arrivals.pending()?.key, key);
      await afterWaiting(60_000);
      assert.equal(redeems.length, 3, "no attempt after the page's two");
    });
  }

  test("the attempt in the page that gets the answer brings the basket in", async () => {
    const { arrivals, told, redeems } = arrivalsAnswering([NOT_KNOWN_YET["a 503"](), RECEIVED]);
    await arrivals.resume();
    await afterWaiting(RETRY_IN_PAGE_MS[0]);
    assert.deepEqual(told, ["transfer.later:Blog", "Votre panier de Blog\u00a0: 1 recette"]);
    assert.equal(redeems.length, 2);
    assert.equal(arrivals.pending(), null);
  });

  test("a basket whose products the cart callbacks did not take is not told as arrived", async () => {
    const { arrivals, told } = arrivalsAnswering([{ ...RECEIVED, cartFollowed: false }]);
    await arrivals.resume();
    assert.deepEqual(told, ["transfer.not-followed:Blog"]);
    assert.equal(arrivals.pending(), null, "the link is used: it is not tried again");
  });

  test("every attempt with the key names the store the first one named, though the page moved", async () => {
    const { arrivals, redeems } = arrivalsAnswering([NOT_KNOWN_YET["a 503"](), RECEIVED], { stores: ["1001", "1002"] });
    await arrivals.resume();
    await afterWaiting(RETRY_IN_PAGE_MS[0]);
    assert.deepEqual(redeems.map((redeem) => redeem.store), ["1001", "1001"]);
    assert.equal(redeems[0].key, redeems[1].key);
  });

  test("a link without the publisher's name says the other site", async () => {
    globalThis.window.location.href = `https://shop.test/idees?transferred_basket_token=${TOKEN}&point_of_sale_ext_id=1001`;
    const { arrivals, told } = arrivalsAnswering([NOT_KNOWN_YET["a 503"]()]);
    await arrivals.resume();
    assert.deepEqual(told, ["transfer.later:transfer.affiliate"]);
  });
});

describe("a refused credential (401)", () => {
  beforeEach(() => mock.timers.enable({ apis: ["setTimeout"] }));
  afterEach(() => mock.timers.reset());

  test("keeps the link for the next page (a fresh credential), says to reload or sign in, and is not tried again here", async () => {
    const { arrivals, told, redeems } = arrivalsAnswering([new ApiError({ title: "Unauthorized", status: 401 })]);
    await arrivals.resume();
    await afterWaiting(60_000);
    assert.deepEqual(told, ["error.credential"]);
    assert.equal(redeems.length, 1);
    assert.equal(arrivals.pending()?.token, TOKEN);
  });
});

describe("a basket that arrived", () => {
  test("a fault of the page's after the answer is not told as a basket still on its way", async () => {
    const broken = () => {
      throw new Error("the page's analytics failed");
    };
    const { arrivals, told } = arrivalsAnswering([RECEIVED], { track: broken });
    await arrivals.resume();
    assert.equal(arrivals.pending(), null);
    assert.ok(!told.some((text) => text.startsWith("transfer.later")), told.join());
  });
});

describe("an answer about the link", () => {
  beforeEach(() => mock.timers.enable({ apis: ["setTimeout"] }));
  afterEach(() => mock.timers.reset());

  for (const [status, said] of [[404, "transfer.expired"], [410, "transfer.expired"], [400, "transfer.failed"], [409, "transfer.failed"]]) {
    test(`a ${status} (no Retry-After) drops the link, says ${said} and is not tried again`, async () => {
      const { arrivals, told, redeems } = arrivalsAnswering([new ApiError({ title: "No", status })]);
      await arrivals.resume();
      await afterWaiting(60_000);
      assert.equal(arrivals.pending(), null);
      assert.deepEqual(told, [said]);
      assert.equal(redeems.length, 1);
    });
  }
});

describe("the retailer's force-POS callback", () => {
  /** The arrivals of a page at store 1002 for a link sent for 1001, whose callback records what it was asked. */
  function atAnotherStore() {
    const asked = [];
    const { arrivals, redeems } = arrivalsAnswering([RECEIVED], { stores: ["1002"] });
    arrivals.setForcePosCallback((/** @type {string} */ storeId) => {
      asked.push(storeId);
      return false; // "not now" (a real one reloads the page at that store)
    });
    return { arrivals, redeems, asked };
  }

  test("with a tab storage that keeps the link, the page is asked to switch to the link's store first", async () => {
    const storage = new Map();
    globalThis.window.sessionStorage = /** @type {any} */ ({
      getItem: (/** @type {string} */ key) => storage.get(key) ?? null,
      setItem: (/** @type {string} */ key, /** @type {string} */ value) => void storage.set(key, value),
      removeItem: (/** @type {string} */ key) => void storage.delete(key),
    });
    const { arrivals, redeems, asked } = atAnotherStore();
    await arrivals.resume();
    assert.deepEqual(asked, ["1001"]);
    assert.equal(redeems.length, 0, "the basket waits for the page at the link's store");
    assert.equal(arrivals.pending()?.token, TOKEN);
  });

  test("a tab that cannot keep the link across a reload (storage blocked or full) redeems it at the page's store", async () => {
    mock.method(console, "warn", () => {});
    const { arrivals, redeems, asked } = atAnotherStore(); // this page's window has no sessionStorage
    await arrivals.resume();
    assert.deepEqual(asked, [], "a switch that reloads the page would lose the link");
    assert.deepEqual(redeems.map((redeem) => redeem.store), ["1002"]);
    assert.equal(arrivals.pending(), null);
    mock.restoreAll();
  });
});
