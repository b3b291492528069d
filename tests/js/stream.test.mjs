// Unit tests of prerender/static/sdk/observable.js's `Stream` and `State`, in Node: the public behaviour the rest
// of prerender/static relies on (they were sdk/stream.js before the SDK had one observable). `subscribe` with a
// function or an observer object `{next}` returning `{unsubscribe()}`, multicast, late subscribers, a throwing listener that
// breaks nothing, unsubscribing from inside a listener (State.first, transfer.js's firstMatching), `observed`
// (planner.js); State's current value (`value`, `hasValue`, sent at once on subscribe, before `subscribe`
// returns), `next` emitting every value (Pos.load and GuestCounts.set skip repeats themselves), `map` (emits on
// change only, per subscriber; `value`), `first()`.
import { test, describe } from "node:test";
import assert from "node:assert/strict";

import { Observable, Stream, State } from "../../prerender/static/sdk/observable.js";

describe("Stream", () => {
  test("subscribers get every value emitted after they subscribed, in order", () => {
    const stream = new Stream();
    const a = [];
    const b = [];
    stream.next(0); // nobody listens: lost
    stream.subscribe((value) => a.push(value));
    stream.next(1);
    stream.subscribe((value) => b.push(value));
    stream.next(2);
    assert.deepEqual(a, [1, 2]);
    assert.deepEqual(b, [2], "a late subscriber sees only later values");
  });

  test("an observer object's next is called with the observer as this; one without next is accepted", () => {
    const stream = new Stream();
    const observer = {
      seen: [],
      next(value) {
        this.seen.push(value);
      },
    };
    stream.subscribe(observer);
    stream.subscribe({});
    stream.next("x");
    assert.deepEqual(observer.seen, ["x"]);
  });

  test("subscribe refuses what is neither a function, an object nor absent", () => {
    const stream = new Stream();
    for (const bad of [42, "next", true]) assert.throws(() => stream.subscribe(bad), TypeError);
    assert.equal(stream.observed, false);
  });

  test("subscribe() without an observer subscribes and ignores the values, as any observable", () => {
    const stream = new Stream();
    const subscription = stream.subscribe();
    stream.next(1);
    assert.equal(stream.observed, true);
    subscription.unsubscribe();
    assert.equal(stream.observed, false);
    assert.equal(subscription.closed, true);
  });

  test("a Stream and a State are observables: error-free, they take the three-callback form too", () => {
    const state = new State(1);
    assert.ok(state instanceof Observable && new Stream() instanceof Observable);
    const seen = [];
    state.subscribe((value) => seen.push(value), () => seen.push("error"), () => seen.push("complete"));
    state.next(2);
    assert.deepEqual(seen, [1, 2]);
  });

  test("unsubscribe stops the values; calling it twice is harmless", () => {
    const stream = new Stream();
    const seen = [];
    const subscription = stream.subscribe((value) => seen.push(value));
    stream.next(1);
    subscription.unsubscribe();
    subscription.unsubscribe();
    stream.next(2);
    assert.deepEqual(seen, [1]);
  });

  test("the same function subscribed twice is two subscriptions, each unsubscribed on its own", () => {
    const stream = new Stream();
    const seen = [];
    const listener = (value) => seen.push(value);
    const first = stream.subscribe(listener);
    stream.subscribe(listener);
    stream.next(1);
    first.unsubscribe();
    stream.next(2);
    assert.deepEqual(seen, [1, 1, 2]);
  });

  test("a throwing listener is logged and the others still get the value", (t) => {
    const logged = t.mock.method(console, "error", () => {});
    const stream = new Stream();
    const seen = [];
    stream.subscribe(() => {
      throw new Error("customer's bug");
    });
    stream.subscribe((value) => seen.push(value));
    assert.doesNotThrow(() => stream.next(1));
    assert.deepEqual(seen, [1]);
    assert.equal(logged.mock.callCount(), 1);
  });

  test("a listener may unsubscribe itself while it is called: it gets no later value", () => {
    const stream = new Stream();
    const seen = [];
    const subscription = stream.subscribe((value) => {
      seen.push(value);
      subscription.unsubscribe();
    });
    stream.next(1);
    stream.next(2);
    assert.deepEqual(seen, [1]);
    assert.equal(stream.observed, false);
  });

  test("observed says whether anything subscribes now", () => {
    const stream = new Stream();
    assert.equal(stream.observed, false);
    const one = stream.subscribe(() => {});
    const two = stream.subscribe({ next() {} });
    assert.equal(stream.observed, true);
    one.unsubscribe();
    assert.equal(stream.observed, true);
    two.unsubscribe();
    assert.equal(stream.observed, false);
  });
});

