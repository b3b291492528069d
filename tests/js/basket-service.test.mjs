// Unit tests of prerender/static/sdk/basket.js `BasketService`, in Node (no browser), through the constructor's
// injected dependencies: a recording ApiClient double whose answers the test gives (or holds, to see what waits),
// the real `Pos` (sdk/pos.js: a State and nothing else), and small Session, Notices and Hooks doubles with the
// members the service uses. Covers the basket's load (and its reload for another store or shopper), the write
// queue (one write at a time, writes of a kind in call order; each answer published to `basket$`; a failed write
// does not block the next; whenIdle), the hook asked before an addition, the retailer's cart callbacks getting
// the answer's `changes` (outside the queue), `onAdded`, and the rollback with its `BasketSync`: the inverse
// operation of each write when the cart does not show the change within 5 s (or a callback fails), the user told,
// no rollback once a cart shows it, and the reconcile rules seen from the service (a stale cart is not sent; a
// deferred reconcile goes after the rollback). The 5 s limit runs on node:test's mock timers: nothing sleeps.
import { test, describe, beforeEach, afterEach, mock } from "node:test";
import assert from "node:assert/strict";

import { BasketService, emptyBasket } from "../../prerender/static/sdk/basket.js";
import { RETURN_RELOAD_MS } from "../../prerender/static/sdk/tabs.js";
import { Pos } from "../../prerender/static/sdk/pos.js";
import { ApiError } from "../../prerender/static/sdk/http.js";
import { ChannelHub, deferred, FakePage, FakeSession, FakeWindow, flush, supplierTabs } from "./support.mjs";

// sdk/page-calls.js (which every basket write goes through for the store) reads `document.readyState` when a
// write starts, to count its wait from the end of parsing: a parsed document is all it needs here.
globalThis.document ??= /** @type {any} */ ({ readyState: "complete" });

// Every test runs on mock timers (setTimeout only): BasketSync's 5 s limit passes with mock.timers.tick, and no
// real timer outlives a test (one would keep the run alive until it fires).
beforeEach(() => mock.timers.enable({ apis: ["setTimeout"] }));
afterEach(() => mock.timers.reset());

/**
 * A basket as the service answers it.
 * @param {Record<string, number | { guests: number, lines?: object[] }>} recipes recipe id -> guests (or entry)
 * @param {Record<string, number>} [products] product id -> quantity
 */
function basketOf(recipes, products = {}, storeId = "s1") {
  const entries = Object.entries(recipes).map(([id, entry]) => (typeof entry === "number"
    ? { recipe_id: id, guests: entry, lines: [] }
    : { recipe_id: id, lines: [], ...entry }));
  return {
    store_id: storeId,
    recipes: entries,
    products: Object.entries(products).map(([id, quantity]) => ({ id, quantity })),
    recipe_count: entries.length,
    total: 0,
  };
}

/**
 * ApiClient double (sdk/http.js): `request(method, path, options)` records the call and answers with
 * `answer(call)` (a value, a promise, or a throw). `hold()` makes the next matching calls wait for the test.
 */
class FakeClient {
  /** @type {{ method: string, path: string, options: any, held?: ReturnType<typeof deferred> }[]} */
  calls = [];
  #answer;

  /** @param {(call: any) => unknown} answer */
  constructor(answer) {
    this.#answer = answer;
  }

