// The idempotency key of a basket write whose outcome stayed unknown: every attempt met a network failure, a time
// limit, a 502, 503 or 504, or a last 409 asking to be asked again (sdk/http.js), so the service may have applied it
// while the shopper was told it failed. The same write asked again on this page, at the same store (the shopper
// presses "add all" again once the network is back), goes with that key: the service answers it with its first
// outcome, `changes` included, or applies it now; either way its products reach the cart once. Sent with a new key,
// a write the service had applied would find the recipe there already and push nothing.
//
// A key is kept only while the basket cannot have moved on without this page knowing: it goes when this page gets
// an answer about that recipe, when another tab says the basket changed, when the page's basket is reset (another
// store or shopper, a payment, `reload`, `reset`), when products arrive from elsewhere (a merge, a menu, a transfer),
// and when the page shows again after a while away (another device may have been used). A forget while the write is
// still on its way counts too (`generation`). What the service did since without the page knowing (a reconcile past
// its `CATCH_UP` taking the recipe out) is read from the basket after the answer: sdk/basket.js.
import { newIdempotencyKey } from "./http.js";

/** A write whose outcome stayed unknown: its key and its recipe. @typedef {{ key: string, recipeId: string }} KeptKey */

export class WriteKeys {
  /** @type {Map<string, KeptKey>} per write (its `signature`: what it asks and where, as a string) */
  #kept = new Map();
  /** Counts the forgets: a write sent before one does not keep its key after it. */
  #generation = 0;

  /**
   * Whether this write's key is kept: the service may answer the same write with its first outcome, whose basket is
   * the basket of then. @param {string} signature
   */
  keeps(signature) {
    return this.#kept.has(signature);
  }

  /**
   * The key for this write: the kept one of the same write, else a new one; `generation` goes back to `unknown`.
   * @param {string} signature
   * @returns {{ key: string, generation: number }}
   */
  keyFor(signature) {
    return { key: this.#kept.get(signature)?.key ?? newIdempotencyKey(), generation: this.#generation };
  }

  /**
   * The write got no answer: its key is kept for the same write asked again, unless the keys were forgotten since
   * it was sent.
   * @param {string} signature @param {KeptKey} kept @param {number} generation `keyFor`'s
   */
  unknown(signature, kept, generation) {
    if (generation === this.#generation) this.#kept.set(signature, kept);
  }

  /** This page got an answer about the recipe (its write done, or refused): its kept keys go. @param {string} recipeId */
  answered(recipeId) {
    for (const [signature, kept] of this.#kept) {
      if (kept.recipeId === recipeId) this.#kept.delete(signature);
    }
  }

  /** Every kept key goes (the basket was reset, or changed elsewhere), and those of writes on their way too. */
  forget() {
    this.#kept.clear();
    this.#generation += 1;
  }
}
