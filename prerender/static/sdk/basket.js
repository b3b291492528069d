// The shopper's basket at the selected store: its state as a stream, and the writes of the drawer. The
// shopper is the one of the session's credential; without a credential the basket is empty (nothing is
// asked), and a new credential's shopper gets their basket loaded. Writes are serialised (one at a time, in
// order: sdk/basket-queue.js) so that each knows the basket it changes, which is what its rollback restores
// (sdk/basket-rollback.js); each answer updates the stream, then the retailer's cart callbacks get its changes
// (sdk/basket-sync.js). The payment (sdk/basket-payment.js) and the products that arrive from elsewhere
// (sdk/basket-arrivals.js) are parts of their own on the same queue; every path is in sdk/basket-routes.js.
// The shopper's other tabs of the site are told when a write here changed the basket, and this tab loads it
// again when another tab's write changed it, or when the page shows again after a while (sdk/tabs.js).
import { State } from "./observable.js";
import { ApiError, asksToRetryLater, isOutcomeUnknown, isTransient, localProblem, logFailure } from "./http.js";
import { pageCall } from "./page-calls.js";
import { BasketSync } from "./basket-sync.js";
import { BasketQueue } from "./basket-queue.js";
import { BasketRoutes } from "./basket-routes.js";
import { Rollbacks } from "./basket-rollback.js";
import { BasketPayments } from "./basket-payment.js";
import { BasketArrivals } from "./basket-arrivals.js";
import { WriteKeys } from "./write-keys.js";
import { RETURN_RELOAD_MS } from "./tabs.js";
import { MAX_REPORTED_AT, basketContent, emptyBasket } from "./basket-model.js";
import { jsonText } from "./json.js";

export { emptyBasket };

/** @typedef {import("./basket-model.js").BasketLine} BasketLine */
/** @typedef {import("./basket-model.js").BasketEntry} BasketEntry */
/** @typedef {import("./basket-model.js").Basket} Basket */
/** @typedef {import("./basket-model.js").BasketAnswer} BasketAnswer */
/** @typedef {import("./basket-model.js").ChosenLine} ChosenLine */

/**
 * What the basket's parts (payments, arrivals) share with the service: its routes and queue, its cart sync,
 * the session and the page's store, and the service's own steps.
 * @typedef {object} BasketCore
 * @property {BasketRoutes} routes
 * @property {BasketQueue} queue
 * @property {BasketSync} sync
 * @property {import("./session.js").Session} session
 * @property {import("./pos.js").Pos} pos
 * @property {(basket: Basket) => void} publish a basket the service answered becomes the current one
 * @property {() => Promise<string>} requireStore the page's store, or a `#no-store` problem
 * @property {() => Promise<void>} askHook the page's hook, before products are added
 * @property {(changes: { quantity: number }[] | undefined) => void} announceAdded
 * @property {() => Promise<Basket>} reload
 * @property {() => void} started the basket is in use: it follows the store and the shopper from now on
 * @property {() => void} arrived products arrived from elsewhere: no write's first outcome holds any more
 */

/**
 * What the shopper is told of a change the retailer's cart did not follow: undone; not undone (the undo got no
 * answer, or was refused: the basket follows the cart at its next reconcile); or, for products that arrived from
 * elsewhere (nothing to go back to), not added to the cart.
 * @type {Record<import("./basket-sync.js").RollbackOutcome, string>}
 */
const ROLLBACK_TEXTS = {
  undone: "basket.rollback",
  failed: "basket.rollback-failed",
  kept: "basket.not-followed",
};

/** How long the service leaves to the cart what a write asked it to add (coreapi's `CATCH_UP`, docs/upstream.md). */
const CATCH_UP_MS = 30_000;
/** How long after that a page reconciles its cart again after a lost answer (clocks differ). */
const FOLLOW_MARGIN_MS = 2_000;

/**
 * An undo's outcome: done, or nothing left to undo (a 404: the recipe is not in the basket); else its failure.
 * @param {Promise<unknown>} undo @returns {Promise<"undone">}
 */
function undone(undo) {
  return undo.then(
    () => /** @type {const} */ ("undone"),
    (error) => (error instanceof ApiError && error.status === 404 ? "undone" : Promise.reject(error)),
  );
}