  request(method, path, options = {}) {
    const call = { method, path, options };
    this.calls.push(call);
    return Promise.resolve().then(() => this.#answer(call));
  }

  /** The calls other than the basket's loads, as "METHOD path". */
  writes() {
    return this.calls.filter((call) => !(call.method === "GET" && call.path === "/basket")).map((call) => `${call.method} ${call.path}`);
  }
}

/** Notices double (sdk/notices.js): records what the user is told. */
class FakeNotices {
  shown = [];
  errors = [];
  t(key) {
    return `text:${key}`;
  }
  show(text, kind = "info") {
    this.shown.push({ text, kind });
  }
  error(error, fallbackKey = "error.generic") {
    this.errors.push({ error, fallbackKey });
  }
}

/** Hooks double (sdk/hooks.js): records the questions; `refuse` makes it stop the actions. */
class FakeHooks {
  asked = [];
  refuse = null;
  async proceed(isLogged, isPosValid) {
    this.asked.push([isLogged, isPosValid]);
    if (this.refuse) throw this.refuse;
  }
}

const USER = { kind: "user", id: "u1", forbidProfiling: false };

/**
 * A BasketService on doubles. `answer(call)` answers the writes; the loads (GET /basket) answer `initial`
 * unless `answer` says otherwise (returns a value other than undefined).
 */
function setup({ answer = () => undefined, initial = basketOf({}), identity = USER, storeId = "s1", tabs = null } = {}) {
  const client = new FakeClient((call) => {
    const given = answer(call);
    if (given !== undefined) return given;
    if (call.method === "GET" && call.path === "/basket") return structuredClone(initial);
    throw new Error(`unexpected ${call.method} ${call.path}`);
  });
  const pos = new Pos();
  const session = new FakeSession(identity);
  const notices = new FakeNotices();
  const hooks = new FakeHooks();
  const added = [];
  const service = new BasketService({ client, pos, session, notices, hooks, onAdded: (count) => added.push(count), tabs });
  if (storeId !== undefined) pos.load(storeId);
  return { service, client, pos, session, notices, hooks, added };
}

/** Answers a held write: the call waits until the test resolves `call.held`. */
const held = (call) => {
  call.held = deferred();
  return call.held.promise;
};

describe("BasketService: the basket's load", () => {
  test("initialize loads GET /basket once for the store and shopper; basket$ and ready$ follow", async () => {
    const { service, client } = setup({ initial: basketOf({ r1: 2 }) });
    const [first, second] = await Promise.all([service.initialize(), service.initialize()]);
    assert.equal(first, second);
    assert.deepEqual(client.calls.map((call) => [call.method, call.path, call.options.query]), [["GET", "/basket", { store_id: "s1" }]]);
    assert.equal(service.basket$.value.recipes[0].recipe_id, "r1");
    assert.equal(service.ready$.value, true);
    assert.equal(service.entry("r1").guests, 2);
    const counts = [];
    service.recipeCount().subscribe((count) => counts.push(count));
    assert.deepEqual(counts, [1]);
  });

  test("recipe ids are published as strings, entries without lines get []", async () => {
    const { service } = setup({ initial: { ...basketOf({}), recipes: [{ recipe_id: 42, guests: 2 }], recipe_count: 1 } });
    await service.initialize();
    assert.deepEqual(service.basket$.value.recipes, [{ recipe_id: "42", guests: 2, lines: [] }]);
    const inBasket = [];
    service.inBasket$(42).subscribe((value) => inBasket.push(value));
    assert.deepEqual(inBasket, [true]);
  });

  test("without a credential the basket is empty and nothing is asked", async () => {
    const { service, client } = setup({ identity: null });
    assert.deepEqual(await service.initialize(), emptyBasket("s1"));
    assert.equal(client.calls.length, 0);
    assert.deepEqual(service.basket$.value, emptyBasket("s1"));
  });

  test("another store loads the basket again and drops the changes waiting for the cart", async () => {
    const { service, client, pos, notices } = setup({
      answer: (call) => (call.method === "POST" ? { basket: basketOf({ r1: 2 }, { p1: 1 }), changes: [{ id: "p1", quantity: 1 }] } : undefined),
    });
    service.sync.definePush(() => {});
    await service.initialize();
    await service.addRecipe("r1", 2);
    await pos.load("s2");
    await flush();
    assert.deepEqual(client.calls.filter((call) => call.method === "GET").map((call) => call.options.query.store_id), ["s1", "s2"]);
    mock.timers.tick(5000);
    await flush();
    assert.deepEqual(client.writes(), ["POST /basket/recipes"], "no rollback of a change made at the other store");
    assert.deepEqual(notices.shown, []);
  });

  test("another shopper gets their basket loaded; the same shopper with another profiling choice does not", async () => {
    const { service, client, session } = setup();
    await service.initialize();
    session.identity$.next({ ...USER, forbidProfiling: true });
    await flush();
    assert.equal(client.calls.length, 1);
    session.identity$.next({ kind: "user", id: "u2", forbidProfiling: false });
    await flush();
    assert.deepEqual(client.calls.map((call) => `${call.method} ${call.path}`), ["GET /basket", "GET /basket"]);
  });
});

describe("BasketService: the write queue", () => {
  test("writes go one at a time, in call order: the second is sent only once the first is answered", async () => {
    const { service, client } = setup({ answer: (call) => (call.method === "GET" ? undefined : held(call)) });
    await service.initialize();
    const first = service.addRecipe("r1", 4);
    const second = service.setGuests("r0", 3);
    await flush();
    assert.deepEqual(client.writes(), ["POST /basket/recipes"]);
    let secondDone = false;
    second.then(() => {
      secondDone = true;
    });
    client.calls.at(-1).held.resolve({ basket: basketOf({ r1: 4 }), changes: [] });
    await first;
    await flush();
    assert.deepEqual(client.writes(), ["POST /basket/recipes", "PATCH /basket/recipes/r0"]);
    assert.equal(secondDone, false);
    client.calls.at(-1).held.resolve({ basket: basketOf({ r0: 3, r1: 4 }), changes: [] });
    assert.equal((await second).basket.recipe_count, 2);
  });

  test("removals go one at a time, in call order, too", async () => {
    const { service, client } = setup({ answer: (call) => (call.method === "GET" ? undefined : held(call)) });
    await service.initialize();
    const first = service.removeRecipe("r1");
    const second = service.removeRecipe("r2");
    await flush();
    assert.deepEqual(client.writes(), ["DELETE /basket/recipes/r1"]);
    client.calls.at(-1).held.resolve({ basket: basketOf({ r2: 2 }), changes: [] });
    await first;
    await flush();
    assert.deepEqual(client.writes(), ["DELETE /basket/recipes/r1", "DELETE /basket/recipes/r2"]);
    client.calls.at(-1).held.resolve({ basket: basketOf({}), changes: [] });
    await second;
  });

  test("a write waits for the basket's load before it (the rollback needs the basket before the change)", async () => {
    const { service, client } = setup({ answer: (call) => (call.method === "GET" ? held(call) : { basket: basketOf({ r1: 4 }), changes: [] }) });
    const write = service.setGuests("r1", 4);
    await flush();
    assert.deepEqual(client.calls.map((call) => call.method), ["GET"]);
    client.calls[0].held.resolve(basketOf({ r1: 2 }));
    await write;
    assert.deepEqual(client.calls.map((call) => `${call.method} ${call.path}`), ["GET /basket", "PATCH /basket/recipes/r1"]);
    assert.deepEqual(client.calls[1].options.json, { guests: 4, store_id: "s1" });
    assert.equal(client.calls[1].options.write, true);
  });

  test("each answer updates basket$, in the order of the writes", async () => {
    const answers = [basketOf({ r1: 2 }), basketOf({ r1: 2, r2: 3 }), basketOf({ r1: 2, r2: 4 })];
    const { service } = setup({ answer: (call) => (call.method === "GET" ? undefined : { basket: answers.shift(), changes: [] }) });
    await service.initialize();
    const seen = [];
    service.basket$.subscribe((basket) => seen.push(basket.recipes.map((entry) => `${entry.recipe_id}x${entry.guests}`).join(",")));
    // Writes that all ask the page's hook first (the order of writes of one recipe across kinds: below).
    const writes = [service.addRecipe("r1", 2), service.addRecipe("r2", 3), service.setGuests("r2", 4)];
    const results = await Promise.all(writes);
    assert.deepEqual(seen, ["", "r1x2", "r1x2,r2x3", "r1x2,r2x4"]);
    assert.deepEqual(results.map((result) => result.basket.recipes.at(-1).guests), [2, 3, 4], "each write resolves with its own answer");
  });

  test("a failed write rejects with its error and does not block the next ones", async () => {
    const refused = new ApiError({ title: "Server error", status: 500 });
    let count = 0;
    const { service, client } = setup({
      answer: (call) => {
        if (call.method === "GET") return undefined;
        count += 1;
        if (count === 1) throw refused;
        return { basket: basketOf({ r2: 2 }), changes: [] };
      },
    });
    await service.initialize();
    const failing = service.addRecipe("r1", 2);
    const next = service.addRecipe("r2", 2);
    await assert.rejects(failing, (error) => error === refused);
    assert.equal((await next).basket.recipes[0].recipe_id, "r2");
    assert.equal(service.basket$.value.recipes[0].recipe_id, "r2");
    assert.deepEqual(client.writes(), ["POST /basket/recipes", "POST /basket/recipes"]);
  });

  test("whenIdle resolves once the queued calls are done, a failed one included", async () => {
    const write = deferred();
    const { service } = setup({ answer: (call) => (call.method === "GET" ? undefined : write.promise) });
    await service.initialize();
    const failing = service.removeRecipe("r1");
    failing.catch(() => {});
    await flush();
    let idle = false;
    service.whenIdle().then(() => {
      idle = true;
    });
    await flush();
    assert.equal(idle, false, "the write is still waiting for its answer");
    write.reject(new ApiError({ title: "Unavailable", status: 503 }));
    await assert.rejects(failing);
    await flush();
    assert.equal(idle, true);
  });

  test("a removal the service says is not in the basket (404) loads the basket again and is done without it", async () => {
    let shared = basketOf({ r1: 2, r2: 4 });
    const { service, client } = setup({
      answer: (call) => {
        if (call.method === "GET") return structuredClone(shared);
        throw new ApiError({ title: "Not found", status: 404, detail: "Recipe 'r1' is not in the basket." });
      },
    });
    await service.initialize();
    shared = basketOf({ r2: 4 }); // another tab took r1 out
    const answer = await service.removeRecipe("r1");
    assert.deepEqual(answer.changes, []);
    assert.deepEqual(service.basket$.value.recipes.map((entry) => entry.recipe_id), ["r2"]);
    assert.equal(client.calls.filter((call) => call.method === "GET").length, 2);
  });

  test("a removal answered 404 for a recipe the basket still holds rejects, with the basket loaded again", async () => {
    const { service, client } = setup({
      initial: basketOf({ r1: 2 }),
      answer: (call) => {
        if (call.method === "DELETE") throw new ApiError({ title: "Not found", status: 404 });
        return undefined;
      },
    });
    await service.initialize();
    await assert.rejects(service.removeRecipe("r1"), (error) => error.status === 404);
    assert.equal(client.calls.filter((call) => call.method === "GET").length, 2);
  });

  test("another write answered 404 or 409 loads the basket again, so that the page shows it as it is", async () => {
    let shared = basketOf({ r1: 2 });
    const { service, client } = setup({
      answer: (call) => {
        if (call.method === "GET") return structuredClone(shared);
        throw new ApiError({ title: "Conflict", status: call.method === "PATCH" ? 404 : 409 });
      },
    });
    await service.initialize();
    shared = basketOf({}); // emptied elsewhere
    await assert.rejects(service.setGuests("r1", 6), (error) => error.status === 404);
    await flush();
    assert.deepEqual(service.basket$.value.recipes, []);
    const loads = client.calls.filter((call) => call.method === "GET").length;
    await assert.rejects(service.addRecipe("r2", 2), (error) => error.status === 409);
    await flush();
    assert.equal(client.calls.filter((call) => call.method === "GET").length, loads + 1);
  });

  test("a recipe's removal asked while its addition waits for the page's hook reaches the service after it", async () => {
    const answers = { POST: basketOf({ r1: 2 }), DELETE: basketOf({}) };
    const { service, client, hooks } = setup({
      answer: (call) => (call.method === "GET" ? undefined : { basket: answers[call.method], changes: [] }),
    });
    await service.initialize();
    const answer = deferred();
    hooks.proceed = async () => answer.promise; // the page asks the shopper something first
    const adding = service.addRecipe("r1", 2);
    const removing = service.removeRecipe("r1");
    await flush();
    assert.deepEqual(client.writes(), [], "the removal waits for the addition's turn");
    answer.resolve();
    await Promise.all([adding, removing]);
    assert.deepEqual(client.writes(), ["POST /basket/recipes", "DELETE /basket/recipes/r1"]);
    assert.deepEqual(service.basket$.value.recipes, [], "removed, as last asked");
  });

  test("an addition the hook stops lets the recipe's next write go on; another recipe never waits for that hook", async () => {
    const { service, client, hooks } = setup({ answer: (call) => (call.method === "GET" ? undefined : { basket: basketOf({}), changes: [] }) });
    await service.initialize();
    const answer = deferred();
    hooks.proceed = async () => {
      if (!(await answer.promise)) throw new Error("stopped");
    };
    const adding = service.addRecipe("r1", 2);
    adding.catch(() => {});
    const removingOther = service.removeRecipe("r2");
    const removing = service.removeRecipe("r1");
    await removingOther;
    assert.deepEqual(client.writes(), ["DELETE /basket/recipes/r2"], "r2's removal went on while r1's hook waits");
    answer.resolve(false);
    await assert.rejects(adding);
    await removing;
    assert.deepEqual(client.writes(), ["DELETE /basket/recipes/r2", "DELETE /basket/recipes/r1"]);
  });

  test("the page's hook is asked before a write that adds products; its refusal stops the write, nothing sent", async () => {
    const { service, client, hooks } = setup({ answer: (call) => (call.method === "GET" ? undefined : { basket: basketOf({}), changes: [] }) });
    hooks.refuse = new Error("stopped");
    await assert.rejects(service.addRecipe("r1", 2), (error) => error === hooks.refuse);
    assert.deepEqual(hooks.asked, [[true, true]], "logged in (a user's credential), at a store");
    assert.deepEqual(client.writes(), []);
    await service.removeRecipe("r1"); // a removal asks nothing
    assert.deepEqual(hooks.asked.length, 1);
    assert.deepEqual(client.writes(), ["DELETE /basket/recipes/r1"]);
  });

  test("the write's request: recipe, guests, store and the shopper's choices in one POST", async () => {
    const { service, client } = setup({
      answer: (call) => (call.method === "GET" ? undefined : {
        basket: basketOf({ 1: { guests: 2, lines: [{ ingredient_id: "i1", product_id: "p7", quantity: 2 }] } }),
        changes: [],
      }),
    });
    await service.addRecipe(1, 2, [{ ingredient_id: 5, product_id: 7, quantity: 0 }, { ingredient_id: "i1", product_id: "p7", quantity: 2 }]);
    const post = client.calls.find((call) => call.method === "POST");
    assert.deepEqual(post.options.json, {
      recipe_id: "1", guests: 2, store_id: "s1",
      lines: [{ ingredient_id: "5", product_id: "7", quantity: 0 }, { ingredient_id: "i1", product_id: "p7", quantity: 2 }],
    });
    assert.deepEqual(client.writes(), ["POST /basket/recipes"], "the answer shows both choices: nothing more is sent");
  });

  test("choices the answer does not show (an older upstream) are set one line at a time after the add", async () => {
    const { service, client } = setup({
      answer: (call) => {
        if (call.method === "GET") return undefined;
        if (call.method === "POST") {
          return { basket: basketOf({ r1: { guests: 2, lines: [{ ingredient_id: "i1", product_id: "p1", quantity: 1 }] } }), changes: [] };
        }
        return { basket: basketOf({ r1: 2 }), changes: [] };
      },
    });
    await service.addRecipe("r1", 2, [{ ingredient_id: "i1", product_id: "p2", quantity: 3 }, { ingredient_id: "i9", product_id: "p9", quantity: 0 }]);
    assert.deepEqual(client.writes(), ["POST /basket/recipes", "PUT /basket/recipes/r1/ingredients/i1"]);
    assert.deepEqual(client.calls.at(-1).options.json, { product_id: "p2", quantity: 3, store_id: "s1" });
  });
});

describe("BasketService: the retailer's cart callbacks", () => {
  test("the push callback gets the answer's changes; onAdded gets how many products were added", async () => {
    const changes = [{ id: "p1", quantity: 2 }, { id: "p2", quantity: -1 }, { id: "p3", quantity: 1 }];
    const { service, added } = setup({ answer: (call) => (call.method === "GET" ? undefined : { basket: basketOf({ r1: 2 }), changes }) });
    const pushed = [];
    service.sync.definePush((given) => pushed.push(given));
    await service.addRecipe("r1", 2);
    await flush();
    assert.deepEqual(pushed, [changes]);
    assert.deepEqual(added, [2]);
  });

  test("a line's write carries the guests of the entry it makes when given, and leaves them out otherwise", async () => {
    const { service, client } = setup({ answer: (call) => (call.method === "PUT" ? { basket: basketOf({ r1: 5 }), changes: [] } : undefined) });
    await service.initialize();
    await service.setIngredient("r1", "i1", "p1", 2, 5);
    await service.setIngredient("r1", "i1", "p1", 3);
    assert.deepEqual(client.calls.filter((call) => call.method === "PUT").map((call) => call.options.json), [
      { product_id: "p1", quantity: 2, store_id: "s1", guests: 5 },
      { product_id: "p1", quantity: 3, store_id: "s1" },
    ]);
  });

  test("the add and remove callbacks get the additions, and the removals as quantities to remove", async () => {
    const { service } = setup({
      answer: (call) => (call.method === "GET" ? undefined : { basket: basketOf({}), changes: [{ id: "p1", quantity: -2 }, { id: "p2", quantity: 1 }] }),
    });
    const log = [];
    service.sync.defineAdd((products) => log.push(["add", products]));
    service.sync.defineRemove((products) => log.push(["remove", products]));
    await service.setIngredient("r1", "i1", "p2", 1);
    await flush();
    assert.deepEqual(log, [["add", [{ id: "p2", quantity: 1 }]], ["remove", [{ id: "p1", quantity: 2 }]]]);
  });

  test("the callbacks run outside the write queue: one that reports the cart at once settles the change", async () => {
    const after = basketOf({ r1: 2 }, { p1: 2 });
    const { service, client, notices } = setup({
      answer: (call) => {
        if (call.path === "/basket/recipes") return { basket: after, changes: [{ id: "p1", quantity: 2 }] };
        if (call.path === "/basket/reconcile") return { basket: after, changes: [] };
        return undefined;
      },
    });
    let reconciled;
    service.sync.definePush((changes) => {
      reconciled = service.sync.cartChanged(changes); // a shop whose cart follows synchronously
    });
    await service.addRecipe("r1", 2);
    await flush();
    assert.ok(reconciled, "the callback was called");
    assert.equal((await reconciled).recipes[0].recipe_id, "r1");
    assert.deepEqual(client.writes(), ["POST /basket/recipes", "POST /basket/reconcile"]);
    assert.deepEqual(withoutReport(client.calls.at(-1).options.json), { store_id: "s1", cart: [{ id: "p1", quantity: 2 }] });
    mock.timers.tick(60_000);
    await flush();
    assert.deepEqual(client.writes(), ["POST /basket/recipes", "POST /basket/reconcile"], "no rollback");
    assert.deepEqual([notices.shown, notices.errors], [[], []]);
  });
});

describe("BasketService: rollback", () => {
  /** A service whose cart reported `cart` at page start, and whose writes answer from `answers` by "METHOD path". */
  async function withCart({ initial, cart = [], answers }) {
    const ctx = setup({
      initial,
      answer: (call) => {
        if (call.method === "GET") return undefined;
        const key = `${call.method} ${call.path}`;
        if (key === "POST /basket/reconcile") return { basket: ctx.service.basket$.value, changes: [] };
        const given = answers[key];
        if (given === undefined) throw new Error(`unexpected ${key}`);
        return typeof given === "function" ? given(call) : given;
      },
    });
    ctx.service.sync.definePush(() => {});
    await ctx.service.sync.cartChanged(cart);
    return ctx;
  }

  test("an added recipe the cart does not show within 5 s is deleted again, and the user is told", async () => {
    const { service, client, notices } = await withCart({
      initial: basketOf({}),
      answers: {
        "POST /basket/recipes": { basket: basketOf({ r1: 2 }, { p1: 2 }), changes: [{ id: "p1", quantity: 2 }] },
        "DELETE /basket/recipes/r1": { basket: basketOf({}), changes: [{ id: "p1", quantity: -2 }] },
      },
    });
    await service.addRecipe("r1", 2);
    await flush();
    mock.timers.tick(4999);
    await flush();
    assert.deepEqual(client.writes(), ["POST /basket/reconcile", "POST /basket/recipes"]);
    assert.equal(service.entry("r1").guests, 2);
    mock.timers.tick(1);
    await flush();
    assert.deepEqual(client.writes(), ["POST /basket/reconcile", "POST /basket/recipes", "DELETE /basket/recipes/r1"]);
    assert.deepEqual(client.calls.at(-1).options.query, { store_id: "s1" });
    assert.equal(service.entry("r1"), undefined, "basket$ follows the rollback's answer");
    assert.deepEqual(notices.shown, [{ text: "text:basket.rollback", kind: "error" }]);
  });

  test("a rollback is not pushed to the retailer's cart", async () => {
    const { service } = await withCart({
      initial: basketOf({}),
      answers: {
        "POST /basket/recipes": { basket: basketOf({ r1: 2 }, { p1: 2 }), changes: [{ id: "p1", quantity: 2 }] },
        "DELETE /basket/recipes/r1": { basket: basketOf({}), changes: [{ id: "p1", quantity: -2 }] },
      },
    });
    const pushed = [];
    service.sync.definePush((changes) => pushed.push(changes));
    await service.addRecipe("r1", 2);
    mock.timers.tick(5000);
    await flush();
    assert.equal(service.entry("r1"), undefined);
    assert.deepEqual(pushed, [[{ id: "p1", quantity: 2 }]]);
  });

  test("a cart that shows the pushed quantities in time settles the change: no rollback", async () => {
    const { service, client, notices } = await withCart({
      initial: basketOf({}),
      cart: [{ id: "p1", quantity: 1 }],
      answers: { "POST /basket/recipes": { basket: basketOf({ r1: 2 }, { p1: 2 }), changes: [{ id: "p1", quantity: 2 }] } },
    });
    await service.addRecipe("r1", 2);
    mock.timers.tick(4000);
    await service.sync.cartChanged([{ id: "p1", quantity: 3 }]);
    mock.timers.tick(60_000);
    await flush();
    assert.deepEqual(client.writes(), ["POST /basket/reconcile", "POST /basket/recipes", "POST /basket/reconcile"]);
    assert.deepEqual(client.calls.at(-1).options.json.cart, [{ id: "p1", quantity: 3 }]);
    assert.deepEqual(notices.shown, []);
    assert.equal(service.entry("r1").guests, 2);
  });

  test("setGuests rolls back to the guests the entry had", async () => {
    const { service, client } = await withCart({
      initial: basketOf({ r1: 2 }, { p1: 1 }),
      cart: [{ id: "p1", quantity: 1 }],
      answers: {
        "PATCH /basket/recipes/r1": (call) => ({
          basket: basketOf({ r1: call.options.json.guests }, { p1: call.options.json.guests / 2 }),
          changes: [{ id: "p1", quantity: call.options.json.guests === 4 ? 1 : -1 }],
        }),
      },
    });
    await service.initialize();
    await service.setGuests("r1", 4);
    mock.timers.tick(5000);
    await flush();
    assert.deepEqual(client.writes().slice(1), ["PATCH /basket/recipes/r1", "PATCH /basket/recipes/r1"]);
    assert.deepEqual(client.calls.at(-1).options.json, { guests: 2, store_id: "s1" });
    assert.equal(service.entry("r1").guests, 2);
  });

  test("a removed recipe comes back as it was: its guests, then its lines as they were", async () => {
    const lines = [
      { ingredient_id: "i1", product_id: "p1", quantity: 1 },
      { ingredient_id: "i2", product_id: "p2", quantity: 2 },
    ];
    const { service, client } = await withCart({
      initial: basketOf({ r1: { guests: 3, lines } }, { p1: 1, p2: 2 }),
      cart: [{ id: "p1", quantity: 1 }, { id: "p2", quantity: 2 }],
      answers: {
        "DELETE /basket/recipes/r1": { basket: basketOf({}), changes: [{ id: "p1", quantity: -1 }, { id: "p2", quantity: -2 }] },
        // The recipe added again for its guests: the service's own choices, not the shopper's.
        "POST /basket/recipes": {
          basket: basketOf({ r1: { guests: 3, lines: [
            { ingredient_id: "i1", product_id: "p1", quantity: 2 },
            { ingredient_id: "i2", product_id: "p2", quantity: 2 },
            { ingredient_id: "i3", product_id: "p3", quantity: 1 },
          ] } }),
          changes: [],
        },
        "PUT /basket/recipes/r1/ingredients/i1": { basket: basketOf({ r1: 3 }), changes: [] },
        "PUT /basket/recipes/r1/ingredients/i3": { basket: basketOf({ r1: { guests: 3, lines } }), changes: [] },
      },
    });
    await service.initialize();
    await service.removeRecipe("r1");
    mock.timers.tick(5000);
    await flush();
    const rollback = client.calls.slice(-3);
    assert.deepEqual(rollback.map((call) => [`${call.method} ${call.path}`, call.options.json]), [
      ["POST /basket/recipes", { recipe_id: "r1", guests: 3, store_id: "s1" }],
      ["PUT /basket/recipes/r1/ingredients/i1", { product_id: "p1", quantity: 1, store_id: "s1" }],
      ["PUT /basket/recipes/r1/ingredients/i3", { product_id: "p3", quantity: 0, store_id: "s1" }],
    ]);
    assert.deepEqual(service.entry("r1").lines, lines);
  });

  test("setIngredient rolls back to the line as it was", async () => {
    const line = { ingredient_id: "i1", product_id: "p1", quantity: 1 };
    const { service, client } = await withCart({
      initial: basketOf({ r1: { guests: 2, lines: [line] } }, { p1: 1 }),
      cart: [{ id: "p1", quantity: 1 }],
      answers: {
        "PUT /basket/recipes/r1/ingredients/i1": (call) => ({
          basket: basketOf({ r1: { guests: 2, lines: [{ ingredient_id: "i1", ...call.options.json }] } }),
          changes: call.options.json.product_id === "p5" ? [{ id: "p1", quantity: -1 }, { id: "p5", quantity: 2 }] : [],
        }),
      },
    });
    await service.initialize();
    await service.setIngredient("r1", "i1", "p5", 2);
    mock.timers.tick(5000);
    await flush();
    assert.deepEqual(client.calls.at(-1).options.json, { product_id: "p1", quantity: 1, store_id: "s1" });
    assert.deepEqual(service.entry("r1").lines.map((l) => [l.product_id, l.quantity]), [["p1", 1]]);
  });

  test("a push callback that throws rolls the change back at once, the user told with its error", async () => {
    const failure = new Error("shop cart failed");
    const { service, client, notices, added } = await withCart({
      initial: basketOf({}),
      answers: {
        "POST /basket/recipes": { basket: basketOf({ r1: 2 }, { p1: 2 }), changes: [{ id: "p1", quantity: 2 }] },
        "DELETE /basket/recipes/r1": { basket: basketOf({}), changes: [] },
      },
    });
    service.sync.definePush(() => {
      throw failure;
    });
    await service.addRecipe("r1", 2);
    await flush();
    assert.deepEqual(client.writes().slice(-1), ["DELETE /basket/recipes/r1"], "without waiting for the time limit");
    assert.deepEqual(notices.errors, [{ error: failure, fallbackKey: "basket.rollback" }]);
    assert.deepEqual(notices.shown, []);
    assert.deepEqual(added, [], "nothing reached the cart: no 'added' message");
  });

  test("a rollback that fails does not block the next writes, and says the change could not be undone", async () => {
    const { service, client, notices } = await withCart({
      initial: basketOf({}),
      answers: {
        "POST /basket/recipes": (call) => ({ basket: basketOf({ [call.options.json.recipe_id]: 2 }), changes: [{ id: "p1", quantity: 1 }] }),
        "DELETE /basket/recipes/r1": () => {
          throw new ApiError({ title: "Bad gateway", status: 502 });
        },
      },
    });
    await service.addRecipe("r1", 2);
    mock.timers.tick(5000);
    await flush();
    assert.deepEqual(notices.shown, [{ text: "text:basket.rollback-failed", kind: "error" }], "not \"the change was undone\"");
    const answer = await service.addRecipe("r2", 2);
    assert.equal(answer.basket.recipes[0].recipe_id, "r2");
    assert.deepEqual(client.writes().slice(1), ["POST /basket/recipes", "DELETE /basket/recipes/r1", "POST /basket/recipes"]);
  });

  test("a rollback that finds nothing to undo (a 404: the recipe is not in the basket) is told as undone", async () => {
    const { service, notices } = await withCart({
      initial: basketOf({}),
      answers: {
        "POST /basket/recipes": { basket: basketOf({ r1: 2 }), changes: [{ id: "p1", quantity: 1 }] },
        "DELETE /basket/recipes/r1": () => {
          throw new ApiError({ title: "Not found", status: 404 });
        },
      },
    });
    await service.addRecipe("r1", 2);
    mock.timers.tick(5000);
    await flush();
    assert.deepEqual(notices.shown, [{ text: "text:basket.rollback", kind: "error" }]);
  });
});

/** A reconcile's body without its `reported`, once that says this browser reported the cart at a time. */
function withoutReport({ reported, ...body }) {
  assert.equal(reported.by, "browser-1", "the browser's id, the same in all its tabs");
  assert.ok(Number.isFinite(reported.at), "when the cart was reported");
  return body;
}

describe("BasketService: reconcile", () => {
  test("the reconcile says which browser reported the cart, and when", async () => {
    const { service, client } = setup({
      answer: (call) => (call.path === "/basket/reconcile" ? { basket: basketOf({}), changes: [] } : undefined),
    });
    await service.initialize();
    const before = Date.now();
    await service.sync.cartChanged([]);
    const { reported } = client.calls.at(-1).options.json;
    assert.equal(reported.by, "browser-1");
    assert.ok(reported.at >= before && reported.at <= Date.now(), "this browser's clock when the cart was reported");
  });

  test("a node of the release before refuses `reported`: the cart goes again without it, and is followed", async () => {
    const reconciled = basketOf({ r1: 2 }, { p1: 1 });
    const { service, client } = setup({
      answer: (call) => {
        if (call.path !== "/basket/reconcile") return undefined;
        if (call.options.json.reported) {
          throw new ApiError({ title: "Bad Request", status: 400, errors: { json: { reported: ["Unknown field."] } } });
        }
        return { basket: reconciled, changes: [] };
      },
    });
    await service.initialize();
    const basket = await service.sync.cartChanged([{ id: "p1", quantity: 1 }]);
    assert.deepEqual(basket, reconciled);
    const sent = client.calls.filter((call) => call.path === "/basket/reconcile").map((call) => call.options.json);
    assert.equal(sent.length, 2);
    assert.deepEqual(withoutReport(sent[0]), sent[1]);
  });

  test("a clock the route cannot take (before 1970) sends no report: the cart alone", async () => {
    const { service, client } = setup({
      answer: (call) => (call.path === "/basket/reconcile" ? { basket: basketOf({}), changes: [] } : undefined),
    });
    await service.initialize();
    mock.method(Date, "now", () => -86_400_000);
    try {
      await service.sync.cartChanged([]);
    } finally {
      mock.restoreAll();
    }
    assert.deepEqual(client.calls.at(-1).options.json, { store_id: "s1", cart: [] });
  });

  test("a 400 about anything else than `reported` is the reconcile's answer: not sent again", async () => {
    const { service, client } = setup({
      answer: (call) => {
        if (call.path !== "/basket/reconcile") return undefined;
        throw new ApiError({ title: "Bad Request", status: 400, errors: { json: { store_id: ["Unknown store."] } } });
      },
    });
    await service.initialize();
    await assert.rejects(service.sync.cartChanged([{ id: "p1", quantity: 1 }]), ApiError);
    assert.equal(client.calls.filter((call) => call.path === "/basket/reconcile").length, 1);
  });

  test("POST /basket/reconcile with the cart; its basket is published", async () => {
    const reconciled = basketOf({ r1: 2 }, { p1: 1 });
    const { service, client } = setup({
      initial: basketOf({ r1: 2 }, { p1: 2 }),
      answer: (call) => (call.path === "/basket/reconcile" ? { basket: reconciled, changes: [] } : undefined),
    });
    await service.initialize();
    const basket = await service.sync.cartChanged([{ id: "p1", quantity: 1 }]);
    assert.deepEqual(basket.products, [{ id: "p1", quantity: 1 }]);
    assert.deepEqual(withoutReport(client.calls.at(-1).options.json), { store_id: "s1", cart: [{ id: "p1", quantity: 1 }] });
    assert.deepEqual(service.basket$.value.products, [{ id: "p1", quantity: 1 }]);
  });

  test("the cart goes as the route takes it: whole quantities within its bounds, product ids only", async () => {
    const { service, client } = setup({
      answer: (call) => (call.path === "/basket/reconcile" ? { basket: basketOf({}), changes: [] } : undefined),
    });
    await service.initialize();
    // A product sold by weight, a bulk line, a retailer's own SKU with a space (the route refused the whole cart).
    await service.sync.cartChanged([{ id: "p1", quantity: 0.4 }, { id: "p2", quantity: 12_000 }, { id: "SKU 12", quantity: 1 }]);
    assert.deepEqual(client.calls.at(-1).options.json.cart, [{ id: "p1", quantity: 1 }, { id: "p2", quantity: 9_999 }]);
  });

  test("without a credential there is no basket to reconcile: nothing is sent", async () => {
    const { service, client } = setup({ identity: null });
    const basket = await service.sync.cartChanged([{ id: "p1", quantity: 1 }]);
    assert.deepEqual(basket, emptyBasket("s1"));
    assert.equal(client.calls.length, 0);
  });

  test("a cart reported while a write is in flight is not sent; the cart that shows the write's change is", async () => {
    const after = basketOf({ r1: 2 }, { p1: 2 });
    const { service, client } = setup({
      answer: (call) => {
        if (call.path === "/basket/recipes") return held(call);
        if (call.path === "/basket/reconcile") return { basket: after, changes: [] };
        return undefined;
      },
    });
    service.sync.definePush(() => {});
    await service.initialize();
    const write = service.addRecipe("r1", 2);
    await flush();
    // The page reports its cart (without the recipe's products) while the write waits for its answer.
    const stale = service.sync.cartChanged([]);
    await flush();
    client.calls.find((call) => call.path === "/basket/recipes").held.resolve({ basket: after, changes: [{ id: "p1", quantity: 2 }] });
    await write;
    await flush();
    assert.deepEqual(client.writes(), ["POST /basket/recipes"], "the older cart would take the new products back out");
    const fresh = service.sync.cartChanged([{ id: "p1", quantity: 2 }]);
    assert.equal(await stale, await fresh, "both callers get the reconcile of the newer cart");
    assert.deepEqual(client.writes(), ["POST /basket/recipes", "POST /basket/reconcile"]);
    assert.deepEqual(client.calls.at(-1).options.json.cart, [{ id: "p1", quantity: 2 }]);
    mock.timers.tick(5000);
    await flush();
    assert.deepEqual(client.writes(), ["POST /basket/recipes", "POST /basket/reconcile"], "settled: no rollback");
  });

  test("a cart that does not show a waiting change is reconciled only after the change is rolled back", async () => {
    const { service, client } = setup({
      answer: (call) => {
        const key = `${call.method} ${call.path}`;
        if (key === "POST /basket/recipes") return { basket: basketOf({ r1: 2 }, { p1: 2 }), changes: [{ id: "p1", quantity: 2 }] };
        if (key === "DELETE /basket/recipes/r1") return { basket: basketOf({}), changes: [] };
        if (key === "POST /basket/reconcile") return { basket: basketOf({}), changes: [] };
        return undefined;
      },
    });
    service.sync.definePush(() => {});
    await service.sync.cartChanged([]);
    await service.addRecipe("r1", 2);
    const reconciled = service.sync.cartChanged([{ id: "p8", quantity: 1 }]);
    await flush();
    assert.deepEqual(client.writes(), ["POST /basket/reconcile", "POST /basket/recipes"]);
    mock.timers.tick(5000);
    await reconciled;
    assert.deepEqual(client.writes(), ["POST /basket/reconcile", "POST /basket/recipes", "DELETE /basket/recipes/r1", "POST /basket/reconcile"],
      "the rollback reaches the service before the deferred reconcile");
    assert.deepEqual(client.calls.at(-1).options.json.cart, [{ id: "p8", quantity: 1 }]);
  });
});

describe("BasketService: payment", () => {
  const PAID = basketOf({ r1: 2 }, { p1: 2 });
  const confirmed = (call) => (call.path === "/baskets/handle-payment"
    ? { outcome: "confirmed", confirmed: true, basket_id: "b1" }
    : undefined);
  /** Whether a rejection is the SDK's own problem of this type (nothing sent). */
  const refused = (type) => (error) => error.problem.type === `about:blank#${type}` && error.status === 0;

  /** A service whose page reported the cart it paid for ([p1 × 2]), each payment answered as confirmed. */
  async function withReportedCart() {
    const made = setup({
      initial: PAID,
      answer: (call) => (call.path === "/basket/reconcile" ? { basket: PAID, changes: [] } : confirmed(call)),
    });
    await made.service.initialize();
    await made.service.sync.cartChanged([{ id: "p1", quantity: 2 }]);
    return made;
  }

  test("the paid cart is sent with the total and the order; a confirmation empties the basket", async () => {
    const { service, client } = setup({ initial: PAID, answer: confirmed });
    await service.initialize();
    const answer = await service.confirm(12.5, "o-1", [{ id: "p1", quantity: 2 }, { id: "p2", quantity: 1 }]);
    assert.equal(answer.outcome, "confirmed");
    const call = client.calls.at(-1);
    assert.equal(`${call.method} ${call.path}`, "POST /baskets/handle-payment");
    assert.deepEqual(call.options.json, { store_id: "s1", totalPrice: 12.5, products: [{ id: "p1", quantity: 2 }, { id: "p2", quantity: 1 }] });
    assert.deepEqual(call.options.query, { "order-id": "o-1" });
    assert.deepEqual(service.basket$.value, emptyBasket("s1"));
  });

  test("the paid cart goes as the route takes it: a bulk line at the route's 9 999, a weighed one whole", async () => {
    const { service, client } = setup({ initial: PAID, answer: confirmed });
    await service.initialize();
    await service.confirm(12.5, "o-1", [{ id: "p1", quantity: 10_000 }, { id: "p2", quantity: 1.2 }, { id: "", quantity: 1 }]);
    assert.deepEqual(client.calls.at(-1).options.json.products, [{ id: "p1", quantity: 9_999 }, { id: "p2", quantity: 2 }]);
  });

  test("a paid cart without any line is refused before anything is sent: the basket keeps its recipes", async () => {
    const { service, client } = setup({ initial: PAID, answer: confirmed });
    await service.initialize();
    await assert.rejects(service.confirm(0, "o-1"), refused("no-cart"), "no cart reported yet");
    await assert.rejects(service.confirm(12.5, "o-1", []), refused("empty-cart"));
    // The page reported an empty cart (a cart page that pays before it has loaded its lines).
    service.sync.cartChanged([]).catch(() => {});
    await assert.rejects(service.confirm(12.5, "o-1"), refused("empty-cart"));
    assert.deepEqual(client.writes().filter((write) => write !== "POST /basket/reconcile"), []);
    assert.deepEqual(service.basket$.value.recipes.map((entry) => entry.recipe_id), ["r1"]);
  });

  test("an empty cart on the confirmation page pays the cart paymentStarted kept", async () => {
    const { service, client, session } = await withReportedCart();
    assert.deepEqual(service.paymentStarted(9), { total: 9, lines: 1 });
    await service.confirm(9, "o-2", []);
    assert.deepEqual(client.calls.at(-1).options.json.products, [{ id: "p1", quantity: 2 }]);
    assert.equal(session.local.get("_svc/supplier-1/payment-started"), null, "the kept cart is done with once confirmed");
  });

  test("a kept cart is paid only for its own total and its own shopper", async () => {
    const { service, client, session } = await withReportedCart();
    service.paymentStarted(9); // a checkout left unpaid
    // Another order, of another total, on the confirmation page: not the kept cart.
    await assert.rejects(service.confirm(25, "o-3", []), refused("empty-cart"));
    assert.notEqual(session.local.get("_svc/supplier-1/payment-started"), null, "left for its own payment");
    // Another shopper on the same browser: not theirs, and forgotten.
    session.identity$.next({ kind: "user", id: "u2", forbidProfiling: false });
    await assert.rejects(service.confirm(9, "o-4", []), refused("empty-cart"));
    assert.equal(session.local.get("_svc/supplier-1/payment-started"), null);
    assert.deepEqual(client.writes().filter((write) => write === "POST /baskets/handle-payment"), []);
  });

  test("the confirmation page's empty cart, reported before handlePayment, leaves the paid basket to confirm", async () => {
    const { service, client } = await followingTheCart();
    service.paymentStarted(9);
    // The confirmation page reports its cart at start (empty: paid), then confirms the payment.
    const reconciles = client.writes().filter((write) => write === "POST /basket/reconcile").length;
    const basket = await service.sync.cartChanged([]);
    assert.equal(client.writes().filter((write) => write === "POST /basket/reconcile").length, reconciles,
      "an empty cart followed now would take every recipe out before the payment confirms them");
    assert.deepEqual(basket.recipes.map((entry) => entry.recipe_id), ["r1"]);
    const answer = await service.confirm(9, "o-6");
    assert.equal(answer.outcome, "confirmed");
    assert.deepEqual(client.calls.at(-1).options.json.products, [{ id: "p1", quantity: 2 }]);
    // Confirmed: the kept cart is done with, and the next empty cart is followed as any other.
    await service.sync.cartChanged([]);
    assert.equal(client.writes().filter((write) => write === "POST /basket/reconcile").length, reconciles + 1);
  });

  test("without a payment started, an empty cart is followed: the shopper emptied it", async () => {
    const { service, client } = await withReportedCart();
    await service.sync.cartChanged([]);
    assert.deepEqual(withoutReport(client.calls.at(-1).options.json), { store_id: "s1", cart: [] });
  });

  /** A service whose reconcile follows the cart as the service does: an empty cart empties the basket. */
  async function followingTheCart() {
    const made = setup({
      initial: PAID,
      answer: (call) => {
        if (call.path !== "/basket/reconcile") return confirmed(call);
        return { basket: call.options.json.cart.length ? PAID : basketOf({}), changes: [] };
      },
    });
    await made.service.initialize();
    await made.service.sync.cartChanged([{ id: "p1", quantity: 2 }]);
    return made;
  }
  const reconciled = (client) => client.calls.filter((call) => call.path === "/basket/reconcile").map((call) => call.options.json.cart);

  test("a checkout left unpaid, then a cart with other products: the kept cart is forgotten", async () => {
    const { service, client, session } = await followingTheCart();
    service.paymentStarted(9);
    await service.sync.cartChanged([{ id: "p1", quantity: 2 }]); // the checkout page again: still the kept cart
    assert.notEqual(session.local.get("_svc/supplier-1/payment-started"), null);
    await service.sync.cartChanged([{ id: "p1", quantity: 2 }, { id: "p3", quantity: 1 }]); // shopping again
    assert.equal(session.local.get("_svc/supplier-1/payment-started"), null);
    const basket = await service.sync.cartChanged([]);
    assert.deepEqual(reconciled(client).at(-1), [], "the shopper emptied the cart: followed");
    assert.deepEqual(basket.recipes, []);
  });

  test("an empty cart an hour after paymentStarted is followed, the payment still unconfirmed", async () => {
    mock.timers.reset();
    mock.timers.enable({ apis: ["setTimeout", "Date"], now: Date.UTC(2026, 0, 5, 10) });
    const { service, client } = await followingTheCart();
    service.paymentStarted(9);
    mock.timers.tick(3_600_001);
    await service.sync.cartChanged([]);
    assert.deepEqual(reconciled(client).at(-1), []);
  });

  test("basket.reset() forgets the kept cart: the shopper emptied the cart", async () => {
    const { service, session } = await withReportedCart();
    service.paymentStarted(9);
    await service.reset().catch(() => {}); // its removals are not what this test is about
    assert.equal(session.local.get("_svc/supplier-1/payment-started"), null);
  });

  test("a cart of nothing is no paid cart: paymentStarted keeps none", async () => {
    const { service, session } = setup({
      answer: (call) => (call.path === "/basket/reconcile" ? { basket: basketOf({}), changes: [] } : undefined),
    });
    await service.initialize();
    await service.sync.cartChanged([{ id: "p1", quantity: 0 }]);
    assert.deepEqual(service.paymentStarted(9), { total: 9, lines: 0 });
    assert.equal(session.local.get("_svc/supplier-1/payment-started"), null);
  });

  test("a confirmation page that has not loaded the basket loads it when its empty cart is held back", async () => {
    const first = await withReportedCart();
    first.service.paymentStarted(9);
    const page = setup({ initial: PAID, answer: confirmed }); // the next page: a new SDK, the same browser storage
    page.session.local.set("_svc/supplier-1/payment-started", first.session.local.get("_svc/supplier-1/payment-started"));
    const counts = [];
    page.service.recipeCount().subscribe((count) => counts.push(count));
    const basket = await page.service.sync.cartChanged([]);
    assert.deepEqual(page.client.writes(), [], "nothing reconciled");
    assert.deepEqual(basket.recipes.map((entry) => entry.recipe_id), ["r1"]);
    assert.deepEqual(counts, [1], "the page's counter shows the basket the service holds");
    assert.equal((await page.service.confirm(9, "o-7")).outcome, "confirmed");
  });

  test("another supplier's page of the site neither takes nor drops the kept cart", async () => {
    const first = await withReportedCart();
    first.service.paymentStarted(9);
    const kept = first.session.local.get("_svc/supplier-1/payment-started");
    // A brand of the same site, in another tab (the same browser storage): its own cart, reported empty.
    const brand = setup({ initial: basketOf({ r2: 4 }), answer: (call) => (call.path === "/basket/reconcile" ? { basket: basketOf({}), changes: [] } : undefined) });
    brand.session.supplier = "2";
    brand.session.local.set("_svc/supplier-1/payment-started", kept);
    await brand.service.initialize();
    await brand.service.sync.cartChanged([]);
    assert.deepEqual(brand.client.writes(), ["POST /basket/reconcile"], "its own cart followed");
    assert.equal(brand.session.local.get("_svc/supplier-1/payment-started"), kept, "the other supplier's kept cart stays");
  });

  test("a cart whose lines all have no quantity is an empty cart", async () => {
    const { service, client } = setup({ initial: PAID, answer: confirmed });
    await service.initialize();
    await assert.rejects(service.confirm(4, "o-5", [{ id: "p1", quantity: 0 }, { id: "p2", quantity: "0" }]),
      refused("empty-cart"));
    assert.deepEqual(client.writes(), []);
  });

  test("a cart of the retailer's own products only is still a paid cart: the basket follows it", async () => {
    const { service, client } = setup({ initial: PAID, answer: (call) => (call.path === "/baskets/handle-payment" ? { outcome: "empty", confirmed: false } : undefined) });
    await service.initialize();
    const answer = await service.confirm(3, "o-3", [{ id: "retailer sku 7", quantity: 1 }]);
    assert.equal(answer.outcome, "empty");
    assert.deepEqual(client.calls.filter((call) => call.path === "/baskets/handle-payment").map((call) => call.options.json.products), [[]]);
  });
});

describe("BasketService: the shopper's other tabs (sdk/tabs.js)", () => {
  /**
   * Two tabs of one shopper: two services on one channel hub, each with its page and the clock the test moves.
   * `shared` is the service's basket, which the writes of either tab change.
   */
  function twoTabs() {
    const hub = new ChannelHub();
    const clock = { now: 0 };
    let shared = basketOf({});
    const answer = (call) => {
      if (call.method === "GET" && call.path === "/basket") return structuredClone(shared);
      if (call.method === "POST" && call.path === "/basket/recipes") {
        const id = call.options.json.recipe_id;
        shared = basketOf({ ...Object.fromEntries(shared.recipes.map((entry) => [entry.recipe_id, entry.guests])), [id]: call.options.json.guests });
        return { basket: structuredClone(shared), changes: [] };
      }
      return undefined;
    };
    const tab = () => {
      const page = new FakePage();
      const lifecycle = new FakeWindow();
      const tabs = supplierTabs({ name: "_svc/tabs", open: hub.open, page, lifecycle, now: () => clock.now });
      /** @type {((call: any) => unknown) | null} a test's own answer for this tab's calls, before the shared one */
      const own = { answer: null };
      const tabAnswer = (call) => own.answer?.(call) ?? answer(call);
      return { page, lifecycle, own, ...setup({ answer: tabAnswer, tabs }) };
    };
    return { a: tab(), b: tab(), clock };
  }

  /** Two tabs whose baskets are loaded (in use). */
  const twoLoadedTabs = async () => {
    const tabs = twoTabs();
    await Promise.all([tabs.a.service.initialize(), tabs.b.service.initialize()]);
    return tabs;
  };

  const loads = (client) => client.calls.filter((call) => call.method === "GET" && call.path === "/basket").length;
  /** The baskets `service` publishes from now on (the current one first, at subscription). */
  const publishedBy = (service) => {
    const published = [];
    service.basket$.subscribe((basket) => published.push(basket));
    return published;
  };

  test("a write in one tab: the other loads the basket again and shows it; the writer does not", async () => {
    const { a, b } = await twoLoadedTabs();
    await a.service.addRecipe("r1", 4);
    await flush();
    assert.deepEqual(b.service.basket$.value.recipes.map((entry) => [entry.recipe_id, entry.guests]), [["r1", 4]]);
    assert.equal(loads(b.client), 2);
    assert.equal(loads(a.client), 1);
  });

  test("the cart one tab's page reports is what the other tab's changes are checked against; only it reconciles it", async () => {
    mock.timers.reset();
    mock.timers.enable({ apis: ["setTimeout", "Date"], now: 1_000_000 }); // the tabs' reports are ordered by Date.now
    const { a, b } = await twoLoadedTabs();
    await a.service.addRecipe("r1", 2);
    await flush();
    const reconciles = (client) => client.calls.filter((call) => call.path === "/basket/reconcile").length;
    for (const tab of [a, b]) {
      tab.own.answer = (call) => {
        if (call.path === "/basket/reconcile") return { basket: tab.service.basket$.value, changes: [] };
        if (call.method === "DELETE") return { basket: basketOf({}), changes: [{ id: "p1", quantity: -2 }] };
        return undefined;
      };
    }
    b.service.sync.definePush(() => {});
    await b.service.sync.cartChanged([{ id: "p1", quantity: 2 }]); // B's page, at load
    mock.timers.tick(1000);
    await a.service.sync.cartChanged([{ id: "p1", quantity: 3 }]); // one more of p1 put in the cart in A's page
    await flush();
    await b.service.removeRecipe("r1");
    mock.timers.tick(1000);
    await b.service.sync.cartChanged([{ id: "p1", quantity: 1 }]); // after B's removal: A's extra one stays
    mock.timers.tick(5000);
    await flush();
    assert.deepEqual(b.client.writes().filter((write) => !write.endsWith("/reconcile")), ["DELETE /basket/recipes/r1"],
      "checked against B's own cart (2), the removal waited for none of p1 and was undone");
    assert.equal(reconciles(a.client), 1);
    assert.equal(reconciles(b.client), 2, "A's cart is reconciled by A");
  });

  test("a page's cart is told with its shopper, and a tab acting for another shopper does not take it", async () => {
    const { a, b } = await twoLoadedTabs();
    a.own.answer = (call) => (call.path === "/basket/reconcile" ? { basket: basketOf({}), changes: [] } : undefined);
    const heard = [];
    b.service.sync.cartReportedElsewhere = (...args) => heard.push(args); // what reaches B's sync
    await a.service.sync.cartChanged([{ id: "12", quantity: 1 }]);
    await flush();
    assert.equal(heard.length, 1);
    assert.deepEqual(heard[0][0], [{ id: "12", quantity: 1 }]);
    b.session.identity$.next({ kind: "user", id: "u2", forbidProfiling: false });
    await flush();
    await a.service.sync.cartChanged([{ id: "12", quantity: 2 }]);
    await flush();
    assert.equal(heard.length, 1, "another shopper's cart");
  });

  test("a reconcile made stale by another tab's newer cart answers with the basket as it is", async () => {
    mock.timers.reset();
    mock.timers.enable({ apis: ["setTimeout", "Date"], now: 1_000_000 });
    const { a, b } = await twoLoadedTabs();
    const held = deferred();
    for (const tab of [a, b]) {
      tab.own.answer = (call) => {
        if (call.path === "/basket/reconcile") return { basket: basketOf({ r9: 2 }), changes: [] };
        if (call.method === "PATCH") return held.promise; // B's write, still on its way
        return undefined;
      };
    }
    const before = b.service.basket$.value;
    const writing = b.service.setGuests("r1", 3).catch(() => {});
    const reported = b.service.sync.cartChanged([{ id: "p1", quantity: 1 }]); // queued behind the write
    mock.timers.tick(1000);
    await a.service.sync.cartChanged([{ id: "p1", quantity: 1 }, { id: "p5", quantity: 1 }]);
    await flush();
    held.resolve({ basket: before, changes: [] });
    await writing;
    assert.equal(await reported, b.service.basket$.value, "not null: the retailer's page gets the basket");
    assert.equal(b.client.calls.filter((call) => call.path === "/basket/reconcile").length, 0,
      "B's older cart was not sent after A's newer one");
  });

  test("a hidden tab loads it once it shows again, however many writes it missed", async () => {
    const { a, b } = await twoLoadedTabs();
    b.page.hide();
    await a.service.addRecipe("r1", 4);
    await a.service.addRecipe("r2", 2);
    await flush();
    assert.equal(loads(b.client), 1);
    assert.deepEqual(b.service.basket$.value.recipes, []);
    b.page.show();
    await flush();
    assert.equal(loads(b.client), 2);
    assert.deepEqual(b.service.basket$.value.recipes.map((entry) => entry.recipe_id), ["r1", "r2"]);
  });

  test("a write that leaves the basket as it was is not announced", async () => {
    const { a, b } = await twoLoadedTabs();
    await a.service.addRecipe("r1", 4);
    await flush();
    const published = publishedBy(b.service);
    await a.service.addRecipe("r1", 4); // the same guests: the basket holds what it held
    await flush();
    assert.equal(loads(b.client), 2);
    assert.equal(published.length, 1); // the current value, at subscription
  });

  test("another shopper's basket changed elsewhere is not this tab's", async () => {
    const { a, b } = await twoLoadedTabs();
    b.session.identity$.next({ kind: "user", id: "u2", forbidProfiling: false });
    await flush();
    const before = loads(b.client);
    await a.service.addRecipe("r1", 4);
    await flush();
    assert.equal(loads(b.client), before);
  });

  test("a page back after a minute or more hidden loads the basket again; after less, it does not", async () => {
    const { a, clock } = twoTabs();
    await a.service.initialize();
    a.page.hide();
    clock.now += RETURN_RELOAD_MS - 1;
    a.page.show();
    await flush();
    assert.equal(loads(a.client), 1);
    a.page.hide();
    clock.now += RETURN_RELOAD_MS;
    a.page.show();
    await flush();
    assert.equal(loads(a.client), 2);
  });

  /** The client's loads fail as offline ones do (recorded, then failed) until `back()`. */
  const offlineLoads = (client) => {
    let offline = true;
    const original = client.request.bind(client);
    client.request = (method, path, options) => {
      const answered = original(method, path, options);
      if (!(offline && method === "GET")) return answered;
      return answered.then(() => Promise.reject(new ApiError({ type: "about:blank#network", title: "Failed to fetch", status: 0 })));
    };
    return { back: () => { offline = false; } };
  };

  /** A tab whose page shows again after a minute hidden while its network is not back: its load failed. */
  const wokeOffline = async () => {
    const { a, clock } = twoTabs();
    await a.service.initialize();
    a.page.hide();
    clock.now += RETURN_RELOAD_MS;
    const network = offlineLoads(a.client);
    a.page.show(); // a laptop woke: the tab shows before the network is back
    await flush();
    return { a, network };
  };

  test("a page back before its network: the failed load is tried again once the browser is online", async (t) => {
    const logged = t.mock.method(console, "warn", () => {});
    const { a, network } = await wokeOffline();
    assert.equal(loads(a.client), 2);
    assert.equal(logged.mock.callCount(), 1);
    network.back();
    await flush();
    assert.equal(loads(a.client), 2); // nothing retried on a timer
    a.page.hide();
    a.lifecycle.fire("online"); // hidden: the return will load it
    await flush();
    assert.equal(loads(a.client), 2);
    a.page.show();
    await flush();
    assert.equal(loads(a.client), 3);
    a.lifecycle.fire("online"); // up to date: nothing to load
    await flush();
    assert.equal(loads(a.client), 3);
  });

  test("the network back, a basket behind is loaded at once", async (t) => {
    t.mock.method(console, "warn", () => {});
    const { a, network } = await wokeOffline();
    network.back();
    a.lifecycle.fire("online");
    await flush();
    assert.equal(loads(a.client), 3);
  });

  test("a load the service refused (a 4xx) is not tried again at each return", async (t) => {
    const { a, clock } = twoTabs();
    await a.service.initialize();
    t.mock.method(console, "error", () => {});
    a.page.hide();
    clock.now += RETURN_RELOAD_MS;
    const original = a.client.request.bind(a.client);
    a.client.request = (method, path, options) => {
      const answered = original(method, path, options);
      return method === "GET" ? answered.then(() => Promise.reject(new ApiError({ title: "Unauthorized", status: 401 }))) : answered;
    };
    a.page.show();
    await flush();
    assert.equal(loads(a.client), 2);
    a.page.hide(); // a short switch of tabs: nothing to catch up
    a.page.show();
    a.lifecycle.fire("online");
    await flush();
    assert.equal(loads(a.client), 2);
  });

  test("a tab that never used its basket loads nothing for the others' writes", async () => {
    const { a, b } = twoTabs();
    await a.service.initialize();
    await a.service.addRecipe("r1", 4);
    await flush();
    assert.equal(loads(b.client), 0);
  });

  test("a failed load is logged (a warning: the service's 503), and the next message tries again", async (t) => {
    const { a, b } = await twoLoadedTabs();
    const logged = t.mock.method(console, "warn", () => {});
    let fail = true;
    const original = b.client.request.bind(b.client);
    b.client.request = (method, path, options) => (fail && method === "GET"
      ? Promise.reject(new ApiError({ status: 503, title: "Unavailable" }))
      : original(method, path, options));
    await a.service.addRecipe("r1", 4);
    await flush();
    assert.equal(logged.mock.callCount(), 1);
    assert.deepEqual(b.service.basket$.value.recipes, []);
    fail = false;
    await a.service.addRecipe("r2", 2);
    await flush();
    assert.deepEqual(b.service.basket$.value.recipes.map((entry) => entry.recipe_id), ["r1", "r2"]);
  });

  test("a page's first answer, its reconcile at load, is not told as a change", async () => {
    const { a, b } = twoTabs();
    await b.service.initialize();
    a.service.sync.definePush(() => {});
    a.own.answer = (call) => (call.path === "/basket/reconcile" ? { basket: basketOf({ r9: 2 }), changes: [] } : undefined);
    await a.service.sync.cartChanged([]);
    await flush();
    assert.equal(a.service.basket$.value.recipes[0].recipe_id, "r9");
    assert.equal(loads(b.client), 1);
  });

  test("a page back after a minute with the basket unchanged asks for it and publishes nothing", async () => {
    const { a, clock } = twoTabs();
    await a.service.initialize();
    const published = publishedBy(a.service);
    a.page.hide();
    clock.now += RETURN_RELOAD_MS;
    a.page.show();
    await flush();
    assert.equal(loads(a.client), 2);
    assert.equal(published.length, 1); // the current value, at subscription
  });

  test("the load waits for the tab's own write queued before it", async () => {
    const { a, b } = await twoLoadedTabs();
    b.own.answer = (call) => (call.method === "POST" ? held(call) : undefined);
    const write = b.service.addRecipe("r2", 2);
    await flush();
    b.own.answer = null;
    await a.service.addRecipe("r1", 4);
    await flush();
    assert.equal(loads(b.client), 1); // behind b's write, still unanswered
    const pending = b.client.calls.find((call) => call.method === "POST");
    pending.held.resolve({ basket: basketOf({ r2: 2 }), changes: [] });
    await write;
    await flush();
    assert.equal(loads(b.client), 2);
    assert.deepEqual(b.service.basket$.value.recipes.map((entry) => entry.recipe_id), ["r1"]);
  });

  test("a load answered after the shopper changed is not published: the new shopper's load answers", async () => {
    const { a, b } = await twoLoadedTabs();
    b.own.answer = (call) => (call.method === "GET" ? held(call) : undefined);
    await a.service.addRecipe("r1", 4);
    await flush();
    const catchUp = b.client.calls.at(-1);
    b.own.answer = (call) => (call.method === "GET" ? basketOf({ mine: 3 }) : undefined);
    const shown = [];
    b.service.basket$.subscribe((basket) => shown.push(basket.recipes.map((entry) => entry.recipe_id).join()));
    b.session.identity$.next({ kind: "user", id: "u2", forbidProfiling: false });
    catchUp.held.resolve(basketOf({ r1: 4 }));
    await flush();
    assert.deepEqual(shown, ["", "mine"]); // the first shopper's basket, then the new shopper's: never r1 for u2
  });
});

