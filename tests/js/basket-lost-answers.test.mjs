// Unit tests of what prerender/static/sdk/basket.js does with a basket write that got no answer (sdk/write-keys.js):
// the same write asked again goes with its key, a kept key's answer is published as the basket is now (an addition the
// service took out since goes again as a new write), the keys go with a reset, a payment, another store, an arrival
// and a return after a while away, nothing is sent again by itself, and the basket follows the newest cart 32 s later. Against a fake coreapi that does what docs/upstream.md says (the
// parts these tests need): each key's outcome stored with the request it answered (another request with the key:
// 422), `CATCH_UP` on reconcile (a recipe the cart lacks leaves 30 s after its write), a payment emptying the basket.
// Written from a review's reproductions, each of which failed on the code before. Mock timers and clock: nothing sleeps.
import { test, describe, beforeEach, afterEach, mock } from "node:test";
import assert from "node:assert/strict";

import { BasketService } from "../../prerender/static/sdk/basket.js";
import { Pos } from "../../prerender/static/sdk/pos.js";
import { ApiError } from "../../prerender/static/sdk/http.js";
import { ChannelHub, deferred, FakePage, FakeSession, flush, supplierTabs } from "./support.mjs";

// sdk/page-calls.js reads `document.readyState` when a write starts: a parsed document is all it needs here.
globalThis.document ??= /** @type {any} */ ({ readyState: "complete" });

beforeEach(() => mock.timers.enable({ apis: ["setTimeout", "Date"], now: 1_000_000 }));
afterEach(() => mock.timers.reset());

const NETWORK = () => new ApiError({ type: "about:blank#network", title: "Network error", status: 0 });
/** Each recipe's products. */
const PRODUCTS = { r1: { p1: 2 }, r2: { p2: 1 } };

/**
 * coreapi as docs/upstream.md describes it, on a network the test breaks: `lose` loses the answers of the writes that
 * reach it (applied all the same), `down` keeps every request from it, `hold` keeps the next answer until it resolves,
 * `getFails` fails that many basket reads.
 */
