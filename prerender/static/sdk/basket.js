// The shopper's basket at the selected store: its state as a stream, and the writes of the drawer. The
// shopper is the one of the session's credential; without a credential the basket is empty (nothing is
// asked), and a new credential's shopper gets their basket loaded. Writes are
// serialised (one at a time, in order) so that each knows the basket it changes, which is what its
// rollback restores; each answer updates the stream, then the retailer's cart callbacks get its changes.
import { State } from "./observable.js";
import { localProblem } from "./http.js";
import { pageCall } from "./page-calls.js";
import { BasketSync } from "./basket-sync.js";

/**
 * @typedef {object} BasketLine
 * @property {string} ingredient_id
 * @property {string} product_id
 * @property {number} quantity packages
 * @property {string} [name]
 * @property {string} [brand]
 * @property {string} [size]
 * @property {string} [picture_url]
 * @property {number | null} [unit_price]
 * @property {number | null} [price]
 * @property {boolean} [available]
 */

/**
 * @typedef {object} BasketEntry
 * @property {string} recipe_id
 * @property {number} guests
 * @property {string} [title]
 * @property {BasketLine[]} lines
 */

/**
 * @typedef {object} Basket
 * @property {string | null} store_id
 * @property {BasketEntry[]} recipes
 * @property {{ id: string, quantity: number }[]} products
 * @property {number} recipe_count
 * @property {number} total
 * @property {string} [currency]
 */

/** @typedef {{ basket: Basket, changes: { id: string, quantity: number }[] }} BasketAnswer */

/**
 * The shopper's choice for one ingredient of a recipe being added (`lines` of POST /basket/recipes): its
 * product, and its packages (absent: what the recipe needs for the guests; 0: the ingredient is left out).
 * @typedef {object} ChosenLine
 * @property {string} ingredient_id
 * @property {string} product_id
 * @property {number} [quantity]
 */

const PAYMENT_STARTED = "payment-started";
const PAYMENT_STARTED_MS = 24 * 3600 * 1000;

/** @param {string | null} storeId @returns {Basket} */
export const emptyBasket = (storeId) => ({ store_id: storeId, recipes: [], products: [], recipe_count: 0, total: 0, currency: "EUR" });

export class BasketService {
  /** @type {State<Basket>} the current basket, once loaded */
  basket$ = new State();
  /** @type {State<boolean>} `true` once the basket was loaded the first time (then never again) */
  ready$ = new State();
  /** @type {BasketSync} */
  sync;
  #client;
  #pos;
  #session;
  /** @type {Promise<unknown>} tail of the write queue */
  #queue = Promise.resolve();
  /** @type {string | null} store and shopper the loaded basket belongs to */
  #loadedKey = null;
  /** @type {Promise<Basket> | null} */
  #loading = null;
  #initialized = false;
  /** @type {string | null} a store the service said it does not know (the basket's load was refused for it) */
  #unknownStore = null;
  #hooks;
  #onAdded;
  /** @type {Map<string, Promise<void>>} per recipe, settled once its last write asked has joined the queue */
  #turns = new Map();

