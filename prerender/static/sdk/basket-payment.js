// The shopper paid the retailer cart (docs/browser-api.md, "Payment"): the basket follows that cart and is
// confirmed, once per order id. `paymentStarted` keeps the cart being paid for the confirmation page, where the
// cart is already empty.
import { localProblem } from "./http.js";
import { emptyBasket, routeCartLines } from "./basket-model.js";
import { isRecent } from "./storage.js";
import { jsonText } from "./json.js";

const PAYMENT_STARTED = "payment-started";
const PAYMENT_STARTED_MS = 24 * 3600 * 1000;
// How long after `paymentStarted` an empty cart is taken for the payment's aftermath (the confirmation page comes
// within minutes), and not followed: after it, an empty cart is a shopper's, even with the payment unconfirmed.
const EMPTY_CART_HELD_MS = 3600 * 1000;
// The lines the payment route accepts of a paid cart (prerender/schemas/limits.py, MAX_CART_LINES).
const MAX_PAID_LINES = 500;

export class BasketPayments {
  #core;

  /** @param {import("./basket.js").BasketCore} core */
  constructor(core) {
    this.#core = core;
  }

  /**
   * POST /baskets/handle-payment: the user paid the retailer cart. The basket follows that cart and is
   * confirmed (once per order id, never empty); the identity then starts an empty basket. `cart` defaults to
   * the last one `retailerBasketChanged` reported. A cart without any line is never the one that was paid (the
   * basket would follow it and lose every recipe): the one `paymentStarted` kept is used instead; without it, a
   * local `#empty-cart` problem (`#no-cart` without any cart) and nothing sent.
   * @param {number} total @param {string} [orderId] @param {unknown} [cart] `[{id, quantity}]`
   * @returns {Promise<{ outcome: "confirmed" | "already_confirmed" | "empty", confirmed: boolean, basket_id?: string }>}
   */
  async confirm(total, orderId, cart) {
    const { routes, queue, session, sync } = this.#core;
    const amount = Number(total);
    if (!Number.isFinite(amount) || amount < 0) throw new TypeError("handlePayment expects a total >= 0");
    const given = cart !== undefined ? cart : sync.lastCart;
    // A cart with no line is gone (emptied by the payment, not reported yet on the confirmation page, or given
    // before the page had loaded it): the one `paymentStarted` kept for this shopper and this total is the cart
    // that was paid.
    const paid = isEmptyCart(given) ? (this.#startedCart(amount) ?? given) : given;
    const products = paidLines(paid);
    if (!products) {
      throw localProblem("no-cart", "No retailer cart to confirm",
        "Report the cart with basketSync.retailerBasketChanged(cart), or pass it to handlePayment(total, orderId, cart).");
    }
    if (isEmptyCart(paid)) {
      throw localProblem("empty-cart", "The paid cart has no product",
        "A paid cart holds what was bought; the basket, which follows it, is left as it is and nothing is sent. "
        + "Call handlePayment(total, orderId, cart) with the cart as it was paid (before emptying it), or "
        + "paymentStarted(total) when the payment starts.");
    }
    const storeId = await this.#core.requireStore();
    const answer = await queue.run(() => routes.handlePayment(storeId, amount, products, orderId));
    // The kept cart was this payment's (confirmed, or followed and found empty): it is done with.
    if (answer?.confirmed || answer?.outcome === "already_confirmed" || answer?.outcome === "empty") {
      session.local.remove(session.supplierKey(PAYMENT_STARTED));
    }
    if (answer?.confirmed) {
      sync.reset();
      this.#core.publish(emptyBasket(storeId));
    } else if (answer?.outcome === "empty") {
      // The basket followed the paid cart before it was found empty: show it as the service has it.
      void this.#core.reload().catch(() => {});
    }
    return answer;
  }

  /**
   * The shopper starts paying (the maker's `paymentStarted(total)`): the cart reported last is kept in
   * localStorage (`_<prefix>/supplier-<id>/payment-started`, for a day, with the total and the shopper) so that
   * `handlePayment(total)` on the confirmation page, where the cart is already empty, confirms the cart that was
   * paid: the same shopper's, for the same total (to the cent; any total when this one could not be read).
   * @param {number} total
   * @returns {{ total: number, lines: number }}
   */
  paymentStarted(total) {
    const { session, sync } = this.#core;
    // Called from the retailer's checkout button: a total it cannot read is reported, never thrown.
    const amount = Number(total);
    const readable = Number.isFinite(amount) && amount >= 0;
    if (!readable) {
      console.warn(`[${session.prefix}] paymentStarted(${jsonText(total)}): not a total >= 0; the cart is kept all the same`);
    }
    const cart = paidLines(sync.lastCart) ?? [];
    // A cart of nothing (no line of a quantity above 0) is no paid cart: nothing is kept.
    if (isEmptyCart(cart)) return { total: readable ? amount : 0, lines: 0 };
    const kept = { total: readable ? amount : null, cart, at: Date.now(), shopper: this.#shopper() };
    session.local.set(session.supplierKey(PAYMENT_STARTED), jsonText(kept));
    return { total: readable ? amount : 0, lines: cart.length };
  }

  /**
   * The cart `paymentStarted` kept for a payment of `amount`: less than a day old, kept for the shopper the SDK
   * acts for now, for that total (within a cent) or for a total it could not read. One that is old, unreadable
   * or another shopper's is removed; one for another total is left for its own payment.
   * @param {number} amount @returns {unknown[] | null}
   */
  #startedCart(amount) {
    const kept = this.#kept();
    if (!kept) return null;
    return kept.total === null || Math.abs(Number(kept.total) - amount) <= 0.01 ? kept.cart : null;
  }

  /**
   * Whether the basket must not follow this reported cart (BasketService's reconcile), as a payment's aftermath: a
   * cart without any of the service's products (`cart` as the routes take it) within an hour of `paymentStarted`,
   * while its kept cart waits for `handlePayment` (this shopper's, for any total). Followed, the confirmation page's
   * empty cart would take every recipe out before the payment confirms them. A cart with products that is not the
   * kept one means the shopper shops again: the kept cart is forgotten, and the next empty cart is followed.
   * @param {{ id: string, quantity: number }[]} cart
   */
  holdsBack(cart) {
    const kept = this.#kept();
    if (!kept) return false;
    if (isEmptyCart(cart)) return isRecent(kept.at, EMPTY_CART_HELD_MS);
    if (!sameCart(cart, kept.cart)) this.forget();
    return false;
  }

  /** Forgets the cart `paymentStarted` kept (the basket's `reset`: the shopper emptied the cart). */
  forget() {
    const { session } = this.#core;
    session.local.remove(session.supplierKey(PAYMENT_STARTED));
  }

  /**
   * The cart `paymentStarted` kept, when it is this shopper's and less than a day old; one that is old, unreadable
   * or another shopper's is removed.
   * @returns {{ total: number | null, cart: unknown[], at: number } | null}
   */
  #kept() {
    const { session } = this.#core;
    const key = session.supplierKey(PAYMENT_STARTED);
    try {
      const kept = JSON.parse(session.local.get(key) ?? "null");
      // (A cart kept by the SDK before the shopper was written with it names none: taken as this shopper's.)
      if (kept && Array.isArray(kept.cart) && isRecent(kept.at, PAYMENT_STARTED_MS)
        && (kept.shopper === undefined || kept.shopper === this.#shopper())) {
        return kept;
      }
    } catch {
      // unreadable: none
    }
    session.local.remove(key);
    return null;
  }

  /** The shopper the SDK acts for, as the kept cart names it ("" for none). */
  #shopper() {
    const identity = this.#core.session.identity$.value;
    return identity ? `${identity.kind}:${identity.id}` : "";
  }
}