function fakeCoreapi() {
  const net = { lose: false, down: false, getFails: 0, /** @type {null | (() => Promise<void>)} */ hold: null };
  /** @type {Map<string, { guests: number, askedAt: number }>} */
  let recipes = new Map();
  const outcomes = new Map();
  const applied = [];
  const basket = () => {
    const products = new Map();
    for (const id of recipes.keys()) {
      for (const [product, quantity] of Object.entries(PRODUCTS[id])) products.set(product, (products.get(product) ?? 0) + quantity);
    }
    return {
      store_id: "s1",
      recipe_count: recipes.size,
      total: 0,
      recipes: [...recipes].map(([id, entry]) => ({ recipe_id: id, guests: entry.guests, lines: [] })),
      products: [...products].map(([id, quantity]) => ({ id, quantity })),
    };
  };
  const changesOf = (id, sign) => Object.entries(PRODUCTS[id]).map(([product, quantity]) => ({ id: product, quantity: sign * quantity }));
  /** @returns {{ status: number, body: any }} */
  function apply({ method, path, options }) {
    applied.push(`${method} ${path}`);
    if (method === "POST" && path === "/basket/recipes") {
      const id = options.json.recipe_id;
      const had = recipes.has(id);
      recipes.set(id, { guests: options.json.guests, askedAt: Date.now() });
      return { status: 200, body: { basket: basket(), changes: had ? [] : changesOf(id, 1) } };
    }
    const recipe = path.match(/^\/basket\/recipes\/([^/]+)$/);
    if (method === "DELETE" && recipe) {
      if (!recipes.has(recipe[1])) return { status: 404, body: { type: "about:blank", title: "Not Found", status: 404 } };
      recipes.delete(recipe[1]);
      return { status: 200, body: { basket: basket(), changes: changesOf(recipe[1], -1) } };
    }
    if (method === "PATCH" && recipe) {
      if (!recipes.has(recipe[1])) return { status: 404, body: { type: "about:blank", title: "Not Found", status: 404 } };
      recipes.set(recipe[1], { ...recipes.get(recipe[1]), guests: options.json.guests });
      return { status: 200, body: { basket: basket(), changes: [] } };
    }
    if (method === "POST" && path === "/menu/current/finalize") { // the planner's menu: r1 for 2
      const had = recipes.has("r1");
      if (!had) recipes.set("r1", { guests: 2, askedAt: Date.now() });
      return { status: 200, body: { basket: basket(), changes: had ? [] : changesOf("r1", 1) } };
    }
    if (method === "POST" && path === "/baskets/handle-payment") {
      recipes = new Map(); // confirmed: the shopper starts an empty basket
      return { status: 200, body: { outcome: "confirmed", confirmed: true, basket_id: "b1" } };
    }
    if (method === "POST" && path === "/basket/recipes/refused") {
      return { status: 400, body: { type: "about:blank", title: "Bad Request", status: 400 } };
    }
    throw new Error(`unexpected ${method} ${path}`);
  }
  async function answer(call) {
    const { method, path, options } = call;
    if (net.down) throw NETWORK();
    if (method === "GET" && path === "/basket") {
      if (net.getFails > 0) {
        net.getFails -= 1;
        throw NETWORK();
      }
      return basket();
    }
    if (path === "/basket/reconcile") {
      const cart = new Map(options.json.cart.map((line) => [line.id, line.quantity]));
      for (const [id, entry] of [...recipes]) {
        const lacks = Object.entries(PRODUCTS[id]).some(([product, quantity]) => (cart.get(product) ?? 0) < quantity);
        if (lacks && Date.now() - entry.askedAt >= 30_000) recipes.delete(id); // CATCH_UP over: the basket follows the cart
      }
      return { basket: basket(), changes: [] };
    }
    const key = options.idempotencyKey;
    const request = JSON.stringify([method, path, options.query ?? null, options.json ?? null]);
    let stored = key ? outcomes.get(key) : undefined;
    if (stored && stored.request !== request) {
      throw new ApiError({ type: "about:blank", title: "Unprocessable", status: 422, errors: { headers: { "Idempotency-Key": ["Used for another request."] } } });
    }
    if (!stored) {
      stored = { request, ...apply(call) };
      if (key) outcomes.set(key, stored);
    }
    if (net.hold) {
      const hold = net.hold;
      net.hold = null;
      await hold();
    }
    if (net.lose) throw NETWORK();
    if (stored.status !== 200) throw new ApiError(structuredClone(stored.body));
    return structuredClone(stored.body);
  }
  return { net, applied, recipeIds: () => [...recipes.keys()].sort(), guestsOf: (id) => recipes.get(id)?.guests, answer };
}

/**
 * `write` gets no answer: with `lose`, the service applies it and its answers are lost; with `down`, it never reaches
 * the service. The SDK rejects it (told as failed); the network is back afterwards.
 * @param {ReturnType<typeof fakeCoreapi>} api @param {"lose" | "down"} mode @param {() => Promise<unknown>} write
 */
async function withoutAnswer(api, mode, write) {
  api.net[mode] = true;
  await assert.rejects(write());
  api.net[mode] = false;
}

/**
 * A BasketService on the fake coreapi, at store s1, whose page reported an empty cart at start (`tabs`: the shopper's
 * other tabs, sdk/tabs.js; `intercept(call, send)`: the network between them, to lose or hold an answer). `cart` is
 * the retailer's cart as the pushes made it.
 */
async function setup({ tabs = null, intercept = null } = {}) {
  const api = fakeCoreapi();
  const calls = [];
  const client = {
    request: (method, path, options = {}) => {
      const call = { method, path, options };
      calls.push(call);
      return Promise.resolve().then(() => (intercept ? intercept(call, () => api.answer(call)) : api.answer(call)));
    },
  };
  const pos = new Pos();
  const session = new FakeSession({ kind: "user", id: "u1", forbidProfiling: false });
  const notices = { shown: [], t: (key) => `text:${key}`, show(text, kind) { this.shown.push({ text, kind }); }, error() {} };
  const service = new BasketService({ client, pos, session, notices, hooks: { proceed: async () => {} }, onAdded: () => {}, tabs });
  pos.load("s1");
  const pushed = [];
  const cart = new Map();
  service.sync.definePush((changes) => {
    pushed.push(...changes);
    for (const { id, quantity } of changes) cart.set(id, (cart.get(id) ?? 0) + quantity);
  });
  const cartLines = () => [...cart].filter(([, quantity]) => quantity > 0).map(([id, quantity]) => ({ id, quantity }));
  await service.initialize();
  await service.sync.cartChanged([]); // the page reports its cart at start, as docs/sdk.md asks
  const shown = () => service.basket$.value.recipes.map((entry) => entry.recipe_id).sort();
  const keysOf = (method, path) => calls.filter((call) => call.method === method && call.path === path)
    .map((call) => call.options.idempotencyKey);
  return { service, api, pos, session, notices, calls, pushed, shown, keysOf, cart, cartLines };
}