  /**
   * @param {object} deps
   * @param {import("./http.js").ApiClient} deps.client
   * @param {import("./pos.js").Pos} deps.pos
   * @param {import("./session.js").Session} deps.session
   * @param {import("./notices.js").Notices} deps.notices
   * @param {import("./hooks.js").Hooks} deps.hooks asked before a write that adds products
   * @param {(productCount: number) => void} deps.onAdded products were added to the shopper's cart
   */
  constructor({ client, pos, session, notices, hooks, onAdded }) {
    this.#client = client;
    this.#hooks = hooks;
    this.#onAdded = onAdded;
    this.#pos = pos;
    this.#session = session;
    this.sync = new BasketSync({
      reconcile: (cart, guard) => this.#reconcile(cart, guard),
      onRollback: (error) => {
        if (error) notices.error(error, "basket.rollback");
        else notices.show(notices.t("basket.rollback"), "error");
      },
    });
    const reload = () => {
      if (!this.#initialized) return;
      this.sync.reset();
      this.#load().catch(() => {}); // logged by #load; nothing the user asked for failed
    };
    pos.storeId$.subscribe(reload);
    // Another shopper (a new credential, or none after logout): the basket we knew is someone else's. The
    // same shopper with another profiling choice keeps it.
    session.identity$.map((identity) => (identity ? `${identity.kind}:${identity.id}` : "")).subscribe(reload);
  }

  /**
   * Loads the basket once the store is known (at most once per store and identity; every caller gets the
   * same promise). Cards call it when they connect.
   * @returns {Promise<Basket>}
   */
  initialize() {
    this.#initialized = true;
    return this.#load();
  }

  /** The number of recipes in the basket, as a stream. */
  recipeCount() {
    return this.basket$.map((basket) => basket.recipe_count ?? basket.recipes.length);
  }

  /**
   * Whether a recipe is in the basket, as a stream (emits on change only).
   * @param {string} recipeId
   */
  inBasket$(recipeId) {
    return this.basket$.map((basket) => basket.recipes.some((entry) => entry.recipe_id === String(recipeId)));
  }

  /**
   * The entry of a recipe in the current basket.
   * @param {string} recipeId
   * @returns {BasketEntry | undefined}
   */
  entry(recipeId) {
    return this.basket$.value?.recipes.find((entry) => entry.recipe_id === String(recipeId));
  }

  /**
   * Empties the basket (the maker's `basket.reset()`): the basket is loaded again, then every recipe it holds
   * is taken out. Meant for a retailer cart the shopper emptied: nothing is pushed to the cart (it is the
   * page's own action) and nothing waits for it. Changes still waiting for the cart are dropped first. Rejects
   * when a removal fails (what was removed until then stays removed).
   * @returns {Promise<Basket>}
   */
  async reset() {
    // The service's basket now (not the state of the page's first load): every recipe it holds goes.
    const basket = await this.reload();
    for (const entry of basket.recipes ?? []) {
      await this.#delete(entry.recipe_id);
    }
    return this.basket$.value ?? basket;
  }

  /**
   * Drops the SDK's basket state (changes waiting for the retailer's cart included) and loads the basket
   * again; the basket itself is unchanged.
   * @returns {Promise<Basket>}
   */
  reload() {
    this.sync.reset();
    this.#loadedKey = null;
    this.#loading = null;
    this.#initialized = true;
    return this.#load();
  }

  /**
   * POST /basket/recipes: the whole recipe for `guests` ("add all"), with the shopper's choices (`lines`: per
   * ingredient, another product and its packages, or quantity 0 to leave it out) in the same write. A refused
   * or unfollowed write rolls back as a whole: the entry goes, or the entry it changed comes back as it was.
   * An upstream that answers without the choices applied (one that predates them: docs/upstream.md) gets them
   * one line at a time after the add, as before.
   * @param {string} recipeId @param {number} guests @param {ChosenLine[]} [lines]
   * @returns {Promise<BasketAnswer>}
   */
  async addRecipe(recipeId, guests, lines = []) {
    const id = String(recipeId);
    const chosen = lines.map((line) => ({ ...line, ingredient_id: String(line.ingredient_id), product_id: String(line.product_id) }));
    const answer = await this.#write(
      "adds",
      (storeId) => this.#client.request("POST", "/basket/recipes", {
        json: { recipe_id: id, guests, store_id: storeId, ...(chosen.length > 0 ? { lines: chosen } : {}) }, write: true,
      }),
      (before) => {
        if (!before) return () => this.#delete(id);
        return chosen.length > 0 ? () => this.#restoreEntry(before) : () => this.#patchGuests(id, before.guests);
      },
      id,
    );
    const entry = answer?.basket?.recipes?.find((/** @type {BasketEntry} */ e) => String(e.recipe_id) === id);
    for (const line of chosen) {
      const held = entry?.lines?.find((l) => String(l.ingredient_id) === line.ingredient_id);
      const applied = line.quantity === 0
        ? !held
        : held && String(held.product_id) === line.product_id && (line.quantity === undefined || held.quantity === line.quantity);
      if (!applied && (held || line.quantity !== 0)) {
        await this.setIngredient(id, line.ingredient_id, line.product_id, line.quantity ?? held?.quantity ?? 1);
      }
    }
    return answer;
  }

  /** PATCH /basket/recipes/<id>: the recipe's lines re-scaled to `guests`. */
  setGuests(/** @type {string} */ recipeId, /** @type {number} */ guests) {
    const id = String(recipeId);
    return this.#write(
      "adds",
      (storeId) => this.#patchGuestsRequest(id, guests, storeId),
      (before) => (before ? () => this.#patchGuests(id, before.guests) : () => this.#delete(id)),
      id,
    );
  }

  /** DELETE /basket/recipes/<id>. */
  removeRecipe(/** @type {string} */ recipeId) {
    const id = String(recipeId);
    return this.#write(
      "removes",
      (storeId) => this.#deleteRequest(id, storeId),
      (before) => (before ? () => this.#restoreEntry(before) : () => Promise.resolve()),
      id,
    );
  }

  /**
   * PUT /basket/recipes/<id>/ingredients/<ingredient>: sets one line (quantity 0 removes it; another
   * product replaces it; the entry is created when the recipe is not in the basket).
   * @param {string} recipeId @param {string} ingredientId @param {string} productId @param {number} quantity
   */
  setIngredient(recipeId, ingredientId, productId, quantity) {
    const id = String(recipeId);
    const line = this.entry(id)?.lines.find((l) => l.ingredient_id === String(ingredientId));
    const held = line && line.product_id === String(productId) ? line.quantity : 0;
    return this.#write(
      quantity > held ? "adds" : "removes",
      (storeId) => this.#putLine(id, String(ingredientId), String(productId), quantity, storeId),
      (before) => {
        if (!before) return () => this.#delete(id);
        const line = before.lines.find((l) => l.ingredient_id === String(ingredientId));
        return line
          ? () => this.#apply((storeId) => this.#putLine(id, line.ingredient_id, line.product_id, line.quantity, storeId))
          : () => this.#apply((storeId) => this.#putLine(id, String(ingredientId), String(productId), 0, storeId));
      },
      id,
    );
  }

  /**
   * POST /baskets/handle-payment: the user paid the retailer cart. The basket follows that cart and is
   * confirmed (once per order id, never empty); the identity then starts an empty basket. `cart` defaults to
   * the last one `retailerBasketChanged` reported; without any, a local `#no-cart` problem and nothing sent.
   * @param {number} total @param {string} [orderId] @param {unknown} [cart] `[{id, quantity}]`
   * @returns {Promise<{ outcome: "confirmed" | "already_confirmed" | "empty", confirmed: boolean, basket_id?: string }>}
   */
  async confirm(total, orderId, cart) {
    const amount = Number(total);
    if (!Number.isFinite(amount) || amount < 0) throw new TypeError("handlePayment expects a total >= 0");
    const started = cart === undefined ? this.#paymentStartedCart() : null;
    const last = this.sync.lastCart;
    // The cart reported on this page is gone (emptied by the payment, or never reported on the confirmation
    // page): the one `paymentStarted` kept is the cart that was paid.
    const products = paidLines(cart !== undefined ? cart : (started && (!last || last.length === 0) ? started : last));
    if (!products) {
      throw localProblem("no-cart", "No retailer cart to confirm",
        "Report the cart with basketSync.retailerBasketChanged(cart), or pass it to handlePayment(total, orderId, cart).");
    }
    const storeId = await this.#requireStore();
    const answer = await this.#enqueue(() => this.#client.request("POST", "/baskets/handle-payment", {
      query: orderId ? { "order-id": String(orderId) } : {},
      json: { store_id: storeId, totalPrice: amount, products },
      write: true,
    }));
    if (answer?.confirmed || answer?.outcome === "already_confirmed") this.#session.local.remove(this.#session.key(PAYMENT_STARTED));
    if (answer?.confirmed) {
      this.sync.reset();
      this.#publish(emptyBasket(storeId));
    } else if (answer?.outcome === "empty") {
      // The basket followed the paid cart before it was found empty: show it as the service has it.
      void this.reload().catch(() => {});
    }
    return answer;
  }

  /**
   * The shopper starts paying (the maker's `paymentStarted(total)`): the cart reported last is kept in
   * localStorage (`_<prefix>/payment-started`, for a day) so that `handlePayment(total)` on the confirmation
   * page, where the cart is already empty, confirms the cart that was paid.
   * @param {number} total
   * @returns {{ total: number, lines: number }}
   */
  paymentStarted(total) {
    // Called from the retailer's checkout button: a total it cannot read is reported, never thrown.
    let amount = Number(total);
    if (!Number.isFinite(amount) || amount < 0) {
      console.warn(`[${this.#session.prefix}] paymentStarted(${JSON.stringify(total)}): not a total >= 0; the cart is kept all the same`);
      amount = 0;
    }
    const cart = paidLines(this.sync.lastCart) ?? [];
    if (cart.length > 0) {
      this.#session.local.set(this.#session.key(PAYMENT_STARTED), JSON.stringify({ total: amount, cart, at: Date.now() }));
    }
    return { total: amount, lines: cart.length };
  }

  /** The cart `paymentStarted` kept, when it is less than a day old. @returns {unknown[] | null} */
  #paymentStartedCart() {
    const key = this.#session.key(PAYMENT_STARTED);
    try {
      const kept = JSON.parse(this.#session.local.get(key) ?? "null");
      if (kept && Array.isArray(kept.cart) && Date.now() - Number(kept.at) < PAYMENT_STARTED_MS) return kept.cart;
    } catch {
      // unreadable: none
    }
    this.#session.local.remove(key);
    return null;
  }

  /**
   * GET /basket/merge-authless-basket: at the end of the auth flow, on a page whose credential is the
   * logged-in user's, the basket built while logged out joins the user's, and its products are pushed to
   * the retailer cart. The logged-out visitor's identity is proven with the authless credential the SDK
   * remembered (`authless-credential` header); without one for that id, a local problem
   * (`#no-authless-credential`) and nothing is sent. There is nothing to roll back to: an unconfirmed push
   * only shows the usual message.
   * @param {string} authlessId the id the visitor had while logged out
   */
  async mergeAuthless(authlessId) {
    const id = String(authlessId ?? "").trim();
    if (!id) throw new TypeError("mergeAuthless expects the logged-out visitor's authless id");
    const proof = this.#session.authlessCredentialOf(id);
    if (!proof) {
      throw localProblem("no-authless-credential", "No credential of that logged-out visitor",
        `This browser holds no valid credential of the authless visitor ${id}: it is remembered when a page of that visitor carries one.`);
    }
    const storeId = await this.#requireStore();
    this.#initialized = true;
    /** @type {(() => Promise<boolean>) | null} */
    let push = null;
    const answer = await this.#enqueue(async () => {
      const result = await this.#client.request("GET", "/basket/merge-authless-basket",
        { query: { authless_id: id, store_id: storeId }, write: true, headers: { "authless-credential": proof } });
      this.#publish(result.basket);
      push = this.sync.register(result.changes ?? [], { after: result.basket, rollback: async () => {} });
      return result;
    });
    if (push) void (/** @type {() => Promise<boolean>} */ (push))();
    return answer;
  }

  /**
   * POST /v2/menu/current/finalize: the planner's menu goes into the user's basket at the menu's store
   * (docs/browser-api.md, "Menus"), then its products are pushed to the retailer cart through the same
   * callbacks as every basket change. Resolves once the callbacks are done, with `cartFollowed` false when
   * one of them failed (the basket keeps the products: there is nothing to roll back to, the menu is gone).
   * Rejects with the service's problem (403 for a logged-out visitor, 409 `no-store` / `empty`).
   * @returns {Promise<{ basket: Basket, changes: { id: string, quantity: number }[], cartFollowed: boolean }>}
   */
  async finalizeMenu() {
    await this.#askHook();
    return this.#arrive(() => this.#client.request("POST", "/menu/current/finalize", { write: true, version: "v2" }));
  }

  /**
   * POST /basket/transfers: a recipe publisher's basket, at one of its affiliated retailer's stores, handed to
   * that retailer through a one-time link (docs/browser-api.md, "Basket transfers"). The store becomes the
   * page's (the basket is priced there). Resolves with `{url, expires_at, store_id, retailer}`; the caller
   * sends the browser to `url`. Rejects with the service's problem (409 `empty` or `no-affiliate`).
   * @param {string} storeId
   * @returns {Promise<{ url: string, expires_at: string, store_id: string, retailer: string }>}
   */
  async transfer(storeId) {
    const id = String(storeId ?? "").trim();
    if (!id) throw new TypeError("transfer expects one of the retailer's store ids");
    await this.#pos.load(id);
    return this.#enqueue(() => this.#client.request("POST", "/basket/transfers", { json: { store_id: id }, write: true }));
  }

  /**
   * POST /basket/transfers/redeem, on the retailer's site: the transferred recipes join the shopper's basket at
   * the page's store, and their products are pushed to the retailer cart through the usual callbacks (awaited).
   * Rejects with the service's problem (404 unknown, 410 expired or used). `idempotencyKey`: the same on a retry
   * after a reload, so that a redeem whose answer was lost is answered again rather than refused as used.
   * @param {string} token @param {string} storeId @param {string} [idempotencyKey]
   * @returns {Promise<{ basket: Basket, changes: { id: string, quantity: number }[],
   *   transfer: { source_supplier_name: string, recipe_count: number, product_count?: number, message?: string },
   *   cartFollowed: boolean }>}
   */
  receiveTransfer(token, storeId, idempotencyKey) {
    return this.#arrive(() => this.#client.request("POST", "/basket/transfers/redeem",
      { json: { token: String(token), store_id: String(storeId) }, write: true, idempotencyKey }));
  }

  // --- internals ---------------------------------------------------------------------------------

  /**
   * Products arriving in the basket from elsewhere (a finalized menu, a transferred basket): the write's answer
   * is published, then its changes are pushed to the retailer cart, awaited. There is nothing to roll back to
   * (the menu or the other basket is gone): a cart that does not follow only sets `cartFollowed` to false.
   * @template {BasketAnswer} A
   * @param {() => Promise<A>} request
   * @returns {Promise<A & { cartFollowed: boolean }>}
   */
  async #arrive(request) {
    this.#initialized = true;
    let cartFollowed = true;
    /** @type {(() => Promise<boolean>) | null} */
    let push = null;
    const answer = await this.#enqueue(async () => {
      const result = await request();
      this.#publish(result.basket);
      push = this.sync.register(result.changes ?? [], {
        after: result.basket,
        rollback: async () => {
          cartFollowed = false;
        },
      });
      return result;
    });
    if (push && !(await /** @type {() => Promise<boolean>} */ (push)())) cartFollowed = false;
    if (cartFollowed) this.#announceAdded(answer.changes);
    return { ...answer, cartFollowed };
  }

  /** @returns {Promise<Basket>} */
  async #load() {
    const storeId = await this.#pos.whenLoaded();
    const identity = this.#session.identity$.value;
    const key = `${storeId}|${identity ? `${identity.kind}:${identity.id}` : "-"}`;
    if (this.#loadedKey === key && this.#loading) return this.#loading;
    this.#loadedKey = key;
    const loading = this.#enqueue(async () => {
      // No store, or no credential (nobody to load a basket for): empty, without asking.
      const basket = storeId === null || !identity
        ? emptyBasket(storeId)
        : await this.#client.request("GET", "/basket", { query: { store_id: storeId } });
      if (this.#loadedKey === key) this.#publish(basket);
      // The service does not know that store (the basket is then empty): the hook is told (isPosValid).
      if (storeId !== null && /** @type {any} */ (basket)?.unknown_store === true) this.#unknownStore = storeId;
      else if (this.#unknownStore === storeId) this.#unknownStore = null;
      return basket;
    });
    this.#loading = loading;
    loading.catch((error) => {
      if (this.#loading === loading) this.#loading = null; // a later call tries again
      console.error(`[${this.#session.prefix}] could not load the basket`, error);
    });
    return loading;
  }

  /**
   * The page's hook callback, before a write that adds products: whether the shopper is logged in, and
   * whether the page chose a store the service knows (as far as the basket's load told). Rejects with a
   * `#stopped-by-hook` problem when the page says no.
   */
  async #askHook() {
    const storeId = this.#pos.storeId$.hasValue ? this.#pos.storeId$.value : null;
    if (storeId) await this.initialize().catch(() => {}); // its answer says whether the service knows the store
    await this.#hooks.proceed(this.#session.isConnected, Boolean(storeId) && storeId !== this.#unknownStore);
  }

  /** Products the last write added to the shopper's cart: `onAdded` with how many. @param {{ quantity: number }[] | undefined} changes */
  #announceAdded(changes) {
    const added = (changes ?? []).filter((change) => change.quantity > 0).length;
    if (added > 0) this.#onAdded(added);
  }

  /**
   * The store for a write: waits for pos.load (a bounded time, sdk/page-calls.js); "no store" is a problem,
   * not a silent no-op.
   */
  async #requireStore() {
    const prefix = this.#session.prefix;
    const storeId = await pageCall(this.#pos.whenLoaded(), {
      prefix,
      call: "pos.load(storeId)",
      consequence: "a change to the basket needs the page's store (pos.load(null) when it has none)",
      failure: () => localProblem("no-store", "No store selected", `The page has not called ${prefix}.pos.load(storeId).`),
    });
    if (storeId === null) throw localProblem("no-store", "No store selected", "Call pos.load(storeId) first.");
    return storeId;
  }

  /**
   * One write: queued, answered, published, registered for the cart sync; the retailer's callbacks run
   * once the queue is free again. A write that adds products asks the page's hook callback first.
   * @param {"adds" | "removes"} kind
   * @param {(storeId: string) => Promise<BasketAnswer>} request
   * @param {(before: BasketEntry | undefined) => () => Promise<unknown>} inverse the rollback, from the entry before
   * @param {string} recipeId
   * @returns {Promise<BasketAnswer>}
   */
  async #write(kind, request, inverse, recipeId) {
    // What comes before the write (the page's hook for an addition, the store, the basket's load) starts at
    // once; the write joins the queue only after the recipe's previous write joined it, so the writes of a
    // recipe reach the service in the order they were asked, even while an addition waits for the page's
    // hook (a removal asked meanwhile waits its turn). Other recipes' writes do not wait for that hook.
    const ready = (async () => {
      if (kind === "adds") await this.#askHook();
      const storeId = await this.#requireStore();
      await this.initialize().catch(() => {}); // the rollback needs the basket before the change
      return storeId;
    })();
    ready.catch(() => {}); // handled below, once the previous write's turn has passed
    const previous = this.#turns.get(recipeId) ?? Promise.resolve();
    /** @type {() => void} */
    let release = () => {};
    /** @type {Promise<void>} */
    const turn = new Promise((resolve) => {
      release = () => {
        if (this.#turns.get(recipeId) === turn) this.#turns.delete(recipeId);
        resolve();
      };
    });
    this.#turns.set(recipeId, turn);
    let storeId;
    try {
      storeId = await previous.then(() => ready);
    } catch (error) {
      release();
      throw error;
    }
    /** @type {(() => Promise<boolean>) | null} */
    let push = null;
    const queued = this.#enqueue(async () => {
      const before = this.entry(recipeId);
      const result = await request(storeId);
      this.#publish(result.basket);
      push = this.sync.register(result.changes ?? [], { after: result.basket, rollback: inverse(before) });
      return result;
    });
    release();
    const answer = await queued;
    const pushed = push ? /** @type {() => Promise<boolean>} */ (push)() : Promise.resolve(true);
    void pushed.then((followed) => {
      if (followed) this.#announceAdded(answer.changes);
    });
    return answer;
  }

  /**
   * A write that is not pushed to the retailer cart (a rollback).
   * @param {(storeId: string) => Promise<BasketAnswer>} request
   */
  #apply(request) {
    return this.#enqueue(async () => {
      const storeId = this.#pos.storeId$.value;
      if (!storeId) return null;
      const result = await request(storeId);
      this.#publish(result.basket);
      return result;
    });
  }

  /** @param {string} id @param {number} guests */
  #patchGuests(id, guests) {
    return this.#apply((storeId) => this.#patchGuestsRequest(id, guests, storeId));
  }

  /** @param {string} id */
  #delete(id) {
    return this.#apply((storeId) => this.#deleteRequest(id, storeId));
  }

  /** Puts a removed entry back: the recipe for its guests, then its lines as they were. */
  async #restoreEntry(/** @type {BasketEntry} */ entry) {
    const added = await this.#apply((storeId) => this.#client.request("POST", "/basket/recipes", {
      json: { recipe_id: entry.recipe_id, guests: entry.guests, store_id: storeId }, write: true,
    }));
    const now = added?.basket?.recipes?.find((/** @type {BasketEntry} */ e) => e.recipe_id === entry.recipe_id);
    if (!now) return;
    const wanted = new Map(entry.lines.map((line) => [line.ingredient_id, line]));
    for (const line of now.lines) {
      const before = wanted.get(line.ingredient_id);
      if (!before) {
        await this.#apply((storeId) => this.#putLine(entry.recipe_id, line.ingredient_id, line.product_id, 0, storeId));
      } else if (before.product_id !== line.product_id || before.quantity !== line.quantity) {
        await this.#apply((storeId) => this.#putLine(entry.recipe_id, before.ingredient_id, before.product_id, before.quantity, storeId));
      }
    }
  }

  /** @param {string} id @param {number} guests @param {string} storeId */
  #patchGuestsRequest(id, guests, storeId) {
    return this.#client.request("PATCH", `/basket/recipes/${encodeURIComponent(id)}`, { json: { guests, store_id: storeId }, write: true });
  }

  /** @param {string} id @param {string} storeId */
  #deleteRequest(id, storeId) {
    return this.#client.request("DELETE", `/basket/recipes/${encodeURIComponent(id)}`, { query: { store_id: storeId }, write: true });
  }

  /** @param {string} id @param {string} ingredientId @param {string} productId @param {number} quantity @param {string} storeId */
  #putLine(id, ingredientId, productId, quantity, storeId) {
    return this.#client.request("PUT", `/basket/recipes/${encodeURIComponent(id)}/ingredients/${encodeURIComponent(ingredientId)}`, {
      json: { product_id: productId, quantity, store_id: storeId }, write: true,
    });
  }

  /**
   * POST /basket/reconcile with the retailer's cart, once the store is known; no store: nothing to do. A cart
   * that is no longer `current` when its turn comes (a write queued before it registered a change the cart has
   * not shown yet) is not sent: it would take that change back out of the basket; it waits for a newer cart.
   * @param {{ id: string, quantity: number }[]} cart @param {import("./basket-sync.js").StaleGuard} guard
   */
  async #reconcile(cart, guard) {
    const storeId = await this.#pos.whenLoaded();
    this.#initialized = true;
    let stale = false;
    const basket = await this.#enqueue(async () => {
      // No store, or no credential: there is no basket of ours to reconcile.
      if (!storeId || !this.#session.credential) return this.basket$.value ?? emptyBasket(storeId);
      if (!guard.current()) {
        stale = true;
        return null;
      }
      const answer = await this.#client.request("POST", "/basket/reconcile", { json: { store_id: storeId, cart }, write: true });
      this.#publish(answer.basket);
      return answer.basket;
    });
    return stale ? guard.later() : basket;
  }

  /** @param {Basket} basket */
  #publish(basket) {
    if (!basket || !Array.isArray(basket.recipes)) return;
    basket.recipes = basket.recipes.map((entry) => ({ ...entry, recipe_id: String(entry.recipe_id), lines: entry.lines ?? [] }));
    this.basket$.next(basket);
    if (!this.ready$.hasValue) this.ready$.next(true);
  }

  /** Resolves once the basket calls queued so far are done (whatever their outcome). */
  whenIdle() {
    return this.#queue;
  }

  /**
   * Runs `task` after every queued one (failed ones included).
   * @template T
   * @param {() => Promise<T>} task
   * @returns {Promise<T>}
   */
  #enqueue(task) {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => {});
    return run;
  }
}