export class BasketService {
  /** @type {State<Basket>} the current basket, once loaded */
  basket$ = new State();
  /** @type {State<boolean>} `true` once the basket was loaded the first time (then never again) */
  ready$ = new State();
  /** @type {BasketSync} */
  sync;
  #pos;
  #session;
  #routes;
  #queue = new BasketQueue();
  #rollbacks;
  #payments;
  #arrivals;
  /** @type {string | null} store and shopper the loaded basket belongs to */
  #loadedKey = null;
  /** @type {Promise<Basket> | null} */
  #loading = null;
  #initialized = false;
  /** @type {string | null} a store the service said it does not know (the basket's load was refused for it) */
  #unknownStore = null;
  #hooks;
  #onAdded;
  /** @type {import("./tabs.js").Tabs | null} */
  #tabs;
  /** Another tab changed the basket since this one last loaded it (or the page was away a while). */
  #behind = false;
  /** @type {Promise<void> | null} the load that follows the other tabs, while it is queued (not started) */
  #catchingUp = null;
  /** @type {Promise<void>} the load that followed them last, queued, running or done */
  #lastCatchUp = Promise.resolve();
  /** The keys of writes whose outcome stayed unknown, for the same writes asked again (sdk/write-keys.js). */
  #writeKeys = new WriteKeys();
  /** @type {ReturnType<typeof setTimeout> | undefined} the reconcile that lets the basket follow the cart again */
  #following;

