// Baskets arriving from an affiliated recipe publisher (docs/sdk.md, "Baskets from affiliated sites"). The
// publisher's drawer sends the visitor to this retailer's site with
//   ?affiliate=<publisher>&transferred_basket_token=<one-time token>&point_of_sale_ext_id=<store id>
// On any page with the SDK, the parameters are taken out of the address bar at once (the token is single-use:
// a bookmark or a shared link must not carry it) and kept in sessionStorage until the basket has arrived, so
// that a reload on the way (a login, a store change) does not lose it. Then, once the page has its shopper
// and its store: when the page's store differs from the one the visitor chose, the retailer's force-POS
// callback (`hook.setForcePosCallback`) is asked to switch (false: not now, asked again on the next page, twice
// at most: then the basket arrives at the page's store);
// the basket is redeemed at the page's store and its products pushed to the cart by the basket-sync
// callbacks, as if the visitor had added them here. The visitor is told what arrived ("Votre panier de Le
// Magazine Cuisine : 1 recette, 6 produits", the service's message in the page's texts) in the toaster.
// A redeem whose outcome is not known yet (no answer, a 5xx, the redeem still in progress) keeps the link, its key
// and the store it was sent for: the toaster says the basket is still on its way, the SDK tries again in this page
// twice, then on the next page. A refused credential keeps it for the next page (a fresh credential), and says
// to reload or sign in. An answer about the link itself (unknown, expired, used, malformed) is final: the link is
// dropped and the toaster says so.
import { Stream } from "./observable.js";
import { ApiError, asksToRetryLater, logFailure, newIdempotencyKey } from "./http.js";
import { isRecent, safeStorage } from "./storage.js";
import { jsonText } from "./json.js";

export const TRANSFER_PARAMS = Object.freeze({
  affiliate: "affiliate",
  token: "transferred_basket_token",
  store: "point_of_sale_ext_id",
});
/** A pending transfer is dropped after this long (the service's links expire sooner). */
const PENDING_MAX_AGE_MS = 60 * 60 * 1000;
const TOKEN = /^[A-Za-z0-9_-]{20,128}$/;
/** After this many "not now" answers of the force-POS callback, the basket arrives at the page's store. */
const MAX_FORCE_ATTEMPTS = 2;
/** How long the message of what arrived stays (longer than the toaster's "added" confirmations: it says more). */
const RECEIVED_SHOWN_MS = 10_000;
/** After a redeem whose outcome is not known yet, the next attempts in this page (then on the next page). */
export const RETRY_IN_PAGE_MS = Object.freeze([5_000, 20_000]);
// Refusals that are not about the link: the shopper's credential (expired: the next page has a fresh one) and the
// service's rate limit. The link is kept for them.
const NOT_ABOUT_THE_LINK = new Set([401, 429]);

/**
 * A transfer waiting to arrive. `key`: the redeem's idempotency key, kept until the answer is known, so that a
 * redeem cut short by a reload is answered again (not refused as used); `sentFor`: the store its first attempt
 * named, which every attempt with that key names again (the same request); `forced`: the force-POS attempts.
 * @typedef {{ token: string, storeId: string, affiliate: string, at: number, key: string, forced: number,
 *   sentFor?: string }} PendingTransfer
 */
/** @typedef {(storeId: string) => boolean | Promise<boolean>} ForcePosCallback */

export class TransferArrivals {
  /** Emits `{affiliate, recipeCount, changes, cartFollowed}` each time a basket has arrived. */
  received$ = new Stream();
  /** @type {ForcePosCallback | null} */
  #forcePos = null;
  #store = safeStorage("sessionStorage");
  #running = false;
  /** The attempts of this page after a failure whose outcome is not known. */
  #retriesInPage = 0;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  #retryTimer;
  #deps;

  /**
   * @param {object} deps
   * @param {import("./session.js").Session} deps.session
   * @param {import("./pos.js").Pos} deps.pos
   * @param {import("./basket.js").BasketService} deps.basket
   * @param {import("./notices.js").Notices} deps.notices
   * @param {import("./toaster.js").Toaster} deps.toaster where the visitor is told what arrived
   * @param {(name: string, props: Record<string, unknown>) => unknown} deps.track
   * @param {() => Promise<unknown>} deps.settled resolves once the page has loaded and its basket calls are done
   */
  constructor(deps) {
    this.#deps = deps;
  }