// What the payment route accepts of a cart line (prerender/schemas/fields.py, Identifier; schemas/limits.py).
const PRODUCT_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;
const MAX_PAID_LINES = 500;
const MAX_LINE_QUANTITY = 10_000;

/**
 * The paid cart as the payment route takes it: `[{id, quantity}]`, or null without a cart. Lines whose id
 * cannot be one of the service's products (a retailer's own SKU with spaces...) are left out: the basket
 * holds none of them; a quantity is made whole (rounded up: the basket only ever follows the cart down)
 * and kept within the route's bounds, and at most 500 lines go.
 * @param {unknown} cart
 * @returns {{ id: string, quantity: number }[] | null}
 */
function paidLines(cart) {
  if (cart === null || cart === undefined) return null;
  if (!Array.isArray(cart)) throw new TypeError("handlePayment expects the cart as [{id, quantity}]");
  return cart
    .map((line) => ({ id: String(line?.id ?? "").trim(), quantity: Math.ceil(Number(line?.quantity)) }))
    .filter((line) => PRODUCT_ID.test(line.id) && Number.isFinite(line.quantity))
    .map((line) => ({ id: line.id, quantity: Math.min(MAX_LINE_QUANTITY, Math.max(0, line.quantity)) }))
    .slice(0, MAX_PAID_LINES);
}
