// Unit tests of prerender/static/sdk/basket-sync.js, in Node (no browser): `normalizeCart`, and `BasketSync`
// on its own with a recording `reconcile` and `onRollback` and rollbacks that only count their calls. Covers
// which changes are pushed and checked, the quantities a cart must show to settle a change (before and after
// the first cart), the rollback after the time limit or a failing callback, and the reconcile rules of the
// module's header comment (a cart that does not show a waiting change is not reconciled until nothing waits;
// a stale reconcile waits for the cart that shows the newer change; reset). The 5 s limit runs on node:test's
// mock timers: nothing sleeps.
import { test, describe, beforeEach, afterEach, mock } from "node:test";
import assert from "node:assert/strict";

import { BasketSync, normalizeCart } from "../../prerender/static/sdk/basket-sync.js";
import { flush } from "./support.mjs";

// Every test runs on mock timers (setTimeout only): BasketSync's 5 s limit passes with mock.timers.tick, and no
// real timer outlives a test (one would keep the run alive until it fires).
beforeEach(() => mock.timers.enable({ apis: ["setTimeout"] }));
afterEach(() => mock.timers.reset());

/**
 * A BasketSync whose reconcile records each cart (and "reconcile" in `log`) and answers `basket:<n>` (or
 * hands the guard to the test with `holdReconcile`), and whose onRollback records its argument.
 */
function makeSync({ timeoutMs, holdReconcile = false, log, now } = {}) {
  const reconciles = [];
  const rollbacksTold = [];
  const sync = new BasketSync({
    reconcile: (cart, guard, at) => {
      const call = { cart, guard, at };
      reconciles.push(call);
      log?.push("reconcile");
      if (holdReconcile) {
        return new Promise((resolve) => {
          call.resolve = resolve;
        });
      }
      return Promise.resolve(`basket:${reconciles.length}`);
    },
    onRollback: (...args) => rollbacksTold.push(args),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(now === undefined ? {} : { now }),
  });
  return { sync, reconciles, rollbacksTold };
}

/** A rollback that counts its calls (and the order of events in `log` when given). */
function rollbackSpy(log, name = "rollback") {
  const spy = async () => {
    spy.calls += 1;
    log?.push(name);
  };
  spy.calls = 0;
  return spy;
}

describe("normalizeCart", () => {
  test("maps product ids (as strings) to quantities, duplicate ids summed", () => {
    const cart = normalizeCart([{ id: "p1", quantity: 2 }, { id: 7, quantity: "3" }, { id: " p1 ", quantity: 1 }]);
    assert.deepEqual([...cart], [["p1", 3], ["7", 3]]);
  });

  test("keeps what the cart routes take: whole quantities within 0 and 9 999, product ids only", () => {
    const cart = normalizeCart([
      { id: "p1", quantity: 0.4 }, // sold by weight: in the cart
      { id: "p1", quantity: 0.3 }, // summed first, then rounded up: 1
      { id: "p2", quantity: 12_000 },
      { id: "p3", quantity: -2 },
      { id: "SKU 12", quantity: 1 }, // a retailer's own SKU: never a product of the service
    ]);
    assert.deepEqual([...cart], [["p1", 1], ["p2", 9_999], ["p3", 0]]);
  });

  test("accepts `productId` for `id` (the maker's cart lines)", () => {
    assert.deepEqual([...normalizeCart([{ productId: "p9", quantity: 1 }])], [["p9", 1]]);
  });

  test("an empty cart is an empty map", () => {
    assert.equal(normalizeCart([]).size, 0);
  });

  test("rejects what is not an array of {id, quantity}", () => {
    for (const bad of [undefined, null, "p1", { id: "p1", quantity: 1 }]) {
      assert.throws(() => normalizeCart(bad), TypeError, `accepted ${JSON.stringify(bad)}`);
    }
    for (const row of [null, {}, { id: "p1" }, { id: "p1", quantity: "two" }, { quantity: 1 }, { id: null, quantity: 1 },
      { id: "p1", quantity: Infinity }]) {
      assert.throws(() => normalizeCart([row]), TypeError, `accepted the row ${JSON.stringify(row)}`);
    }
  });
});