  /**
   * @param {object} deps
   * @param {import("./http.js").ApiClient} deps.client
   * @param {import("./pos.js").Pos} deps.pos
   * @param {import("./session.js").Session} deps.session
   * @param {import("./notices.js").Notices} deps.notices
   * @param {import("./hooks.js").Hooks} deps.hooks asked before a write that adds products
   * @param {(productCount: number) => void} deps.onAdded products were added to the shopper's cart
   * @param {import("./tabs.js").Tabs | null} [deps.tabs] the shopper's other tabs of the site
   */
  constructor({ client, pos, session, notices, hooks, onAdded, tabs = null }) {
    this.#routes = new BasketRoutes(client);
    this.#tabs = tabs;
    this.#hooks = hooks;
    this.#onAdded = onAdded;
    this.#pos = pos;
    this.#session = session;
    const publish = (/** @type {Basket} */ basket) => this.#publish(basket, { ours: true });
    this.#rollbacks = new Rollbacks({ routes: this.#routes, queue: this.#queue, pos, publish });
    this.sync = new BasketSync({
      reconcile: (cart, guard, at) => this.#reconcile(cart, guard, at),
      // The basket is taken afresh (another store or shopper, a payment, a reload): no first outcome holds.
      onReset: () => this.#writeKeys.forget(),
      onRollback: (error, outcome) => {
        const key = ROLLBACK_TEXTS[outcome];
        if (error) notices.error(error, key);
        else notices.show(notices.t(key), "error");
        if (outcome === "failed") this.#followCartLater();
      },
      // The site's cart for this shopper: the shopper's other tabs check their changes against it.
      onReported: (cart, at) => {
        const shopper = session.shopperKey;
        if (shopper) tabs?.post({ type: "cart", shopper, cart, at });
      },
    });
    /** @type {BasketCore} */
    const core = {
      routes: this.#routes,
      queue: this.#queue,
      sync: this.sync,
      session,
      pos,
      publish,
      requireStore: () => this.#requireStore(),
      askHook: () => this.#askHook(),
      announceAdded: (changes) => this.#announceAdded(changes),
      reload: () => this.reload(),
      started: () => {
        this.#initialized = true;
      },
      arrived: () => this.#writeKeys.forget(),
    };
    this.#payments = new BasketPayments(core);
    this.#arrivals = new BasketArrivals(core);
    const reload = () => {
      if (!this.#initialized) return; // no write yet: no key kept either
      // sync.reset() forgets the kept keys too (onReset).
      this.sync.reset();
      this.#load().catch(() => {}); // logged by #load; nothing the user asked for failed
    };
    pos.storeId$.subscribe(reload);
    // Another shopper (a new credential, or none after logout): the basket we knew is someone else's. The
    // same shopper with another profiling choice keeps it.
    session.identity$.map((identity) => (identity ? `${identity.kind}:${identity.id}` : "")).subscribe(reload);
    tabs?.on("basket", (message) => {
      if (message.shopper && message.shopper === session.shopperKey) {
        this.#writeKeys.forget(); // the basket moved on elsewhere: a kept key's first outcome may no longer hold
        this.#fallBehind();
      }
    });
    tabs?.on("cart", (message) => {
      if (message.shopper && message.shopper === session.shopperKey) this.sync.cartReportedElsewhere(message.cart, message.at);
    });
    tabs?.onReturn((awayMs) => {
      if (awayMs >= RETURN_RELOAD_MS) this.#writeKeys.forget(); // another device may have been used meanwhile
      if (awayMs >= RETURN_RELOAD_MS || this.#behind) void this.#catchUp();
    });
    // A load that failed offline (the page showed again before the network came back) is tried once it is back.
    tabs?.onOnline(() => {
      if (this.#behind) this.#fallBehind();
    });
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
    this.#payments.forget(); // a cart emptied by the shopper: no payment's aftermath to wait for
    // The service's basket now (not the state of the page's first load): every recipe it holds goes.
    const basket = await this.reload();
    for (const entry of basket.recipes ?? []) {
      await this.#rollbacks.removeRecipe(entry.recipe_id); // not pushed to the cart, as a rollback is not
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
      (storeId, key) => this.#routes.addRecipe(id, guests, storeId, chosen, key),
      this.#rollbacks.ofAdd(id, chosen.length > 0),
      id,
      jsonText(["add", id, guests, chosen]),
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
    return this.#write("adds", (storeId, key) => this.#routes.setGuests(id, guests, storeId, key), this.#rollbacks.ofSetGuests(id), id,
      jsonText(["guests", id, guests]));
  }

  /**
   * DELETE /basket/recipes/<id>. A recipe the service says is not in the basket (a 404: another tab or device took
   * it out) is what the shopper asked for: the basket is loaded again and, without the recipe, resolves as done.
   * @returns {Promise<BasketAnswer>}
   */
  async removeRecipe(/** @type {string} */ recipeId) {
    const id = String(recipeId);
    try {
      return await this.#write("removes", (storeId, key) => this.#routes.removeRecipe(id, storeId, key), this.#rollbacks.ofRemove(), id,
        jsonText(["remove", id]));
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 404) throw error;
      await this.#lastCatchUp; // the load the write's 404 started (#write)
      const basket = this.basket$.value;
      if (!basket || this.entry(id)) throw error;
      return { basket, changes: [] };
    }
  }

  /**
   * PUT /basket/recipes/<id>/ingredients/<ingredient>: sets one line (quantity 0 removes it; another
   * product replaces it; the entry is created when the recipe is not in the basket, for `guests` when given, else
   * the recipe's own: the service decides, so another tab's entry is never replaced).
   * @param {string} recipeId @param {string} ingredientId @param {string} productId @param {number} quantity
   * @param {number} [guests]
   */
  setIngredient(recipeId, ingredientId, productId, quantity, guests) {
    const [id, ingredient, product] = [String(recipeId), String(ingredientId), String(productId)];
    const line = this.entry(id)?.lines.find((l) => l.ingredient_id === ingredient);
    const held = line && line.product_id === product ? line.quantity : 0;
    return this.#write(
      quantity > held ? "adds" : "removes",
      (storeId, key) => this.#routes.setIngredient(id, ingredient, product, quantity, storeId, guests, key),
      this.#rollbacks.ofSetIngredient(id, ingredient, product),
      id,
      jsonText(["line", id, ingredient, product, quantity, guests ?? null]),
    );
  }

  // --- the parts of their own (sdk/basket-payment.js, sdk/basket-arrivals.js) ------------------------

  /** See BasketPayments.confirm. @type {BasketPayments["confirm"]} */
  confirm(total, orderId, cart) {
    return this.#payments.confirm(total, orderId, cart);
  }

  /** See BasketPayments.paymentStarted. @type {BasketPayments["paymentStarted"]} */
  paymentStarted(total) {
    return this.#payments.paymentStarted(total);
  }