/**
 * Whether two carts hold the same quantities of the same products (lines of no quantity aside).
 * @param {unknown[]} cart @param {unknown[]} other
 */
function sameCart(cart, other) {
  /** @param {unknown[]} lines */
  const held = (lines) => new Map(routeCartLines(lines).filter((line) => line.quantity > 0).map((line) => [line.id, line.quantity]));
  const [a, b] = [held(cart), held(other)];
  return a.size === b.size && [...a].every(([id, quantity]) => b.get(id) === quantity);
}

/**
 * No cart, or a cart without anything in it: no line, or only lines of no quantity (a line that cannot be one of
 * the service's products still counts: a retailer's own product was bought).
 * @param {unknown} cart
 */
function isEmptyCart(cart) {
  if (cart === null || cart === undefined) return true;
  return Array.isArray(cart) && cart.every((line) => !(Number(line?.quantity) > 0));
}

/**
 * The paid cart as the payment route takes it: `[{id, quantity}]` (`routeCartLines`: ids of the service's
 * products, whole quantities within the route's bounds), at most 500 lines; or null without a cart.
 * @param {unknown} cart
 * @returns {{ id: string, quantity: number }[] | null}
 */
export function paidLines(cart) {
  if (cart === null || cart === undefined) return null;
  if (!Array.isArray(cart)) throw new TypeError("handlePayment expects the cart as [{id, quantity}]");
  return routeCartLines(cart).slice(0, MAX_PAID_LINES);
}