describe("BasketSync: what is pushed", () => {
  test("without any callback nothing is pushed or checked (a publisher site without a cart)", () => {
    const { sync, rollbacksTold } = makeSync();
    const rollback = rollbackSpy();
    assert.equal(sync.register([{ id: "p1", quantity: 2 }], { after: null, rollback }), null);
    mock.timers.tick(60_000);
    assert.equal(rollback.calls, 0);
    assert.equal(rollbacksTold.length, 0);
  });

  test("changes of quantity 0 or not a number are left out; none left: nothing to push", () => {
    const { sync } = makeSync();
    const pushed = [];
    sync.definePush((changes) => pushed.push(changes));
    assert.equal(sync.register([{ id: "p1", quantity: 0 }, { id: "p2", quantity: "x" }], { after: null, rollback: rollbackSpy() }), null);
    assert.equal(sync.register([], { after: null, rollback: rollbackSpy() }), null);
    assert.equal(sync.register(undefined, { after: null, rollback: rollbackSpy() }), null);
    assert.deepEqual(pushed, []);
  });

  test("the push callback gets all changes, ids as strings, additions and removals together", async () => {
    const { sync } = makeSync();
    const pushed = [];
    sync.definePush((changes) => pushed.push(changes));
    const push = sync.register([{ id: 1, quantity: 2 }, { id: "p2", quantity: -1 }, { id: "p3", quantity: 0 }],
      { after: null, rollback: rollbackSpy() });
    assert.equal(pushed.length, 0, "the callbacks run when the returned function is called (outside the queue)");
    assert.equal(await push(), true);
    assert.deepEqual(pushed, [[{ id: "1", quantity: 2 }, { id: "p2", quantity: -1 }]]);
  });

  test("without a push callback, additions go to the add callback and removals to the remove one (positive)", async () => {
    const { sync } = makeSync();
    const log = [];
    sync.defineAdd((products) => log.push(["add", products]));
    sync.defineRemove((products) => log.push(["remove", products]));
    const push = sync.register([{ id: "p1", quantity: 2 }, { id: "p2", quantity: -3 }], { after: null, rollback: rollbackSpy() });
    assert.equal(await push(), true);
    assert.deepEqual(log, [["add", [{ id: "p1", quantity: 2 }]], ["remove", [{ id: "p2", quantity: 3 }]]]);
  });

  test("with only an add callback, removals are neither pushed nor checked", async () => {
    const { sync, rollbacksTold } = makeSync();
    const added = [];
    sync.defineAdd((products) => added.push(products));
    sync.cartChanged([{ id: "p2", quantity: 5 }]); // a cart was seen: a removal could be checked
    const rollback = rollbackSpy();
    assert.equal(sync.register([{ id: "p2", quantity: -1 }], { after: null, rollback }), null);
    mock.timers.tick(5000);
    assert.equal(rollback.calls, 0);
    assert.equal(rollbacksTold.length, 0);
    assert.deepEqual(added, []);
  });

  test("a push callback can be removed with null; anything but a function or null is refused", () => {
    const { sync } = makeSync();
    sync.definePush(() => {});
    sync.definePush(null);
    assert.equal(sync.register([{ id: "p1", quantity: 1 }], { after: null, rollback: rollbackSpy() }), null);
    for (const method of ["definePush", "defineAdd", "defineRemove"]) {
      assert.throws(() => sync[method]("callback"), TypeError);
      assert.throws(() => sync[method]({}), TypeError);
    }
  });
});