describe("State", () => {
  test("without an initial value: no value, and a subscriber gets nothing until the first next", () => {
    const state = new State();
    assert.equal(state.hasValue, false);
    assert.equal(state.value, undefined);
    const seen = [];
    state.subscribe((value) => seen.push(value));
    assert.deepEqual(seen, []);
    state.next("a");
    assert.deepEqual(seen, ["a"]);
    assert.equal(state.hasValue, true);
    assert.equal(state.value, "a");
  });

  test("an initial value, even null or undefined, is a current value", () => {
    for (const initial of [0, null, undefined, false]) {
      const state = new State(initial);
      assert.equal(state.hasValue, true);
      assert.equal(state.value, initial);
      const seen = [];
      state.subscribe((value) => seen.push(value));
      assert.deepEqual(seen, [initial]);
    }
  });

  test("a subscriber gets the current value at once, before subscribe returns, then every change", () => {
    const state = new State(1);
    const seen = [];
    let returned = false;
    const subscription = state.subscribe((value) => seen.push([value, returned]));
    returned = true;
    state.next(2);
    assert.deepEqual(seen, [[1, false], [2, true]]);
    subscription.unsubscribe();
    state.next(3);
    assert.equal(seen.length, 2);
  });

  test("an observer object gets the current value too", () => {
    const state = new State("now");
    const seen = [];
    state.subscribe({ next: (value) => seen.push(value) });
    assert.deepEqual(seen, ["now"]);
  });

  test("next emits every value it is given, a repeated one included (callers skip repeats themselves)", () => {
    const state = new State(1);
    const seen = [];
    state.subscribe((value) => seen.push(value));
    state.next(1);
    state.next(1);
    assert.deepEqual(seen, [1, 1, 1]);
  });

  test("a listener that throws on the current value does not break subscribe", (t) => {
    const logged = t.mock.method(console, "error", () => {});
    const state = new State(1);
    let subscription;
    assert.doesNotThrow(() => {
      subscription = state.subscribe(() => {
        throw new Error("boom");
      });
    });
    assert.equal(typeof subscription.unsubscribe, "function");
    assert.equal(logged.mock.callCount(), 1);
  });

  test("a State is a Stream (same subscribe shape, observed)", () => {
    const state = new State();
    assert.ok(state instanceof Stream);
    const subscription = state.subscribe(() => {});
    assert.equal(state.observed, true);
    subscription.unsubscribe();
    assert.equal(state.observed, false);
  });

  describe("map", () => {
    test("emits the projection of the current value at once, then only when the projection changes", () => {
      const basket$ = new State({ recipes: ["a"] });
      const count$ = basket$.map((basket) => basket.recipes.length);
      const seen = [];
      count$.subscribe((count) => seen.push(count));
      basket$.next({ recipes: ["b"] }); // still 1
      basket$.next({ recipes: ["b", "c"] });
      basket$.next({ recipes: ["c", "d"] }); // still 2
      basket$.next({ recipes: [] });
      assert.deepEqual(seen, [1, 2, 0]);
    });

    test("changes are told apart with Object.is (NaN repeats nothing; 0 and -0 differ)", () => {
      const source = new State(0);
      const seen = [];
      source.map((value) => value).subscribe((value) => seen.push(value));
      source.next(-0);
      source.next(NaN);
      source.next(NaN);
      assert.equal(seen.length, 3);
      assert.ok(Object.is(seen[1], -0));
      assert.ok(Number.isNaN(seen[2]));
    });

    test("each subscriber of a mapped state gets its own first value and its own changes", () => {
      const source = new State(1);
      const parity$ = source.map((value) => value % 2);
      const a = [];
      const b = [];
      parity$.subscribe((value) => a.push(value));
      source.next(3);
      parity$.subscribe((value) => b.push(value));
      source.next(4);
      assert.deepEqual(a, [1, 0]);
      assert.deepEqual(b, [1, 0]);
    });

    test("value is the projection of the source's current value, undefined without one", () => {
      const source = new State();
      const upper$ = source.map((text) => text.toUpperCase());
      assert.equal(upper$.value, undefined);
      source.next("a");
      assert.equal(upper$.value, "A");
      source.next("b");
      assert.equal(upper$.value, "B", "read from the source, with or without subscribers");
    });

    test("a mapped state of a State without value emits from its first value on", () => {
      const source = new State();
      const seen = [];
      source.map((value) => value * 10).subscribe((value) => seen.push(value));
      assert.deepEqual(seen, []);
      source.next(1);
      assert.deepEqual(seen, [10]);
    });

    test("subscribe takes an observer object; unsubscribe stops the values and frees the source", () => {
      const source = new State(1);
      const seen = [];
      const subscription = source.map((value) => value + 1).subscribe({ next: (value) => seen.push(value) });
      source.next(2);
      subscription.unsubscribe();
      source.next(3);
      assert.deepEqual(seen, [2, 3]);
      assert.equal(source.observed, false);
    });

    test("a throwing projection is logged, like a throwing listener", (t) => {
      const logged = t.mock.method(console, "error", () => {});
      const source = new State({ ok: true });
      const seen = [];
      source.map((value) => {
        if (!value.ok) throw new Error("bad");
        return "fine";
      }).subscribe((value) => seen.push(value));
      assert.doesNotThrow(() => source.next({ ok: false }));
      assert.deepEqual(seen, ["fine"]);
      assert.equal(logged.mock.callCount(), 1);
    });
  });

  describe("first", () => {
    test("resolves with the current value when there is one", async () => {
      assert.equal(await new State("s1").first(), "s1");
      assert.equal(await new State(null).first(), null, "null is a value (Pos: no store)");
    });

    test("otherwise resolves with the next value, and stops listening", async () => {
      const state = new State();
      const first = state.first();
      assert.equal(state.observed, true);
      state.next("a");
      state.next("b");
      assert.equal(await first, "a");
      assert.equal(state.observed, false);
    });
  });
});