  get #key() {
    return this.#deps.session.key("transferredBasket");
  }

  /** `hook.setForcePosCallback`: how the retailer's page switches to the store the visitor chose. */
  setForcePosCallback(/** @type {unknown} */ callback) {
    if (callback !== null && typeof callback !== "function") throw new TypeError("setForcePosCallback expects a function");
    this.#forcePos = /** @type {ForcePosCallback | null} */ (callback);
    if (callback && this.pending()) void this.#deps.settled().then(() => this.resume());
  }

  /** Takes the transfer parameters out of the address, keeping them until the basket has arrived. */
  catchArrival() {
    const url = new URL(window.location.href);
    const token = url.searchParams.get(TRANSFER_PARAMS.token);
    if (token === null) return;
    const storeId = (url.searchParams.get(TRANSFER_PARAMS.store) ?? "").trim();
    const affiliate = (url.searchParams.get(TRANSFER_PARAMS.affiliate) ?? "").trim().slice(0, 200);
    for (const name of Object.values(TRANSFER_PARAMS)) url.searchParams.delete(name);
    try {
      window.history.replaceState(window.history.state, "", url.href);
    } catch (error) {
      console.warn(`[${this.#deps.session.prefix}] could not clean the transfer link out of the address`, error);
    }
    if (!TOKEN.test(token) || !storeId) {
      console.warn(`[${this.#deps.session.prefix}] ignored a malformed basket transfer link`);
      return;
    }
    /** @type {PendingTransfer} */
    const pending = { token, storeId, affiliate, at: Date.now(), key: newIdempotencyKey(), forced: 0 };
    this.#save(pending);
  }

  /** Keeps the pending transfer: whether the tab's storage kept it (a reload finds it), not this page's memory.
   * @param {PendingTransfer} pending */
  #save(pending) {
    return this.#store.set(this.#key, jsonText(pending));
  }

  /** The transfer waiting to arrive, or null. @returns {PendingTransfer | null} */
  pending() {
    try {
      const value = JSON.parse(this.#store.get(this.#key) ?? "null");
      if (!value || typeof value.token !== "string" || typeof value.storeId !== "string") return null;
      if (!isRecent(value.at, PENDING_MAX_AGE_MS)) {
        this.#store.remove(this.#key);
        return null;
      }
      return /** @type {PendingTransfer} */ ({ key: newIdempotencyKey(), forced: 0, ...value });
    } catch {
      this.#store.remove(this.#key);
      return null;
    }
  }

  /** The page's next attempt; a second later when another attempt is under way (it may bring the basket in). */
  #retry() {
    if (!this.#running) return void this.resume();
    this.#retryTimer = setTimeout(() => this.#retry(), 1000);
  }

  /**
   * Tells the visitor what became of the basket: in the open drawer, else in the toaster (visible, and announced).
   * @param {string} text @param {"info" | "error"} [kind]
   */
  #tell(text, kind = "info") {
    if (!this.#deps.notices.presentInDialog(text, kind)) this.#deps.toaster.show(text, RECEIVED_SHOWN_MS);
  }

  /**
   * Brings a pending basket in once the page has a shopper and a store (at most one attempt at a time).
   * @returns {Promise<void>}
   */
  async resume() {
    const pending = this.pending();
    if (!pending || this.#running) return;
    this.#running = true;
    let arrived = false;
    const { session, pos, basket, notices, toaster, track } = this.#deps;
    toaster.prepare(); // the live region exists before its message: one filled as it appears may not be read
    try {
      await firstMatching(session.identity$, Boolean);
      const pageStore = await pos.whenLoaded();
      let storeId = pageStore ?? pending.storeId;
      const forcePos = pageStore !== pending.storeId && pending.forced < MAX_FORCE_ATTEMPTS ? this.#forcePos : null;
      // Counted before the call: a callback that reloads the page never returns here. A tab that cannot keep the
      // link across that reload (its sessionStorage blocked or full) would lose it: the basket arrives at the
      // page's store instead, as after the callback's last "not now".
      const kept = forcePos !== null && this.#save({ ...pending, forced: pending.forced + 1 });
      if (forcePos !== null && !kept) {
        console.warn(`[${session.prefix}] this tab cannot keep a basket transfer across a reload: it arrives without a store switch`);
      }
      if (forcePos !== null && kept) {
        const switched = await Promise.resolve(forcePos(pending.storeId)).catch((error) => {
          console.error(`[${session.prefix}] the force-POS callback failed`, error);
          return false;
        });
        if (!switched) return; // not now: the basket waits in this tab for the next page
        storeId = pending.storeId;
        await pos.load(storeId);
      } else if (pageStore === null) {
        await pos.load(storeId);
      }
      const current = this.pending();
      if (current?.token !== pending.token) return; // another page of this tab took it meanwhile
      // Every attempt with the key names the store the first one named: the same request, answered alike.
      if (current.sentFor === undefined) this.#save({ ...current, sentFor: storeId });
      storeId = current.sentFor ?? storeId;
      const answer = await basket.receiveTransfer(current.token, storeId, current.key);
      arrived = true;
      this.#store.remove(this.#key);
      const recipeCount = Number(answer.transfer?.recipe_count ?? 0);
      const affiliate = answer.transfer?.source_supplier_name || pending.affiliate;
      track("basket.transfer-received", { store_id: storeId, recipe_count: recipeCount });
      if (answer.cartFollowed === false) {
        // The retailer's cart callbacks failed: what arrived is in the basket, not in the cart. Not "arrived".
        this.#tell(notices.t("transfer.not-followed", { affiliate }), "error");
      } else {
        const message = typeof answer.transfer?.message === "string" && answer.transfer.message
          ? answer.transfer.message
          : notices.t("transfer.received", { affiliate, recipes: recipeCount, products: addedProducts(answer.changes) });
        this.#tell(message);
      }
      this.received$.next({ affiliate, recipeCount, changes: answer.changes, cartFollowed: answer.cartFollowed });
    } catch (error) {
      if (arrived) {
        console.error(`[${session.prefix}] the basket transfer arrived; telling the page failed`, error);
        return;
      }
      // The page is leaving (its requests aborted): the link waits for the next page.
      if (error instanceof DOMException && error.name === "AbortError") return;
      logFailure(session.prefix, "the basket transfer was not received", error);
      if (error instanceof ApiError && error.status === 401) {
        // The shopper's credential was refused: the same one would be again. The next page, with a fresh one,
        // redeems the link.
        this.#tell(notices.t("error.credential"), "error");
        return;
      }
      // An answer about the link (unknown, expired or used, malformed) is final; a network failure, a 5xx, a 409
      // asking to be asked again (the redeem still in progress) or a rate limit keeps the token and its key, so
      // that the service answers the first attempt's outcome if it got it.
      const final = error instanceof ApiError && isAboutTheLink(error);
      if (final) {
        this.#store.remove(this.#key);
        const expired = error.status === 404 || error.status === 410;
        this.#tell(notices.t(expired ? "transfer.expired" : "transfer.failed"), "error");
      } else {
        const retryMs = RETRY_IN_PAGE_MS[this.#retriesInPage];
        const affiliate = pending.affiliate || notices.t("transfer.affiliate");
        this.#tell(notices.t(retryMs === undefined ? "transfer.next-page" : "transfer.later", { affiliate }));
        if (retryMs !== undefined) {
          this.#retriesInPage += 1;
          clearTimeout(this.#retryTimer);
          this.#retryTimer = setTimeout(() => this.#retry(), retryMs);
        }
      }
    } finally {
      this.#running = false;
    }
  }
}

/**
 * Whether a refusal of the redeem is about the link itself, and final (a 4xx but a refused credential, a rate limit
 * and a 409 asking to be asked again).
 * @param {ApiError} error
 */
function isAboutTheLink(error) {
  return error.status >= 400 && error.status < 500 && !NOT_ABOUT_THE_LINK.has(error.status) && !asksToRetryLater(error);
}

/**
 * The products a basket write adds to the cart (its changes of a positive quantity), each counted once.
 * @param {{ quantity: number }[] | undefined} changes
 */
function addedProducts(changes) {
  return (changes ?? []).filter((change) => Number(change.quantity) > 0).length;
}

/**
 * The first value of a state that passes `test` (the current one included).
 * @template T
 * @param {import("./observable.js").State<T>} state @param {(value: T) => boolean} test
 * @returns {Promise<T>}
 */
function firstMatching(state, test) {
  return new Promise((resolve) => {
    /** @type {{ unsubscribe(): void } | null} */
    let subscription = null;
    let done = false;
    subscription = state.subscribe((value) => {
      if (done || !test(value)) return;
      done = true;
      subscription?.unsubscribe(); // null when the current value passed, during subscribe: see below
      resolve(value);
    });
    if (done) subscription.unsubscribe();
  });
}
