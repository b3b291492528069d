// Unit tests of prerender/static/sdk/transfer.js `TransferArrivals`, in Node, through its injected dependencies:
// what happens to a pending basket transfer when its redeem fails. An answer about the link (unknown, expired,
// used: a 4xx) is final and drops it; a 409 asking to be asked again (the redeem still in progress at the
// service: an earlier attempt it is finishing) is not, and the link waits, with its key, for the next page.
import { test, describe, beforeEach } from "node:test";
import assert from "node:assert/strict";

import { TransferArrivals } from "../../prerender/static/sdk/transfer.js";
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

/** Arrivals whose redeem fails with `error`; the notices it showed. */
function arrivalsFailingWith(/** @type {ApiError} */ error) {
  const shown = [];
  const arrivals = new TransferArrivals({
    session: /** @type {any} */ ({ prefix: "svc", key: (/** @type {string} */ name) => `svc.${name}`, identity$: new State(true) }),
    pos: /** @type {any} */ ({ whenLoaded: async () => "1001", load: async () => {} }),
    basket: /** @type {any} */ ({ receiveTransfer: async () => { throw error; } }),
    notices: /** @type {any} */ ({ error: (_error, key) => shown.push(key), t: () => "", presentInDialog: () => false }),
    toaster: /** @type {any} */ ({ prepare() {}, show() {} }),
    track: () => {},
    settled: async () => {},
  });
  arrivals.catchArrival();
  return { arrivals, shown };
}

describe("a redeem that failed", () => {
  test("a 409 asking to be asked again keeps the link and its key for the next page", async () => {
    const inProgress = new ApiError({ title: "Conflict", status: 409, detail: "in progress" }, { retryAfterMs: 1000 });
    const { arrivals, shown } = arrivalsFailingWith(inProgress);
    const key = arrivals.pending()?.key;
    await arrivals.resume();
    assert.equal(arrivals.pending()?.token, TOKEN);
    assert.equal(arrivals.pending()?.key, key);
    assert.deepEqual(shown, ["transfer.failed"]);
  });

  test("a used link (410) is dropped and said expired", async () => {
    const { arrivals, shown } = arrivalsFailingWith(new ApiError({ title: "Gone", status: 410 }));
    await arrivals.resume();
    assert.equal(arrivals.pending(), null);
    assert.deepEqual(shown, ["transfer.expired"]);
  });
});