describe("the same write asked again goes with its key", () => {
  test("an \"add all\" whose answer was lost: applied once, its changes pushed, the basket shown as it is now", async () => {
    const { service, api, pushed, shown, keysOf } = await setup();
    api.net.lose = true;
    await assert.rejects(service.addRecipe("r1", 2), (error) => error.status === 0);
    api.net.lose = false;
    await service.addRecipe("r2", 2); // another recipe meanwhile: the first outcome's basket lacks it
    await service.addRecipe("r1", 2);
    await flush();
    assert.deepEqual(api.applied, ["POST /basket/recipes", "POST /basket/recipes"], "r1 once, r2 once");
    assert.deepEqual(pushed, [{ id: "p2", quantity: 1 }, { id: "p1", quantity: 2 }]);
    assert.deepEqual(shown(), ["r1", "r2"], "not the first outcome's basket, which lacks r2");
    const [lost, , again] = keysOf("POST", "/basket/recipes");
    assert.equal(again, lost);
  });

  test("a reconcile less than 30 s after the write keeps the key (the service still holds the recipe)", async () => {
    const { service, api, pushed, keysOf } = await setup();
    await withoutAnswer(api, "lose", () => service.addRecipe("r1", 2));
    mock.timers.tick(29_000);
    await service.sync.cartChanged([]); // the service still leaves r1 to the cart
    await service.addRecipe("r1", 2);
    await flush();
    assert.deepEqual(pushed, [{ id: "p1", quantity: 2 }]);
    const [lost, again] = keysOf("POST", "/basket/recipes");
    assert.equal(again, lost);
  });

  test("an addition the service took out since (a hung node's write, a reconcile past CATCH_UP) goes again as a new write", async () => {
    const { service, api, pushed, shown } = await setup();
    const gate = deferred();
    api.net.hold = () => gate.promise; // applied at once, every attempt ends after its time limit
    const lost = service.addRecipe("r1", 2);
    lost.catch(() => {});
    await flush();
    mock.timers.tick(35_000);
    api.net.lose = true;
    gate.resolve();
    await assert.rejects(lost);
    api.net.lose = false;
    mock.timers.tick(5_000); // 40 s after the write, 5 s after the failure: the retailer reports its cart
    await service.sync.cartChanged([]);
    assert.deepEqual(api.recipeIds(), [], "past CATCH_UP the service followed the cart");
    await service.addRecipe("r1", 2); // a new write: applied now
    await flush();
    assert.deepEqual(pushed, [{ id: "p1", quantity: 2 }]);
    assert.deepEqual(api.recipeIds(), ["r1"]);
    assert.deepEqual(shown(), ["r1"]);
  });

  test("a refusal about the recipe drops its kept key", async () => {
    const { service, api, keysOf } = await setup();
    api.net.down = true; // not applied
    await assert.rejects(service.addRecipe("r1", 2));
    api.net.down = false;
    await service.removeRecipe("r1"); // a 404 (the service holds no r1): what the shopper asked, done
    await service.addRecipe("r1", 2);
    const [lost, again] = keysOf("POST", "/basket/recipes");
    assert.notEqual(again, lost, "a refusal about r1 since: a new key");
  });
});

