// Unit tests of prerender/static/sdk/observable.js (`Observable`, `withThen`, `single`), in Node: the shape the
// maker's integrations subscribe to (docs/sdk.md, "Migrating from the maker's SDK") and svc.js uses
// (user.loadWithExternalId, setFavoriteItems); its Stream and State are in stream.test.mjs. Cold subscriptions;
// `subscribe(next)`, `subscribe(next, error, complete)`, `subscribe({next, error, complete})`; `{unsubscribe(),
// closed}`; teardown once (on unsubscribe, complete or error, also when the producer ends synchronously);
// nothing after the end; throwing observers logged; `single`: one value then complete (or error), also a
// promise, and no unhandled rejection when nobody subscribes.
import { test, describe } from "node:test";
import assert from "node:assert/strict";

import { Observable, withThen, single } from "../../prerender/static/sdk/observable.js";
import { flush } from "./support.mjs";

/** An observable whose sinks the test drives, counting producer runs and teardowns. */
function manual() {
  const sinks = [];
  const counts = { runs: 0, teardowns: 0 };
  const observable = new Observable((sink) => {
    counts.runs += 1;
    sinks.push(sink);
    return () => {
      counts.teardowns += 1;
    };
  });
  return { observable, sinks, counts };
}

/** A recording observer. */
function recorder() {
  const log = [];
  return {
    log,
    observer: {
      next: (value) => log.push(["next", value]),
      error: (error) => log.push(["error", error]),
      complete: () => log.push(["complete"]),
    },
  };
}

describe("Observable", () => {
  test("is cold: each subscription runs the producer with its own sink", () => {
    const { observable, sinks, counts } = manual();
    const a = recorder();
    const b = recorder();
    observable.subscribe(a.observer);
    observable.subscribe(b.observer);
    assert.equal(counts.runs, 2);
    sinks[0].next(1);
    sinks[1].next(2);
    assert.deepEqual(a.log, [["next", 1]]);
    assert.deepEqual(b.log, [["next", 2]]);
  });

  test("subscribe(next, error, complete) and subscribe({next, error, complete}) get the same calls", () => {
    const error = new Error("x");
    for (const subscribe of [
      (observable, { observer }) => observable.subscribe(observer.next, observer.error, observer.complete),
      (observable, { observer }) => observable.subscribe(observer),
    ]) {
      const ok = recorder();
      const { observable: one, sinks: okSinks } = manual();
      subscribe(one, ok);
      okSinks[0].next("v");
      okSinks[0].complete();
      assert.deepEqual(ok.log, [["next", "v"], ["complete"]]);

      const failed = recorder();
      const { observable: two, sinks: failedSinks } = manual();
      subscribe(two, failed);
      failedSinks[0].error(error);
      assert.deepEqual(failed.log, [["error", error]]);
    }
  });

  test("an observer object's callbacks are called with the observer as this", () => {
    const { observable, sinks } = manual();
    const observer = {
      log: [],
      next(value) {
        this.log.push(value);
      },
      complete() {
        this.log.push("done");
      },
    };
    observable.subscribe(observer);
    sinks[0].next(1);
    sinks[0].complete();
    assert.deepEqual(observer.log, [1, "done"]);
  });

  test("subscribe() without an observer runs the producer and ignores its values", () => {
    const { observable, sinks, counts } = manual();
    const subscription = observable.subscribe();
    assert.doesNotThrow(() => sinks[0].next(1));
    sinks[0].complete();
    assert.equal(counts.runs, 1);
    assert.equal(subscription.closed, true);
  });

  test("unsubscribe closes the subscription and runs the teardown once; later values are dropped", () => {
    const { observable, sinks, counts } = manual();
    const { log, observer } = recorder();
    const subscription = observable.subscribe(observer);
    assert.equal(subscription.closed, false);
    sinks[0].next(1);
    subscription.unsubscribe();
    subscription.unsubscribe();
    assert.equal(subscription.closed, true);
    assert.equal(counts.teardowns, 1);
    sinks[0].next(2);
    sinks[0].complete();
    assert.deepEqual(log, [["next", 1]]);
  });

  test("complete ends the subscription: teardown, closed, nothing after", () => {
    const { observable, sinks, counts } = manual();
    const { log, observer } = recorder();
    const subscription = observable.subscribe(observer);
    sinks[0].complete();
    sinks[0].next(1);
    sinks[0].error(new Error("late"));
    sinks[0].complete();
    assert.deepEqual(log, [["complete"]]);
    assert.equal(subscription.closed, true);
    assert.equal(counts.teardowns, 1);
  });

  test("error ends the subscription: teardown, the error callback, nothing after", () => {
    const { observable, sinks, counts } = manual();
    const { log, observer } = recorder();
    const error = new Error("refused");
    const subscription = observable.subscribe(observer);
    sinks[0].error(error);
    sinks[0].next(1);
    sinks[0].complete();
    assert.deepEqual(log, [["error", error]]);
    assert.equal(subscription.closed, true);
    assert.equal(counts.teardowns, 1);
  });

  test("an error without an error callback is logged, not thrown", (t) => {
    const logged = t.mock.method(console, "error", () => {});
    const { observable, sinks } = manual();
    observable.subscribe(() => {});
    assert.doesNotThrow(() => sinks[0].error(new Error("nobody listens")));
    assert.equal(logged.mock.callCount(), 1);
  });

  test("a producer that ends synchronously still has its teardown run", () => {
    let teardowns = 0;
    const seen = [];
    const observable = new Observable((sink) => {
      sink.next("at once");
      sink.complete();
      return () => {
        teardowns += 1;
      };
    });
    const subscription = observable.subscribe((value) => seen.push(value));
    assert.deepEqual(seen, ["at once"]);
    assert.equal(subscription.closed, true);
    assert.equal(teardowns, 1);
  });

  test("a throwing observer is logged and the subscription goes on", (t) => {
    const logged = t.mock.method(console, "error", () => {});
    const { observable, sinks } = manual();
    const seen = [];
    observable.subscribe((value) => {
      seen.push(value);
      throw new Error("customer's bug");
    });
    sinks[0].next(1);
    sinks[0].next(2);
    assert.deepEqual(seen, [1, 2]);
    assert.equal(logged.mock.callCount(), 2);
  });
});