describe("BasketSync: settling a change, or rolling it back", () => {
  test("a change the cart does not show within 5 s is rolled back once, and the user is told", async () => {
    const { sync, rollbacksTold } = makeSync();
    sync.definePush(() => {});
    const rollback = rollbackSpy();
    await sync.register([{ id: "p1", quantity: 2 }], { after: { products: [{ id: "p1", quantity: 2 }] }, rollback })();
    mock.timers.tick(4999);
    assert.equal(rollback.calls, 0);
    mock.timers.tick(1);
    assert.equal(rollback.calls, 1);
    assert.deepEqual(rollbacksTold, [], "the user is told once the rollback is done");
    await flush();
    assert.deepEqual(rollbacksTold, [[undefined, "undone"]], "onRollback without an error: the cart did not follow");
    mock.timers.tick(60_000);
    sync.cartChanged([{ id: "p1", quantity: 2 }]); // too late: nothing more happens
    assert.equal(rollback.calls, 1);
    assert.equal(rollbacksTold.length, 1);
  });

  test("the time limit is the constructor's timeoutMs", () => {
    const { sync } = makeSync({ timeoutMs: 50 });
    sync.definePush(() => {});
    const rollback = rollbackSpy();
    sync.register([{ id: "p1", quantity: 1 }], { after: null, rollback });
    mock.timers.tick(49);
    assert.equal(rollback.calls, 0);
    mock.timers.tick(1);
    assert.equal(rollback.calls, 1);
  });

  test("a cart that shows the change in time settles it: no rollback", async () => {
    const { sync, rollbacksTold } = makeSync();
    sync.definePush(() => {});
    const rollback = rollbackSpy();
    await sync.register([{ id: "p1", quantity: 2 }], { after: { products: [{ id: "p1", quantity: 2 }] }, rollback })();
    mock.timers.tick(3000);
    await sync.cartChanged([{ id: "p1", quantity: 2 }]);
    mock.timers.tick(60_000);
    assert.equal(rollback.calls, 0);
    assert.equal(rollbacksTold.length, 0);
  });

  test("a weighed product's fraction in the cart shows an addition of one: no rollback", async () => {
    const { sync, rollbacksTold } = makeSync();
    sync.definePush(() => {});
    await sync.cartChanged([]);
    const rollback = rollbackSpy();
    await sync.register([{ id: "p1", quantity: 1 }], { after: { products: [{ id: "p1", quantity: 1 }] }, rollback })();
    await sync.cartChanged([{ id: "p1", quantity: 0.4 }]);
    mock.timers.tick(60_000);
    assert.equal(rollback.calls, 0);
    assert.equal(rollbacksTold.length, 0);
  });

  test("before any cart, an addition waits for the basket's whole quantity of the product", () => {
    const { sync } = makeSync();
    sync.definePush(() => {});
    const rollback = rollbackSpy();
    // +1 of p1, and the basket now holds 3 of it: a cart with 1 or 2 does not show the change.
    sync.register([{ id: "p1", quantity: 1 }], { after: { products: [{ id: "p1", quantity: 3 }] }, rollback });
    sync.cartChanged([{ id: "p1", quantity: 2 }]);
    mock.timers.tick(5000);
    assert.equal(rollback.calls, 1);

    const { sync: other } = makeSync();
    other.definePush(() => {});
    const kept = rollbackSpy();
    other.register([{ id: "p1", quantity: 1 }], { after: { products: [{ id: "p1", quantity: 3 }] }, rollback: kept });
    other.cartChanged([{ id: "p1", quantity: 3 }]);
    mock.timers.tick(5000);
    assert.equal(kept.calls, 0);
  });

  test("before any cart, an addition the basket does not list waits for the added quantity", () => {
    const { sync } = makeSync();
    sync.definePush(() => {});
    const rollback = rollbackSpy();
    sync.register([{ id: "p1", quantity: 2 }], { after: { products: [] }, rollback });
    sync.cartChanged([{ id: "p1", quantity: 2 }]);
    mock.timers.tick(5000);
    assert.equal(rollback.calls, 0);
  });

  test("before any cart, a removal cannot be checked: it is never rolled back", () => {
    const { sync, rollbacksTold } = makeSync();
    sync.definePush(() => {});
    const rollback = rollbackSpy();
    assert.equal(typeof sync.register([{ id: "p1", quantity: -2 }], { after: null, rollback }), "function");
    mock.timers.tick(60_000);
    assert.equal(rollback.calls, 0);
    assert.equal(rollbacksTold.length, 0);
  });

  test("before any cart, a removal whose callback throws is rolled back at once, as the user is told", async () => {
    const { sync, rollbacksTold } = makeSync();
    sync.definePush(() => {
      throw new Error("cart down");
    });
    const rollback = rollbackSpy();
    const push = sync.register([{ id: "p1", quantity: -2 }], { after: null, rollback });
    assert.equal(await push(), false);
    assert.equal(rollback.calls, 1);
    assert.equal(rollbacksTold.length, 1);
    mock.timers.tick(60_000);
    assert.equal(rollback.calls, 1, "once");
  });

  test("after a cart, an addition needs at least that cart's quantity plus the change", () => {
    const { sync } = makeSync();
    sync.definePush(() => {});
    sync.cartChanged([{ id: "p1", quantity: 1 }]);
    const rollback = rollbackSpy();
    sync.register([{ id: "p1", quantity: 2 }], { after: { products: [{ id: "p1", quantity: 2 }] }, rollback });
    sync.cartChanged([{ id: "p1", quantity: 2 }]); // 1 + 2 = 3 expected
    mock.timers.tick(4000);
    sync.cartChanged([{ id: "p1", quantity: 4 }]); // more than expected: shown
    mock.timers.tick(60_000);
    assert.equal(rollback.calls, 0);
  });

  test("after a cart, a removal needs at most that cart's quantity minus the change", () => {
    const { sync } = makeSync();
    sync.definePush(() => {});
    sync.cartChanged([{ id: "p1", quantity: 5 }]);
    const shown = rollbackSpy();
    sync.register([{ id: "p1", quantity: -2 }], { after: null, rollback: shown });
    sync.cartChanged([{ id: "p1", quantity: 4 }]); // 3 at most
    sync.cartChanged([{ id: "p1", quantity: 3 }]);
    mock.timers.tick(5000);
    assert.equal(shown.calls, 0);

    const notShown = rollbackSpy();
    sync.register([{ id: "p1", quantity: -1 }], { after: null, rollback: notShown }); // 3 - 1 = 2 at most
    sync.cartChanged([{ id: "p1", quantity: 3 }]);
    mock.timers.tick(5000);
    assert.equal(notShown.calls, 1);
  });

  test("a product the cart lacks counts as 0: removing it all is shown by a cart without it", () => {
    const { sync } = makeSync();
    sync.definePush(() => {});
    sync.cartChanged([{ id: "p1", quantity: 2 }, { id: "p2", quantity: 1 }]);
    const rollback = rollbackSpy();
    sync.register([{ id: "p1", quantity: -2 }], { after: null, rollback });
    sync.cartChanged([{ id: "p2", quantity: 1 }]);
    mock.timers.tick(5000);
    assert.equal(rollback.calls, 0);
  });

  test("a change of several products settles only when the cart shows all of them", () => {
    const { sync } = makeSync();
    sync.definePush(() => {});
    sync.cartChanged([]);
    const rollback = rollbackSpy();
    sync.register([{ id: "p1", quantity: 1 }, { id: "p2", quantity: 1 }], { after: null, rollback });
    sync.cartChanged([{ id: "p1", quantity: 1 }]);
    mock.timers.tick(5000);
    assert.equal(rollback.calls, 1);
  });

  test("waiting changes add up: each settles when the cart shows the quantities up to it", () => {
    const { sync } = makeSync();
    sync.definePush(() => {});
    sync.cartChanged([{ id: "p1", quantity: 1 }]);
    const first = rollbackSpy();
    const second = rollbackSpy();
    sync.register([{ id: "p1", quantity: 2 }], { after: null, rollback: first }); // 3
    sync.register([{ id: "p1", quantity: 1 }], { after: null, rollback: second }); // 4
    sync.cartChanged([{ id: "p1", quantity: 3 }]);
    mock.timers.tick(5000);
    assert.equal(first.calls, 0, "the first change is shown");
    assert.equal(second.calls, 1, "the second is not: 4 expected");
  });

  test("a change rolled back is no longer expected: the next change's target leaves it out", () => {
    const { sync } = makeSync();
    sync.definePush(() => {});
    sync.cartChanged([]);
    const undone = rollbackSpy();
    sync.register([{ id: "p1", quantity: 2 }], { after: null, rollback: undone });
    mock.timers.tick(5000);
    assert.equal(undone.calls, 1);
    const next = rollbackSpy();
    sync.register([{ id: "p1", quantity: 1 }], { after: null, rollback: next }); // 0 + 1, not 2 + 1
    sync.cartChanged([{ id: "p1", quantity: 1 }]);
    mock.timers.tick(5000);
    assert.equal(next.calls, 0);
  });

  test("a push callback that throws rolls the change back at once, the user told with the error", async () => {
    const { sync, rollbacksTold } = makeSync();
    const failure = new Error("cart down");
    sync.definePush(() => {
      throw failure;
    });
    const rollback = rollbackSpy();
    const followed = await sync.register([{ id: "p1", quantity: 1 }], { after: null, rollback })();
    assert.equal(followed, false);
    assert.equal(rollback.calls, 1, "no waiting for the time limit");
    await flush();
    assert.deepEqual(rollbacksTold, [[failure, "undone"]]);
    mock.timers.tick(5000);
    assert.equal(rollback.calls, 1, "not rolled back a second time when the limit passes");
    assert.equal(rollbacksTold.length, 1);
  });

  test("the user is told what the rollback did: undone, kept (nothing to go back to), or failed", async () => {
    for (const [rollback, told] of [
      [async () => "undone", "undone"],
      [async () => "kept", "kept"],
      [async () => {
        throw new Error("refused");
      }, "failed"],
    ]) {
      const { sync, rollbacksTold } = makeSync();
      sync.definePush(() => {});
      sync.register([{ id: "p1", quantity: 1 }], { after: null, rollback });
      mock.timers.tick(5000);
      await flush();
      assert.deepEqual(rollbacksTold, [[undefined, told]]);
    }
  });

  test("a rejecting remove callback rolls back a checked removal at once", async () => {
    const { sync, rollbacksTold } = makeSync();
    const failure = new Error("no");
    sync.defineRemove(async () => {
      throw failure;
    });
    sync.cartChanged([{ id: "p1", quantity: 3 }]);
    const rollback = rollbackSpy();
    assert.equal(await sync.register([{ id: "p1", quantity: -1 }], { after: null, rollback })(), false);
    assert.equal(rollback.calls, 1);
    await flush();
    assert.deepEqual(rollbacksTold, [[failure, "undone"]]);
  });
});

