// Keeps the retailer's cart and our basket together (issue "Browser runtime", section 4).
//
// After each basket change the retailer's callbacks get the answer's `changes`. The change then waits for
// `retailerBasketChanged(cart)` to show the pushed quantities; when no call does within the time limit
// (5 s), the change is rolled back with the inverse basket operation and the user is told (unless another tab's
// cart was taken meanwhile: `#timedOut`). While a change
// waits, a cart that does not show it yet is not reconciled (that would undo the change on our side before
// the retailer had a chance to apply it): the latest such cart is reconciled once nothing waits any more. A
// cart whose reconcile reaches the service only after a newer change was registered (it waited its turn behind
// that write: a transferred basket arriving as the page reports its cart at load) is older than that change:
// it waits again, for the cart that shows the change.
//
// The shopper's tabs of one site share one cart (the site's cookies), and each page reports it on its own. A cart
// another tab's page reported (`cartReportedElsewhere`), when it was reported after the newest this tab knows
// (by the time of the reports: a message may arrive after this tab's own later report), is what
// this tab's changes are checked against from then on, not the cart as this page last saw it (a removal would
// wait for a quantity the other tab's addition made out of reach, and be rolled back). It settles what it shows
// and takes the place of a cart waiting here to be reconciled; a reconcile of an older cart still queued here
// is not sent (it would take out what the newer cart shows and the other tab reconciled). It is not
// reconciled here otherwise: the reporting tab does that. A reconcile already on its way may still reach the
// service after the other tab's newer one: each says when its cart was reported, and an older cart of this browser
// leaves to the cart what a newer one showed of what the basket awaited (docs/upstream.md, `POST /basket/reconcile`).

import { routeCartLines } from "./basket-model.js";

/** @typedef {{ id: string, quantity: number }} ProductQuantity */
/** @typedef {(products: ProductQuantity[]) => unknown} CartCallback */
/**
 * What a reconcile asks when its turn comes: whether no change was registered since its cart was taken, else
 * the reconcile of a cart that shows it (this cart waits again, or a newer one reported meanwhile answers).
 * @typedef {{ current: () => boolean, later: () => Promise<unknown> }} StaleGuard
 */

/**
 * What a rollback did: undone; failed (no answer, or refused); kept (nothing to go back to: products that arrived
 * from elsewhere stay in the basket).
 * @typedef {"undone" | "failed" | "kept"} RollbackOutcome
 */

/**
 * @typedef {object} Pending
 * @property {Map<string, { delta: number, target: number }>} targets cart quantity each product must reach
 * @property {() => Promise<RollbackOutcome | void>} rollback the inverse basket operation
 * @property {ReturnType<typeof setTimeout> | undefined} timer
 * @property {boolean} settled
 * @property {number} heardBefore how many carts of other tabs this tab had taken when the change was registered
 */

/**
 * The cart as a map of product id to quantity, bad rows rejected: duplicate ids summed, then the lines as the cart
 * routes take them (`routeCartLines`: ids of the service's products only, quantities rounded up to whole ones
 * within 0 and 9 999). What the SDK compares with its waiting changes is then what reconcile sends: a weighed
 * product's 0.4 shows an addition of 1, as the basket the service keeps from it does.
 * @param {unknown} products
 * @returns {Map<string, number>}
 */
export function normalizeCart(products) {
  if (!Array.isArray(products)) throw new TypeError("retailerBasketChanged expects an array of {id, quantity}");
  const summed = new Map();
  for (const product of products) {
    const id = product?.id ?? product?.productId;
    const quantity = Number(product?.quantity);
    if (id === undefined || id === null || !Number.isFinite(quantity)) {
      throw new TypeError("retailerBasketChanged expects an array of {id, quantity}");
    }
    const key = String(id).trim();
    summed.set(key, (summed.get(key) ?? 0) + quantity);
  }
  const lines = routeCartLines([...summed].map(([id, quantity]) => ({ id, quantity })));
  return new Map(lines.map((line) => [line.id, line.quantity]));
}

