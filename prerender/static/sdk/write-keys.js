// The idempotency key of a basket write whose outcome stayed unknown: every attempt met a network failure, a time
// limit, a 502, 503 or 504 (sdk/http.js), so the service may have applied it while the shopper was told it failed.
// The same write asked again on this page (the shopper presses "add all" again once the network is back) goes with
// that key: the service answers it with its first outcome, `changes` included, or applies it now; either way its
// products reach the cart. Sent with a new key, a write the service had applied would find the recipe there already
// and push nothing.
//
// A key is kept only while the basket cannot have moved on without this page knowing: it goes when this page gets
// an answer about that recipe, when another tab says the basket changed, with another store or shopper, and once a
// reconcile was sent `CATCH_UP_MS` after the write (the service then follows the cart, which lacks what was lost).
// The basket page reconciles its cart then by itself (sdk/basket.js), so that it does not hold for long a recipe
// the shopper was told did not arrive.
import { newIdempotencyKey } from "./http.js";

/** How long the service leaves to the cart what a write asked it to add (coreapi's `CATCH_UP`, docs/upstream.md). */
export const CATCH_UP_MS = 30_000;

/** @typedef {{ key: string, recipeId: string, at: number }} KeptKey */

export class WriteKeys {
  /** @type {Map<string, KeptKey>} per write (its `signature`: what it asks, as a string) */
  #kept = new Map();
  #now;

  /** @param {{ now?: () => number }} [options] the page's clock */
  constructor({ now = () => Date.now() } = {}) {
    this.#now = now;
  }

  /** The key of this write: the one kept for the same write, else a new one. @param {string} signature */
  keyFor(signature) {
    return this.#kept.get(signature)?.key ?? newIdempotencyKey();
  }

  /**
   * The write got no answer: its key is kept for the same write asked again.
   * @param {string} signature @param {string} recipeId @param {string} key
   */
  unknown(signature, recipeId, key) {
    this.#kept.set(signature, { key, recipeId, at: this.#now() });
  }

  /** This page got an answer about the recipe (its write done, or refused): its kept keys go. @param {string} recipeId */
  answered(recipeId) {
    for (const [signature, kept] of this.#kept) {
      if (kept.recipeId === recipeId) this.#kept.delete(signature);
    }
  }

  /** A reconcile is sent at `at`: the keys of writes asked `CATCH_UP_MS` or more before it go. @param {number} at */
  reconciling(at) {
    for (const [signature, kept] of this.#kept) {
      if (at - kept.at >= CATCH_UP_MS) this.#kept.delete(signature);
    }
  }

  /** Every kept key goes (another tab changed the basket; another store or shopper). */
  forget() {
    this.#kept.clear();
  }

  /** How many keys are kept. */
  get size() {
    return this.#kept.size;
  }
}