  /** See BasketArrivals.mergeAuthless. @param {string} authlessId */
  mergeAuthless(authlessId) {
    return this.#arrivals.mergeAuthless(authlessId);
  }

  /** See BasketArrivals.finalizeMenu. */
  finalizeMenu() {
    return this.#arrivals.finalizeMenu();
  }

  /** The stores a publisher's basket may be transferred to (a read, not queued behind the basket's writes). */
  transferStores() {
    return this.#routes.transferStores();
  }

  /** See BasketArrivals.transfer. @param {string} storeId */
  transfer(storeId) {
    return this.#arrivals.transfer(storeId);
  }

  /** See BasketArrivals.receiveTransfer. @param {string} token @param {string} storeId @param {string} [idempotencyKey] */
  receiveTransfer(token, storeId, idempotencyKey) {
    return this.#arrivals.receiveTransfer(token, storeId, idempotencyKey);
  }

  /** Resolves once the basket calls queued so far are done (whatever their outcome). */
  whenIdle() {
    return this.#queue.idle();
  }

  // --- internals ---------------------------------------------------------------------------------

  /** @returns {Promise<Basket>} */
  async #load() {
    const storeId = await this.#pos.whenLoaded();
    const identity = this.#session.identity$.value;
    const key = `${storeId}|${identity ? `${identity.kind}:${identity.id}` : "-"}`;
    if (this.#loadedKey === key && this.#loading) return this.#loading;
    this.#loadedKey = key;
    const loading = this.#queue.run(async () => {
      // No store, or no credential (nobody to load a basket for): empty, without asking.
      const basket = storeId === null || !identity
        ? emptyBasket(storeId)
        : await this.#routes.load(storeId);
      if (this.#loadedKey === key) this.#publish(basket);
      // The service does not know that store (the basket is then empty): the hook is told (isPosValid).
      if (storeId !== null && /** @type {any} */ (basket)?.unknown_store === true) this.#unknownStore = storeId;
      else if (this.#unknownStore === storeId) this.#unknownStore = null;
      return basket;
    });
    this.#loading = loading;
    loading.catch((error) => {
      if (this.#loading === loading) this.#loading = null; // a later call tries again
      logFailure(this.#session.prefix, "could not load the basket", error);
    });
    return loading;
  }

  /**
   * The page's hook callback, before a write that adds products: whether the shopper is logged in, and
   * whether the page chose a store the service knows (as far as the basket's load told). Rejects with a
   * `#stopped-by-hook` problem when the page says no.
   */
  async #askHook() {
    const storeId = this.#pos.current;
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
   * A write whose every attempt got no answer keeps its key for the same write asked again (sdk/write-keys.js),
   * and the basket follows the cart once the service no longer leaves it what the write asked (`#followCartLater`).
   * @param {"adds" | "removes"} kind
   * @param {(storeId: string, idempotencyKey: string) => Promise<BasketAnswer>} request
   * @param {import("./basket-rollback.js").Inverse} inverse the rollback, from the entry before
   * @param {string} recipeId
   * @param {string} signature what the write asks, as a string: the same for the same write asked again
   * @returns {Promise<BasketAnswer>}
   */
  async #write(kind, request, inverse, recipeId, signature) {
    // What comes before the write (the page's hook for an addition, the store, the basket's load) starts at
    // once; the write joins the queue in the recipe's turn (sdk/basket-queue.js).
    const ready = (async () => {
      if (kind === "adds") await this.#askHook();
      const storeId = await this.#requireStore();
      await this.initialize().catch(() => {}); // the rollback needs the basket before the change
      return storeId;
    })();
    /** @type {(() => Promise<boolean>) | null} */
    let push = null;
    const answer = await this.#queue.inTurn(recipeId, ready, async (storeId) => {
      const before = this.entry(recipeId);
      const at = jsonText([signature, storeId]); // the same write at another store is another request
      const kept = this.#writeKeys.keeps(at);
      let result = await this.#send(request, storeId, at, recipeId);
      /** @type {Basket | null} */
      let basket = result.basket;
      if (kept) {
        // A kept key's answer may be the first attempt's, whose basket is the basket of then: the basket is read as
        // it is now. An addition it no longer holds (a reconcile past the service's CATCH_UP took it out since) is
        // no outcome to push: the write goes again as a new one, applied now.
        basket = await this.#routes.load(storeId).catch(() => null);
        if (basket && kind === "adds" && !basket.recipes.some((entry) => String(entry.recipe_id) === recipeId)) {
          result = await this.#send(request, storeId, at, recipeId);
          basket = result.basket;
        }
      }
      if (basket) {
        this.#publish(basket, { ours: true });
      } else {
        this.#tellOtherTabs(); // the write changed the basket; this tab reads it once it can
        void this.#catchUp();
      }
      const undo = inverse(before);
      push = this.sync.register(result.changes ?? [], { after: basket ?? result.basket, rollback: () => undone(undo()) });
      return basket ? { ...result, basket } : result;
    }).catch((error) => {
      // A 404 (the recipe is not in the basket) or a 409 (a state that no longer holds): the page showed a basket
      // another tab or device has changed since. It is loaded again, so that the page shows it as it is.
      if (error instanceof ApiError && (error.status === 404 || error.status === 409)) void this.#catchUp();
      throw error;
    });
    const pushed = push ? /** @type {() => Promise<boolean>} */ (push)() : Promise.resolve(true);
    void pushed.then((followed) => {
      if (followed) this.#announceAdded(answer.changes);
    });
    return answer;
  }

  /**
   * POST /basket/reconcile with the retailer's cart, once the store is known; no store: nothing to do. A cart
   * that is no longer `current` when its turn comes (a write queued before it registered a change the cart has
   * not shown yet) is not sent: it would take that change back out of the basket; it waits for a newer cart. It
   * says which browser reported the cart (`Session.browserId`, the same in all its tabs) and when (`at`, this
   * browser's clock): arriving after a newer cart of this browser (another tab's, crossed on its way), it leaves to
   * the cart what that one showed of what the basket awaited.
   * @param {{ id: string, quantity: number }[]} cart @param {import("./basket-sync.js").StaleGuard} guard
   * @param {number} at when the cart was reported
   */
  async #reconcile(cart, guard, at) {
    const storeId = await this.#pos.whenLoaded();
    this.#initialized = true;
    let stale = false;
    const basket = await this.#queue.run(async () => {
      // No store, or no credential: there is no basket of ours to reconcile.
      if (!storeId || !this.#session.credential) return this.basket$.value ?? emptyBasket(storeId);
      // An empty cart soon after paymentStarted (the confirmation page reporting its cart): the payment's
      // aftermath, not followed (BasketPayments.holdsBack); the confirmation empties the basket. A page that has
      // not loaded the basket yet loads it instead, as the reconcile would have answered it.
      if (this.#payments.holdsBack(cart)) {
        if (this.basket$.value) return this.basket$.value;
        const loaded = await this.#routes.load(storeId);
        this.#publish(loaded);
        return loaded;
      }
      if (!guard.current()) {
        stale = true;
        return null;
      }
      // A clock the route cannot take (before 1970, after 2286) sends no report: the cart is followed as it comes.
      const reported = at >= 0 && at <= MAX_REPORTED_AT ? { by: this.#session.browserId, at } : undefined;
      const answer = await this.#routes.reconcile(storeId, cart, reported);
      this.#publish(answer.basket, { ours: true });
      return answer.basket;
    });
    // A newer cart reported in another tab (reconciled there) leaves nothing to answer with: the basket as it is.
    return stale ? guard.later().then((answer) => answer ?? this.basket$.value ?? null) : basket;
  }

  /**
   * A basket the service answered becomes the current one. `ours`: it is the answer to a write of this tab (a
   * reconcile included): when it holds something else than the basket before, the shopper's other tabs are told.
   * @param {Basket} basket @param {{ ours?: boolean }} [options]
   */
  #publish(basket, { ours = false } = {}) {
    if (!basket || !Array.isArray(basket.recipes)) return;
    // Compared only when it may be told: a write of this tab, with other tabs to tell, after a first answer (a
    // page's first, its reconcile at load, is compared with nothing: it is not told as a change).
    const shopper = this.#session.shopperKey;
    const told = ours && this.#tabs && shopper && this.basket$.hasValue;
    const before = told ? basketContent(this.basket$.value) : null;
    basket.recipes = basket.recipes.map((entry) => ({ ...entry, recipe_id: String(entry.recipe_id), lines: entry.lines ?? [] }));
    this.basket$.next(basket);
    if (!this.ready$.hasValue) this.ready$.next(true);
    if (told && basketContent(basket) !== before) this.#tellOtherTabs();
  }

  /** The shopper's other tabs are told that a write of this tab changed the basket (they read it again). */
  #tellOtherTabs() {
    const shopper = this.#session.shopperKey;
    if (shopper) this.#tabs?.post({ type: "basket", shopper });
  }

  /**
   * Sends a write with the key `keyFor(at)` gives (the kept one of the same write, else a new one). Answered, or
   * refused: its recipe's kept keys go. No answer: its key is kept for the same write asked again, and the basket
   * follows the cart later (`#followCartLater`).
   * @param {(storeId: string, idempotencyKey: string) => Promise<BasketAnswer>} request
   * @param {string} storeId @param {string} at the write and its store @param {string} recipeId
   * @returns {Promise<BasketAnswer>}
   */
  async #send(request, storeId, at, recipeId) {
    const { key, generation } = this.#writeKeys.keyFor(at);
    try {
      const result = await request(storeId, key);
      this.#writeKeys.answered(recipeId);
      return result;
    } catch (error) {
      if (isOutcomeUnknown(error) || asksToRetryLater(error)) {
        this.#writeKeys.unknown(at, { key, recipeId }, generation);
        this.#followCartLater();
      } else if (error instanceof ApiError && error.status !== 0) {
        this.#writeKeys.answered(recipeId);
      }
      throw error;
    }
  }

  /**
   * A write may have been applied without the cart getting its changes (its answer lost), or a change the cart did
   * not follow could not be undone: once the service no longer leaves the cart what the write asked (`CATCH_UP_MS`),
   * the newest cart this tab knows is reconciled again, with the time it was reported, and the basket follows it (a
   * recipe the cart lacks leaves). Nothing before the page knows a cart (the next one it reports does it). One at a
   * time: a later call moves it later.
   */
  #followCartLater() {
    clearTimeout(this.#following);
    this.#following = setTimeout(() => {
      this.#following = undefined;
      this.sync.reconcileNewest().catch(() => {}); // logged where it failed; the next cart reported follows it
    }, CATCH_UP_MS + FOLLOW_MARGIN_MS);
  }

  /** Another tab changed this shopper's basket: loaded again now, or when the page shows again. */
  #fallBehind() {
    this.#behind = true;
    if (this.#tabs?.visible ?? true) void this.#catchUp();
  }

  /**
   * Loads the basket again, after the writes queued before (their answers may already show what the other tab
   * did), when the basket is in use. Published only when it holds something else than the page shows, so that
   * the drawer and the cards do not redraw for nothing; the other tabs are not told (it is theirs). A failure is
   * logged and the basket stays behind: the next write's answer, the next return or the network back brings it.
   * Resolves once done (never rejects).
   * @returns {Promise<void>}
   */
  #catchUp() {
    this.#behind = true;
    if (this.#catchingUp) return this.#catchingUp;
    if (!this.#initialized) return Promise.resolve();
    const catchingUp = this.#queue.run(async () => {
      this.#catchingUp = null;
      if (!this.#behind) return;
      this.#behind = false;
      const storeId = this.#pos.current;
      const identity = this.#session.identity$.value;
      if (!storeId || !identity) return;
      const key = this.#loadedKey;
      const basket = await this.#routes.load(storeId);
      if (this.#loadedKey !== key) return; // another store or shopper meanwhile: its own load answers
      if (basketContent(basket) !== basketContent(this.basket$.value)) this.#publish(basket);
    });
    const settled = catchingUp.catch((error) => {
      if (this.#catchingUp === settled) this.#catchingUp = null;
      if (isTransient(error)) this.#behind = true; // tried again at the next return, or when the network is back
      logFailure(this.#session.prefix, "could not bring the basket up to date (changed elsewhere, or the page was away)", error);
    });
    this.#catchingUp = settled;
    this.#lastCatchUp = settled;
    return settled;
  }
}