describe("BasketSync: reconcile", () => {
  test("reconcileNewest reconciles again the newest cart this tab knows, another tab's included, with its time", async () => {
    let clock = 1000;
    const { sync, reconciles } = makeSync({ now: () => clock });
    assert.equal(await sync.reconcileNewest(), null, "no cart yet: nothing sent");
    assert.equal(reconciles.length, 0);
    await sync.cartChanged([{ id: "p1", quantity: 1 }]);
    sync.cartReportedElsewhere([{ id: "p1", quantity: 1 }, { id: "p2", quantity: 2 }], 2000);
    clock = 9000;
    await sync.reconcileNewest();
    assert.deepEqual(reconciles.at(-1).cart, [{ id: "p1", quantity: 1 }, { id: "p2", quantity: 2 }], "not this page's older cart");
    assert.equal(reconciles.at(-1).at, 2000, "when it was reported, not now");
  });

  test("each reconcile says when its cart was reported: this page's carts later and later, whatever the clock", async () => {
    let clock = 5000;
    const { sync, reconciles } = makeSync({ now: () => clock });
    await sync.cartChanged([{ id: "p1", quantity: 1 }]);
    clock = 4000; // the clock set back
    await sync.cartChanged([]);
    assert.equal(reconciles[0].at, 5000);
    assert.ok(reconciles[1].at > 5000, "still after the first: the service would not follow it otherwise");
  });

  test("a cart reconciled after it waited for a change says when it was reported, not when it was sent", async () => {
    let clock = 1000;
    const { sync, reconciles } = makeSync({ now: () => clock, holdReconcile: true });
    sync.definePush(() => {});
    void sync.cartChanged([{ id: "p1", quantity: 1 }]); // reported at 1000
    sync.register([{ id: "p1", quantity: 2 }], { after: null, rollback: rollbackSpy() });
    clock = 1500;
    reconciles[0].resolve(reconciles[0].guard.later()); // stale when its turn came: it waits for the change
    clock = 9000;
    mock.timers.tick(5000); // no cart shows the change: rolled back, and the waiting cart is sent
    await flush();
    assert.equal(reconciles.length, 2, "the waiting cart is sent once nothing waits");
    assert.deepEqual(reconciles[1].cart, [{ id: "p1", quantity: 1 }]);
    assert.equal(reconciles[1].at, 1000, "its report time, not the time it waited again nor the time it was sent");
  });

  test("with nothing waiting, a cart is reconciled at once and its promise is the reconcile's answer", async () => {
    const { sync, reconciles } = makeSync();
    const answer = await sync.cartChanged([{ id: "p1", quantity: 2 }, { id: "p1", quantity: 1 }]);
    assert.equal(answer, "basket:1");
    assert.deepEqual(reconciles.map((call) => call.cart), [[{ id: "p1", quantity: 3 }]]);
    assert.equal(reconciles[0].guard.current(), true);
  });

  test("a cart that does not show a waiting change is not reconciled; the latest one is, once the change settles", async () => {
    const { sync, reconciles } = makeSync();
    sync.definePush(() => {});
    await sync.cartChanged([]);
    reconciles.length = 0;
    sync.register([{ id: "p1", quantity: 2 }], { after: null, rollback: rollbackSpy() });
    const older = sync.cartChanged([{ id: "p9", quantity: 1 }]);
    const newer = sync.cartChanged([{ id: "p9", quantity: 2 }]);
    await flush();
    assert.equal(reconciles.length, 0, "reconciling now would take the change back out of the basket");
    const shown = sync.cartChanged([{ id: "p1", quantity: 2 }, { id: "p9", quantity: 2 }]);
    assert.deepEqual(reconciles.map((call) => call.cart), [[{ id: "p1", quantity: 2 }, { id: "p9", quantity: 2 }]]);
    assert.deepEqual(await Promise.all([older, newer, shown]), ["basket:1", "basket:1", "basket:1"],
      "callers still waiting on older carts get the same reconciled basket");
  });

  test("once a waiting change is rolled back, the latest cart is reconciled, after the rollback was started", async () => {
    const log = [];
    const { sync, reconciles } = makeSync({ log });
    sync.definePush(() => {});
    await sync.cartChanged([]);
    reconciles.length = 0;
    log.length = 0;
    sync.register([{ id: "p1", quantity: 2 }], { after: null, rollback: rollbackSpy(log, "rollback") });
    const waiting = sync.cartChanged([{ id: "p9", quantity: 1 }]);
    await flush();
    assert.deepEqual(log, []);
    mock.timers.tick(5000);
    assert.deepEqual(reconciles.map((call) => call.cart), [[{ id: "p9", quantity: 1 }]]);
    assert.deepEqual(log, ["rollback", "reconcile"], "the rollback is queued before the deferred reconcile");
    assert.equal(await waiting, "basket:1");
  });

  test("a reconcile whose turn comes after a newer change is stale: it waits for the cart that shows that change", async () => {
    const { sync, reconciles } = makeSync({ holdReconcile: true });
    sync.definePush(() => {});
    const first = sync.cartChanged([{ id: "p1", quantity: 1 }]);
    assert.equal(reconciles.length, 1);
    const { guard } = reconciles[0];
    assert.equal(guard.current(), true);
    // A write answered while that reconcile waited its turn: its change is registered.
    sync.register([{ id: "p1", quantity: 2 }], { after: null, rollback: rollbackSpy() });
    assert.equal(guard.current(), false, "the cart predates the change");
    let settled = false;
    const later = guard.later();
    later.then(() => {
      settled = true;
    });
    reconciles[0].resolve(later); // what BasketService's reconcile does when the guard says stale
    await flush();
    assert.equal(reconciles.length, 1, "the stale cart is not reconciled again");
    assert.equal(settled, false);
    sync.cartChanged([{ id: "p1", quantity: 3 }]);
    assert.deepEqual(reconciles.map((call) => call.cart), [[{ id: "p1", quantity: 1 }], [{ id: "p1", quantity: 3 }]]);
    assert.equal(reconciles[1].guard.current(), true);
    reconciles[1].resolve("fresh basket");
    assert.equal(await later, "fresh basket");
    assert.equal(await first, "fresh basket");
  });

  test("a stale reconcile whose newer cart was already reconciled answers with that reconcile", async () => {
    const { sync, reconciles } = makeSync({ holdReconcile: true });
    sync.definePush(() => {});
    sync.cartChanged([{ id: "p1", quantity: 1 }]);
    const stale = reconciles[0].guard;
    sync.register([{ id: "p1", quantity: 2 }], { after: null, rollback: rollbackSpy() });
    sync.cartChanged([{ id: "p1", quantity: 3 }]); // shows the change: reconciled at once
    assert.equal(reconciles.length, 2);
    reconciles[1].resolve("newest basket");
    assert.equal(stale.current(), false);
    assert.equal(await stale.later(), "newest basket");
    assert.equal(reconciles.length, 2);
  });

  test("lastCart is a copy of the last reported cart, normalised; null before any", () => {
    const { sync } = makeSync();
    assert.equal(sync.lastCart, null);
    sync.cartChanged([{ id: "p1", quantity: 1 }, { id: 2, quantity: 2 }, { id: "p1", quantity: 1 }]);
    const cart = sync.lastCart;
    assert.deepEqual(cart, [{ id: "p1", quantity: 2 }, { id: "2", quantity: 2 }]);
    cart[0].quantity = 99;
    assert.equal(sync.lastCart[0].quantity, 2);
  });

  test("a malformed cart throws and changes nothing", async () => {
    const { sync, reconciles } = makeSync();
    sync.definePush(() => {});
    sync.cartChanged([{ id: "p1", quantity: 1 }]);
    await flush();
    assert.throws(() => sync.cartChanged([{ id: "p1" }]), TypeError);
    assert.deepEqual(sync.lastCart, [{ id: "p1", quantity: 1 }]);
    assert.equal(reconciles.length, 1);
  });

  test("the cart this page reports is handed to onReported, normalised as it is reconciled, with when", async () => {
    const told = [];
    const sync = new BasketSync({
      reconcile: async () => "basket", onRollback: () => {}, onReported: (...args) => told.push(args), now: () => 1000,
    });
    await sync.cartChanged([{ id: 7, quantity: 0.4 }, { id: "7", quantity: 1 }, { id: "not a product", quantity: 1 }]);
    await sync.cartChanged([]);
    assert.deepEqual(told[0], [[{ id: "7", quantity: 2 }], 1000]);
    assert.ok(told[1][1] > 1000, "a page's later report is later, whatever its clock says");
  });

  test("a newer cart another tab reported is the one a change is checked against: a removal it allows is not rolled back", async () => {
    let clock = 1000;
    const { sync, reconciles } = makeSync({ now: () => clock });
    sync.definePush(() => {});
    await sync.cartChanged([{ id: "p1", quantity: 2 }]);
    // Another tab put one more of p1 in the cart and reported it; this tab then removes its 2.
    sync.cartReportedElsewhere([{ id: "p1", quantity: 3 }], 2000);
    assert.deepEqual(sync.lastCart, [{ id: "p1", quantity: 2 }], "lastCart stays this page's own");
    const rollback = rollbackSpy();
    sync.register([{ id: "p1", quantity: -2 }], { after: null, rollback });
    clock = 3000;
    await sync.cartChanged([{ id: "p1", quantity: 1 }]);
    mock.timers.tick(5000);
    assert.equal(rollback.calls, 0, "checked against this page's own cart (2), the removal waited for 0 and was undone");
    assert.equal(reconciles.length, 2, "the other tab's cart is reconciled by that tab, not here");
  });

  test("a cart another tab reported before this page's last one is older: it is ignored", async () => {
    let clock = 2000;
    const { sync } = makeSync({ now: () => clock });
    sync.definePush(() => {});
    await sync.cartChanged([{ id: "p1", quantity: 4 }]);
    sync.cartReportedElsewhere([{ id: "p1", quantity: 2 }], 1500); // read before this tab's products arrived
    sync.cartReportedElsewhere([{ id: "p1", quantity: 2 }], 2000); // the same moment: not newer either
    const rollback = rollbackSpy();
    sync.register([{ id: "p1", quantity: -2 }], { after: null, rollback }); // 4 - 2 = 2 at most
    clock = 3000;
    await sync.cartChanged([{ id: "p1", quantity: 2 }]);
    mock.timers.tick(5000);
    assert.equal(rollback.calls, 0);
  });

  test("a newer cart another tab reported settles the changes it shows", () => {
    const { sync } = makeSync({ now: () => 1000 });
    sync.definePush(() => {});
    sync.cartChanged([]);
    const rollback = rollbackSpy();
    sync.register([{ id: "p1", quantity: 2 }], { after: null, rollback });
    sync.cartReportedElsewhere([{ id: "p1", quantity: 2 }], 2000);
    mock.timers.tick(5000);
    assert.equal(rollback.calls, 0);
  });

  test("a newer cart another tab reported takes the place of a cart waiting here, and is reconciled once nothing waits", async () => {
    const { sync, reconciles } = makeSync({ now: () => 1000 });
    sync.definePush(() => {});
    await sync.cartChanged([]);
    reconciles.length = 0;
    sync.register([{ id: "p1", quantity: 2 }], { after: null, rollback: rollbackSpy() });
    const waiting = sync.cartChanged([{ id: "p9", quantity: 1 }]); // does not show the change yet: not reconciled
    await flush();
    assert.equal(reconciles.length, 0);
    // The other tab's cart is newer: it shows this tab's change and the other tab's own product (p5).
    sync.cartReportedElsewhere([{ id: "p1", quantity: 2 }, { id: "p5", quantity: 1 }, { id: "p9", quantity: 1 }], 2000);
    assert.deepEqual(reconciles.map((call) => call.cart), [[
      { id: "p1", quantity: 2 }, { id: "p5", quantity: 1 }, { id: "p9", quantity: 1 },
    ]], "the older cart, without p5, would take the other tab's recipe out");
    assert.equal(reconciles[0].at, 2000, "reconciled as reported when the other tab reported it");
    assert.equal(await waiting, "basket:1");
  });

  test("a reconcile still queued when a newer cart is reported in another tab is not sent, and answers null", async () => {
    const { sync, reconciles } = makeSync({ holdReconcile: true, now: () => 1000 });
    const answer = sync.cartChanged([{ id: "p1", quantity: 1 }]);
    // Its turn has not come (the basket's queue holds it) when the other tab's newer cart arrives.
    sync.cartReportedElsewhere([{ id: "p1", quantity: 1 }, { id: "p5", quantity: 1 }], 2000);
    const { guard } = reconciles[0];
    assert.equal(guard.current(), false, "sent now, it would take out the other tab's p5");
    const later = guard.later();
    reconciles[0].resolve(later); // the service answers the stale reconcile with guard.later(), as BasketService does
    assert.equal(await later, null);
    assert.equal(await answer, null);
    assert.equal(reconciles.length, 1);
  });

  test("a change another tab's cart kept out of reach is left to the reconcile, not undone; without one it is", async () => {
    let clock = 1000;
    const { sync, reconciles, rollbacksTold } = makeSync({ now: () => clock });
    sync.definePush(() => {});
    await sync.cartChanged([{ id: "p1", quantity: 2 }]);
    const removal = rollbackSpy();
    sync.register([{ id: "p1", quantity: -2 }], { after: null, rollback: removal }); // waits for 0
    // At the same moment the shopper put one more in the cart in another tab: no cart will show 0.
    sync.cartReportedElsewhere([{ id: "p1", quantity: 3 }], 2000);
    clock = 3000;
    const reconciled = sync.cartChanged([{ id: "p1", quantity: 1 }]); // waits: it does not show 0
    mock.timers.tick(5000);
    assert.equal(await reconciled, `basket:${reconciles.length}`, "the newest cart is reconciled once nothing waits");
    assert.equal(removal.calls, 0, "the retailer did follow: undoing it would say it did not");
    assert.equal(rollbacksTold.length, 0);
    assert.deepEqual(reconciles.at(-1).cart, [{ id: "p1", quantity: 1 }]);

    const addition = rollbackSpy();
    sync.register([{ id: "p1", quantity: 1 }], { after: null, rollback: addition }); // no other tab since
    mock.timers.tick(5000);
    assert.equal(addition.calls, 1);
  });

  test("a malformed cart, or one without its time, from another tab is ignored", () => {
    const { sync } = makeSync({ now: () => 1000 });
    sync.definePush(() => {});
    sync.cartChanged([{ id: "p1", quantity: 2 }]);
    sync.cartReportedElsewhere("junk", 2000);
    sync.cartReportedElsewhere([{ quantity: 1 }], 2000);
    sync.cartReportedElsewhere([{ id: "p1", quantity: 9 }], undefined);
    sync.cartReportedElsewhere([{ id: "p1", quantity: 9 }], Infinity);
    const rollback = rollbackSpy();
    sync.register([{ id: "p1", quantity: 1 }], { after: null, rollback }); // checked against 2: 3 at least
    sync.cartChanged([{ id: "p1", quantity: 3 }]);
    mock.timers.tick(5000);
    assert.equal(rollback.calls, 0, "taken, the cart of 9 would have asked for 10");
  });

  test("reset forgets the waiting changes (no rollback), the last cart, and answers waiting callers with null", async () => {
    const { sync, reconciles, rollbacksTold } = makeSync();
    sync.definePush(() => {});
    await sync.cartChanged([]);
    const rollback = rollbackSpy();
    sync.register([{ id: "p1", quantity: 2 }], { after: null, rollback });
    const waiting = sync.cartChanged([{ id: "p9", quantity: 1 }]);
    sync.reset();
    assert.equal(await waiting, null);
    assert.equal(sync.lastCart, null);
    mock.timers.tick(60_000);
    assert.equal(rollback.calls, 0);
    assert.equal(rollbacksTold.length, 0);
    assert.equal(reconciles.length, 1, "the forgotten cart is not reconciled either");
    // No cart seen any more: the next addition waits for the basket's quantity again.
    const next = rollbackSpy();
    sync.register([{ id: "p1", quantity: 1 }], { after: { products: [{ id: "p1", quantity: 1 }] }, rollback: next });
    assert.equal(await sync.cartChanged([{ id: "p1", quantity: 1 }]), "basket:2");
    mock.timers.tick(5000);
    assert.equal(next.calls, 0);
  });
});