describe("withThen", () => {
  test("the observable itself, also a promise of the other value", async () => {
    const { observable, sinks } = manual();
    const both = withThen(observable, Promise.resolve("recorded"));
    assert.equal(both, observable);
    assert.equal(await both, "recorded");
    assert.equal(await both.finally(() => {}), "recorded");
    const seen = [];
    both.subscribe((value) => seen.push(value));
    sinks[0].next("identity");
    assert.deepEqual(seen, ["identity"]);
  });

  test("catch follows the promise's rejection", async () => {
    const error = new Error("bad id");
    const both = withThen(new Observable(() => {}), Promise.reject(error));
    assert.equal(await both.catch((reason) => reason), error);
  });
});

describe("single", () => {
  test("emits the result then completes; awaiting it gives the result", async () => {
    const result = single(Promise.resolve(42));
    const { log, observer } = recorder();
    const subscription = result.subscribe(observer);
    await flush();
    assert.deepEqual(log, [["next", 42], ["complete"]]);
    assert.equal(subscription.closed, true);
    assert.equal(await result, 42);
  });

  test("a rejection is the error callback, and rejects the promise", async () => {
    const error = new Error("refused");
    const result = single(Promise.reject(error));
    const { log, observer } = recorder();
    result.subscribe(observer);
    await flush();
    assert.deepEqual(log, [["error", error]]);
    await assert.rejects(result, (reason) => reason === error);
  });

  test("each subscriber gets the result", async () => {
    const result = single(Promise.resolve("x"));
    const a = [];
    const b = [];
    result.subscribe((value) => a.push(value));
    result.subscribe((value) => b.push(value));
    await flush();
    assert.deepEqual([a, b], [["x"], ["x"]]);
  });

  test("unsubscribed before the result: nothing is emitted", async () => {
    let resolve;
    const result = single(new Promise((r) => {
      resolve = r;
    }));
    const { log, observer } = recorder();
    result.subscribe(observer).unsubscribe();
    resolve("late");
    await flush();
    assert.deepEqual(log, []);
  });

  test("a rejection nobody subscribes to or awaits is not an unhandled rejection", async () => {
    const unhandled = [];
    const onUnhandled = (reason) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      single(Promise.reject(new Error("ignored")));
      await flush();
      await flush();
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
    assert.deepEqual(unhandled, []);
  });
});