export class BasketSync {
  /** @type {CartCallback | null} */
  #push = null;
  /** @type {CartCallback | null} */
  #add = null;
  /** @type {CartCallback | null} */
  #remove = null;
  /** @type {Pending[]} */
  #pending = [];
  /** What the cart should hold: the last cart the retailer gave, plus the changes still waiting. */
  /** @type {Map<string, number> | null} */
  #expected = null;
  /** @type {Map<string, number> | null} */
  #deferredCart = null;
  /** @type {Array<(value: Promise<unknown>) => void>} */
  #deferredWaiters = [];
  #reconcile;
  #onRollback;
  #timeoutMs;
  /** @type {ProductQuantity[] | null} */
  #lastCart = null;
  /** How many changes the cart was asked to follow so far: a reconcile is stale once it grew. */
  #registered = 0;
  /** How many carts were reported so far (here, or newer ones in other tabs), and which of them `#deferredCart` is. */
  #reported = 0;
  #deferredReport = 0;
  /** When `#deferredCart` was reported (`now()`, here or in another tab): its reconcile says so. */
  #deferredAt = 0;
  /** How many carts of other tabs this tab took (`cartReportedElsewhere`). */
  #heard = 0;
  /** When the newest cart this tab knows was reported (`now()`), here or in another tab. */
  #reportedAt = -Infinity;
  /** @type {Map<string, number> | null} the newest cart this tab knows, here or from another tab */
  #newest = null;
  /** @type {Promise<unknown>} the reconcile started last, and which report it is */
  #lastReconcile = Promise.resolve(null);
  #lastReconcileReport = 0;
  #onReported;
  #onReset;
  #now;

  /**
   * @param {object} options
   * @param {(cart: ProductQuantity[], guard: StaleGuard, at: number) => Promise<unknown>} options.reconcile POST
   *   /basket/reconcile of the cart reported at `at`, unless `guard.current()` is false when its turn comes (then
   *   `guard.later()` answers)
   * @param {(error: unknown, outcome: RollbackOutcome) => void} options.onRollback tells the user what became of a
   *   change the cart did not follow, once its rollback is done (`error`: the callback's failure, if that was why)
   * @param {(cart: ProductQuantity[], at: number) => void} [options.onReported] this page reported its cart
   *   (normalised) at `at`: the shopper's other tabs are told
   * @param {() => void} [options.onReset] the waiting changes and the carts were forgotten (`reset`)
   * @param {number} [options.timeoutMs]
   * @param {() => number} [options.now] the clock the tabs share (default: Date.now)
   */
  constructor({ reconcile, onRollback, onReported = () => {}, onReset = () => {}, timeoutMs = 5000, now = () => Date.now() }) {
    this.#reconcile = reconcile;
    this.#onReset = onReset;
    this.#onRollback = onRollback;
    this.#onReported = onReported;
    this.#timeoutMs = timeoutMs;
    this.#now = now;
  }

  /** @param {CartCallback | null} callback all changes, positive to add and negative to remove */
  definePush(callback) {
    this.#push = checkCallback(callback);
  }

  /** @param {CartCallback | null} callback the additions, `{id, quantity}` with quantity > 0 */
  defineAdd(callback) {
    this.#add = checkCallback(callback);
  }

  /** @param {CartCallback | null} callback the removals, `{id, quantity}` with the quantity to remove (> 0) */
  defineRemove(callback) {
    this.#remove = checkCallback(callback);
  }