describe("a new key", () => {
  test("for the same write asked differently (other guests), and once an answer about the recipe came", async () => {
    const { service, api, keysOf } = await setup();
    api.net.lose = true;
    await assert.rejects(service.addRecipe("r1", 2));
    await assert.rejects(service.addRecipe("r1", 4));
    api.net.lose = false;
    await service.removeRecipe("r1"); // an answer about r1
    await service.addRecipe("r1", 2);
    const [two, four, again] = keysOf("POST", "/basket/recipes");
    assert.notEqual(two, four);
    assert.notEqual(again, two);
  });

  test("for another shopper", async () => {
    const { service, api, session, keysOf } = await setup();
    await withoutAnswer(api, "down", () => service.addRecipe("r1", 2));
    session.identity$.next({ kind: "user", id: "u2", forbidProfiling: false });
    await flush();
    await service.addRecipe("r1", 2);
    const [lost, again] = keysOf("POST", "/basket/recipes");
    assert.notEqual(again, lost);
  });

  test("once another tab says the basket changed", async () => {
    const hub = new ChannelHub();
    const tabs = supplierTabs({ name: "t", open: hub.open, page: new FakePage(), lifecycle: null });
    const other = supplierTabs({ name: "t", open: hub.open, page: new FakePage(), lifecycle: null });
    const { service, api, keysOf } = await setup({ tabs });
    await withoutAnswer(api, "down", () => service.addRecipe("r1", 2));
    other.post({ type: "basket", shopper: "user:u1" });
    await flush();
    await service.addRecipe("r1", 2);
    const [lost, again] = keysOf("POST", "/basket/recipes");
    assert.notEqual(again, lost);
    tabs.close();
    other.close();
  });

  test("not for a write the network never let out: it goes with its key, applied once when it arrives", async () => {
    const { service, api, keysOf } = await setup();
    await withoutAnswer(api, "down", () => service.addRecipe("r1", 2));
    await service.addRecipe("r1", 2);
    assert.deepEqual(api.applied, ["POST /basket/recipes"]);
    const [lost, again] = keysOf("POST", "/basket/recipes");
    assert.equal(again, lost);
  });
});

describe("the keys go when the basket is taken afresh", () => {
  test("reset(): the recipe asked again is applied again, and the page shows what the service holds", async () => {
    const { service, api, pushed, shown } = await setup();
    await withoutAnswer(api, "lose", () => service.addRecipe("r1", 2));
    await service.reset();
    assert.deepEqual(api.recipeIds(), []);
    await service.addRecipe("r1", 2);
    await flush();
    assert.deepEqual(pushed, [{ id: "p1", quantity: 2 }]);
    assert.deepEqual(api.recipeIds(), ["r1"]);
    assert.deepEqual(shown(), ["r1"]);
  });

  test("a payment: the next shop starts afresh", async () => {
    const { service, api, shown } = await setup();
    await service.addRecipe("r2", 1);
    await service.sync.cartChanged([{ id: "p2", quantity: 1 }]);
    await withoutAnswer(api, "lose", () => service.addRecipe("r1", 2));
    await service.confirm(10, "order-1", [{ id: "p2", quantity: 1 }, { id: "p1", quantity: 2 }]);
    await service.addRecipe("r1", 2);
    await flush();
    assert.deepEqual(api.recipeIds(), ["r1"]);
    assert.deepEqual(shown(), ["r1"], "not the paid basket again");
  });

  test("another store while the write is on its way: the next one is a new request, not a 422", async () => {
    const { service, api, pos } = await setup();
    const gate = deferred();
    api.net.hold = () => gate.promise;
    api.net.lose = true;
    const lost = service.addRecipe("r1", 2);
    lost.catch(() => {});
    await flush();
    pos.load("s2");
    await flush();
    gate.resolve();
    await assert.rejects(lost);
    api.net.lose = false;
    const answer = await service.addRecipe("r1", 2);
    assert.ok(answer.basket);
  });
});

describe("32 s after a write without an answer", () => {
  test("an addition is left to the cart: the newest cart is reconciled, and the recipe the cart lacks leaves", async () => {
    const { service, api, calls, shown } = await setup();
    await withoutAnswer(api, "lose", () => service.addRecipe("r1", 2));
    const reconciles = () => calls.filter((call) => call.path === "/basket/reconcile").length;
    const before = reconciles();
    mock.timers.tick(31_999);
    await flush();
    assert.equal(reconciles(), before);
    mock.timers.tick(1);
    await flush();
    assert.equal(reconciles(), before + 1);
    assert.deepEqual(api.recipeIds(), []);
    assert.deepEqual(shown(), []);
  });

  test("a rollback without an answer says so, and the basket follows the newest cart 32 s later", async () => {
    const { service, api, notices, shown } = await setup();
    await service.addRecipe("r1", 2); // the cart never shows it
    api.net.down = true;
    mock.timers.tick(5000);
    await flush();
    assert.deepEqual(notices.shown, [{ text: "text:basket.rollback-failed", kind: "error" }]);
    assert.deepEqual(shown(), ["r1"], "what the service holds");
    api.net.down = false;
    mock.timers.tick(32_000);
    await flush();
    assert.deepEqual(api.recipeIds(), []);
    assert.deepEqual(shown(), []);
  });
});