  /**
   * Registers a basket change just answered by the service. Called inside the basket's write queue so
   * that the expected cart follows the order of the writes; returns the function that calls the
   * retailer's callbacks, to be run outside the queue (a callback may call retailerBasketChanged), and
   * resolving to whether they all went through.
   * @param {ProductQuantity[]} changes
   * @param {{ after: any, rollback: () => Promise<RollbackOutcome | void> }} context
   * @returns {(() => Promise<boolean>) | null}
   */
  register(changes, { after, rollback }) {
    const pushed = (changes ?? [])
      .map((change) => ({ id: String(change.id), quantity: Number(change.quantity) }))
      .filter((change) => Number.isFinite(change.quantity) && change.quantity !== 0)
      .filter((change) => this.#push || (change.quantity > 0 ? this.#add : this.#remove));
    if (pushed.length === 0) return null;
    this.#registered += 1;

    /** @type {Pending} */
    const pending = { targets: new Map(), rollback, timer: undefined, settled: false, heardBefore: this.#heard };
    for (const { id, quantity } of pushed) {
      if (this.#expected) {
        const target = Math.max(0, (this.#expected.get(id) ?? 0) + quantity);
        pending.targets.set(id, { delta: quantity, target });
        this.#expected.set(id, target);
      } else if (quantity > 0) {
        // No cart seen yet: the cart must at least hold what the basket now holds of that product.
        const inBasket = after?.products?.find((/** @type {any} */ p) => String(p.id) === id)?.quantity ?? quantity;
        pending.targets.set(id, { delta: quantity, target: Number(inBasket) });
      }
      // A removal before any cart was seen cannot be checked: nothing to wait for.
    }
    if (pending.targets.size > 0) {
      this.#pending.push(pending);
      pending.timer = setTimeout(() => this.#timedOut(pending), this.#timeoutMs);
    }
    return async () => {
      try {
        await this.#callCallbacks(pushed);
        return true;
      } catch (error) {
        // The callbacks failed: the change is undone at once, checkable or not (a removal before any cart).
        this.#fail(pending, error);
        return false;
      }
    };
  }

  /**
   * The retailer's cart changed: settle the changes it shows, then reconcile (now, or once no change
   * waits any more).
   * @param {unknown} products `[{id, quantity}]`
   * @returns {Promise<unknown>} the reconciled basket
   */
  cartChanged(products) {
    const cart = normalizeCart(products);
    const at = Math.max(this.#now(), this.#reportedAt + 1e-3); // this page's newest, whatever the clock did
    this.#lastCart = toList(cart);
    this.#take(cart, at);
    this.#onReported(toList(cart), at);
    // The newest cart wins; callers still waiting on an older one get the same reconciled basket.
    return this.#deferNewest(cart, at);
  }

  /**
   * The cart another tab's page reported at `at` (already normalised there; a malformed one is ignored): unless
   * this tab knows a cart reported later, the site's one cart as it is now. It settles the changes it shows and is
   * the cart the next changes are checked against; it takes the place of a cart waiting here to be reconciled, and
   * is reconciled here only then. `lastCart` stays this page's own.
   * @param {unknown} products `[{id, quantity}]` @param {unknown} at when it was reported (`now()` there)
   */
  cartReportedElsewhere(products, at) {
    if (typeof at !== "number" || !Number.isFinite(at) || !(at > this.#reportedAt)) return;
    let cart;
    try {
      cart = normalizeCart(products);
    } catch {
      return;
    }
    this.#heard += 1;
    this.#take(cart, at);
    if (this.#deferredCart) {
      this.#deferredCart = cart;
      this.#deferredReport = this.#reported;
      this.#deferredAt = at;
    }
    this.#flushDeferred();
  }

  /**
   * A reported cart is the newest: the changes it shows are settled, and it plus the changes still waiting is
   * what the cart should hold.
   * @param {Map<string, number>} cart @param {number} at
   */
  #take(cart, at) {
    this.#reported += 1;
    this.#reportedAt = at;
    this.#newest = cart;
    for (const pending of [...this.#pending]) {
      if (isShownBy(pending, cart)) this.#settle(pending);
    }
    this.#expected = new Map(cart);
    for (const pending of this.#pending) {
      for (const [id, { delta }] of pending.targets) {
        this.#expected.set(id, Math.max(0, (this.#expected.get(id) ?? 0) + delta));
      }
    }
  }

  /**
   * A cart whose reconcile came after a newer change: it waits again (the reconcile of the cart that shows the
   * change answers), unless a newer cart was reported meanwhile, whose reconcile answers.
   * @param {Map<string, number>} cart @param {number} report which reported cart it is
   * @param {number} at when it was reported
   * @returns {Promise<unknown>} the reconciled basket
   */
  #later(cart, report, at) {
    if (report < this.#reported && !this.#deferredCart) {
      // A newer cart's reconcile answers; none was started here (another tab's cart): nothing to answer with.
      return this.#lastReconcileReport > report ? this.#lastReconcile : Promise.resolve(null);
    }
    return report === this.#reported ? this.#deferNewest(cart, at) : this.#whenReconciled();
  }

  /**
   * Reconciles again the newest cart this tab knows (its own, or another tab's), with the time it was reported: the
   * basket follows it once the service no longer leaves the cart what a write asked (a write whose answer was lost).
   * Nothing before any cart.
   * @returns {Promise<unknown>} the reconciled basket
   */
  reconcileNewest() {
    return this.#newest ? this.#deferNewest(this.#newest, this.#reportedAt) : Promise.resolve(null);
  }

  /**
   * The newest cart, reported at `at`, is the one to reconcile (now, or once no change waits).
   * @param {Map<string, number>} cart @param {number} at @returns {Promise<unknown>} the reconciled basket
   */
  #deferNewest(cart, at) {
    this.#deferredCart = cart;
    this.#deferredReport = this.#reported;
    this.#deferredAt = at;
    return this.#whenReconciled();
  }

  /** The basket the cart waiting to be reconciled gets (now, or once no change waits). @returns {Promise<unknown>} */
  #whenReconciled() {
    const reconciled = new Promise((resolve) => this.#deferredWaiters.push(resolve));
    this.#flushDeferred();
    return reconciled;
  }

  /** The cart the retailer reported last (`retailerBasketChanged`), or null before any. */
  get lastCart() {
    return this.#lastCart ? this.#lastCart.map((line) => ({ ...line })) : null;
  }

  /** Forgets every waiting change and what the cart was (after a payment, a basket reset). */
  reset() {
    this.#lastCart = null;
    this.#newest = null;
    for (const pending of this.#pending) {
      pending.settled = true;
      clearTimeout(pending.timer);
    }
    this.#pending = [];
    this.#expected = null;
    this.#deferredCart = null;
    this.#lastReconcile = Promise.resolve(null);
    for (const resolve of this.#deferredWaiters.splice(0)) resolve(Promise.resolve(null));
    this.#onReset();
  }

  /** @param {ProductQuantity[]} changes */
  async #callCallbacks(changes) {
    if (this.#push) {
      await this.#push(changes.map((change) => ({ ...change })));
      return;
    }
    const additions = changes.filter((change) => change.quantity > 0);
    const removals = changes.filter((change) => change.quantity < 0)
      .map((change) => ({ id: change.id, quantity: -change.quantity }));
    if (additions.length > 0 && this.#add) await this.#add(additions);
    if (removals.length > 0 && this.#remove) await this.#remove(removals);
  }

  /** @param {Pending} pending */
  #settle(pending) {
    pending.settled = true;
    clearTimeout(pending.timer);
    this.#pending = this.#pending.filter((other) => other !== pending);
  }

  /**
   * No cart showed the change in time. When another tab's cart was taken since the change was registered, the
   * shopper changed the cart there at the same moment, which may keep the quantities this tab waits for out of
   * reach while the retailer did follow: the change is left to the reconcile of the newest cart (the service leaves
   * what it asked the cart to add a while: docs/upstream.md) instead of being undone with a false "not followed".
   * Otherwise it is undone.
   * @param {Pending} pending
   */
  #timedOut(pending) {
    if (this.#heard === pending.heardBefore) {
      this.#fail(pending);
      return;
    }
    this.#settle(pending);
    this.#flushDeferred();
  }

  /**
   * The cart did not follow in time (or a callback failed): undo the change on our side.
   * @param {Pending} pending
   * @param {unknown} [error]
   */
  #fail(pending, error) {
    if (pending.settled) return;
    this.#settle(pending);
    if (this.#expected) {
      for (const [id, { delta }] of pending.targets) {
        this.#expected.set(id, Math.max(0, (this.#expected.get(id) ?? 0) - delta));
      }
    }
    // The rollback is queued before the deferred reconcile, so they reach the service in that order. The user is
    // told once it is done: undone, or not (the basket then follows the cart at its next reconcile).
    const rollback = pending.rollback();
    this.#flushDeferred();
    rollback.then(
      (outcome) => this.#onRollback(error, outcome ?? "undone"),
      () => this.#onRollback(error, "failed"),
    );
  }

  #flushDeferred() {
    if (this.#pending.length > 0 || !this.#deferredCart) return;
    const cart = this.#deferredCart;
    const report = this.#deferredReport;
    const at = this.#deferredAt;
    this.#deferredCart = null;
    const registered = this.#registered;
    const reconciled = this.#reconcile(toList(cart), {
      // Stale once a change was registered since, or a newer cart was reported (here, or in another tab).
      current: () => this.#registered === registered && this.#reported === report,
      later: () => this.#later(cart, report, at),
    }, at);
    this.#lastReconcile = reconciled;
    this.#lastReconcileReport = report;
    for (const resolve of this.#deferredWaiters.splice(0)) resolve(reconciled);
  }
}

/** @param {Pending} pending  @param {Map<string, number>} cart */
function isShownBy(pending, cart) {
  for (const [id, { delta, target }] of pending.targets) {
    const quantity = cart.get(id) ?? 0;
    if (delta > 0 ? quantity < target : quantity > target) return false;
  }
  return true;
}

/** @param {Map<string, number>} cart */
function toList(cart) {
  return [...cart].map(([id, quantity]) => ({ id, quantity }));
}

/** @param {unknown} callback */
function checkCallback(callback) {
  if (callback !== null && typeof callback !== "function") throw new TypeError("expected a function or null");
  return /** @type {CartCallback | null} */ (callback);
}