describe("nothing is sent again by itself, and the keys' other ends", () => {
  test("a reconcile that got no answer leaves the kept key: the \"add all\" asked again after a 40 s outage is pushed", async () => {
    const { service, api, pushed, keysOf } = await setup();
    await withoutAnswer(api, "lose", () => service.addRecipe("r1", 2)); // applied, its answer lost
    api.net.down = true; // the outage goes on: the page's own follow-up reconcile at 32 s gets no answer
    mock.timers.tick(32_000);
    await flush();
    api.net.down = false;
    mock.timers.tick(8_000);
    await service.addRecipe("r1", 2);
    await flush();
    const [lost, again] = keysOf("POST", "/basket/recipes");
    assert.deepEqual(pushed, [{ id: "p1", quantity: 2 }], "the recipe's products reach the cart");
    assert.equal(again, lost, "the reconcile never reached the service: the key still holds");
  });

  test("a removal that got no answer is not sent again by itself: the shopper's later change stays", async () => {
    const { service, api } = await setup();
    await service.addRecipe("r1", 2);
    await service.sync.cartChanged([{ id: "p1", quantity: 2 }]);
    await withoutAnswer(api, "down", () => service.removeRecipe("r1")); // never reached the service
    mock.timers.tick(31_000);
    const gate = deferred();
    api.net.hold = () => gate.promise; // a slow answer
    const guests = service.setGuests("r1", 4); // the shopper keeps r1, for 4
    await flush();
    mock.timers.tick(1_000); // the follow-up fires while the guests' write is on its way
    await flush();
    gate.resolve();
    await guests;
    await flush();
    await service.whenIdle();
    await flush();
    assert.deepEqual(api.recipeIds(), ["r1"], "r1, set for 4 after the failed removal, stays");
    assert.equal(api.guestsOf("r1"), 4);
  });

  test("a removal that got no answer is not sent again by itself: the planner's menu that put the recipe back stays", async () => {
    const { service, api } = await setup();
    await service.addRecipe("r1", 2);
    await service.sync.cartChanged([{ id: "p1", quantity: 2 }]);
    await withoutAnswer(api, "down", () => service.removeRecipe("r1")); // never reached the service
    mock.timers.tick(10_000);
    await service.finalizeMenu(); // the menu, with r1
    assert.deepEqual(api.recipeIds(), ["r1"]);
    mock.timers.tick(22_000);
    await flush();
    await service.whenIdle();
    await flush();
    assert.deepEqual(api.recipeIds(), ["r1"]);
  });

  test("the basket's read after a kept key's answer fails: the other tabs are told all the same", async () => {
    const hub = new ChannelHub();
    const tabs = supplierTabs({ name: "t", open: hub.open, page: new FakePage(), lifecycle: null });
    const other = supplierTabs({ name: "t", open: hub.open, page: new FakePage(), lifecycle: null });
    const told = [];
    other.on("basket", (message) => told.push(message));
    const { service, api, shown } = await setup({ tabs });
    await withoutAnswer(api, "down", () => service.addRecipe("r1", 2)); // never reached the service
    api.net.getFails = 1; // the read after the answer gets none; the catch-up's does
    await service.addRecipe("r1", 2);
    await service.whenIdle();
    await flush();
    assert.deepEqual(shown(), ["r1"]);
    assert.equal(told.length, 1);
    tabs.close();
    other.close();
  });

  test("a removal whose answer was lost, asked again by the shopper, goes with its key: its products leave the cart", async () => {
    const { service, api, cart, cartLines, shown, keysOf } = await setup();
    await service.addRecipe("r1", 2);
    await service.sync.cartChanged(cartLines());
    await withoutAnswer(api, "lose", () => service.removeRecipe("r1")); // applied, its answer lost: the page still shows r1
    assert.deepEqual(shown(), ["r1"]);
    await service.removeRecipe("r1");
    await flush();
    assert.equal(cart.get("p1"), 0, "the first outcome's removal pushed");
    assert.deepEqual(shown(), []);
    const [lost, again] = keysOf("DELETE", "/basket/recipes/r1");
    assert.equal(again, lost);
  });

  test("a menu whose answer was lost drops the kept keys: a removal asked before it does not replay after it", async () => {
    const { service, api, shown } = await setup();
    await service.addRecipe("r1", 2);
    await service.sync.cartChanged([{ id: "p1", quantity: 2 }]);
    await withoutAnswer(api, "down", () => service.removeRecipe("r1")); // never reached the service
    await withoutAnswer(api, "lose", () => service.finalizeMenu()); // applied (the menu's r1 in the basket), its answer lost
    await service.removeRecipe("r1"); // the shopper removes r1 again: a new write
    assert.deepEqual(api.applied.filter((write) => write.startsWith("DELETE")), ["DELETE /basket/recipes/r1"]);
    assert.deepEqual(shown(), []);
  });

  test("a reconcile that reached the service with its answer lost: the \"add all\" asked again is pushed once", async () => {
    let loseReconcile = false;
    const intercept = async (call, send) => {
      const answer = await send();
      if (loseReconcile && call.path === "/basket/reconcile") throw NETWORK(); // applied, its answer lost
      return answer;
    };
    const { service, api, cart, shown } = await setup({ intercept });
    await withoutAnswer(api, "lose", () => service.addRecipe("r1", 2)); // applied at 0 s, its answer lost
    loseReconcile = true;
    mock.timers.tick(32_000); // the page's own reconcile: CATCH_UP over, the service takes r1 out; its answer lost
    await flush();
    await service.whenIdle();
    loseReconcile = false;
    await service.addRecipe("r1", 2);
    await flush();
    assert.deepEqual(api.recipeIds(), ["r1"]);
    assert.deepEqual(shown(), ["r1"]);
    assert.equal(cart.get("p1"), 2, "r1 for 2: its products once");
  });

  test("a reconcile sent 25 s after the write, reaching the service at 37 s: the \"add all\" asked again is pushed once", async () => {
    const gate = deferred();
    let holdReconcile = false;
    const intercept = async (call, send) => {
      if (holdReconcile && call.path === "/basket/reconcile") {
        holdReconcile = false;
        await gate.promise; // its first attempt never reached the service; the retry does, 12.3 s later
      }
      return send();
    };
    const { service, api, cart, shown } = await setup({ intercept });
    await withoutAnswer(api, "lose", () => service.addRecipe("r1", 2)); // applied at 0 s, its answer lost
    mock.timers.tick(25_000);
    holdReconcile = true;
    void service.sync.cartChanged([]).catch(() => {});
    await flush();
    mock.timers.tick(5_000);
    const again = service.addRecipe("r1", 2); // queued behind the reconcile
    await flush();
    mock.timers.tick(7_300);
    gate.resolve(); // 37.3 s: CATCH_UP over, r1 leaves
    await flush();
    await again;
    await flush();
    assert.deepEqual(api.recipeIds(), ["r1"]);
    assert.deepEqual(shown(), ["r1"]);
    assert.equal(cart.get("p1"), 2);
  });

  test("a page back after a while away (another device may have been used) drops the kept keys", async () => {
    const hub = new ChannelHub();
    const page = new FakePage();
    const tabs = supplierTabs({ name: "t", open: hub.open, page, lifecycle: null, now: () => Date.now() });
    const { service, api, keysOf } = await setup({ tabs });
    await withoutAnswer(api, "down", () => service.addRecipe("r1", 2));
    page.hide();
    mock.timers.setTime(Date.now() + 2 * 3600_000);
    page.show();
    await flush();
    await service.whenIdle();
    await service.addRecipe("r1", 2);
    const [lost, again] = keysOf("POST", "/basket/recipes");
    assert.notEqual(again, lost);
    tabs.close();
  });
});
