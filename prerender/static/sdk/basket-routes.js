// The basket's routes of prerender's browser API (docs/browser-api.md, "JSON routes"; prerender/blueprints/
// basket.py, payments.py, transfers.py, menu.py): one method per call, so that a path is written once.

import { ApiError } from "./http.js";

/** @typedef {import("./basket.js").Basket} Basket */
/** @typedef {import("./basket.js").BasketAnswer} BasketAnswer */
/** @typedef {import("./basket.js").ChosenLine} ChosenLine */

/**
 * Whether a reconcile was refused for its `reported` (a 400 naming it). @param {unknown} error
 */
function refusesReport(error) {
  if (!(error instanceof ApiError) || error.status !== 400) return false;
  const fields = /** @type {{ json?: Record<string, unknown> } | undefined} */ (error.problem.errors)?.json;
  return typeof fields === "object" && fields !== null && "reported" in fields;
}

/** A recipe's path segment. @param {string} id */
const recipePath = (id) => `/basket/recipes/${encodeURIComponent(id)}`;

export class BasketRoutes {
  #client;

  /** @param {import("./http.js").ApiClient} client */
  constructor(client) {
    this.#client = client;
  }

  /** GET /basket at a store. @param {string} storeId @returns {Promise<Basket>} */
  load(storeId) {
    return this.#client.request("GET", "/basket", { query: { store_id: storeId } });
  }

  /**
   * POST /basket/recipes: the recipe for `guests`, with the shopper's choices when there are some. Each write
   * takes the caller's idempotency key (sdk/write-keys.js), or a new one.
   * @param {string} id @param {number} guests @param {string} storeId @param {ChosenLine[]} [lines]
   * @param {string} [idempotencyKey]
   * @returns {Promise<BasketAnswer>}
   */
  addRecipe(id, guests, storeId, lines = [], idempotencyKey) {
    return this.#client.request("POST", "/basket/recipes", {
      json: { recipe_id: id, guests, store_id: storeId, ...(lines.length > 0 ? { lines } : {}) }, write: true, idempotencyKey,
    });
  }

  /**
   * PATCH /basket/recipes/<id>.
   * @param {string} id @param {number} guests @param {string} storeId @param {string} [idempotencyKey]
   * @returns {Promise<BasketAnswer>}
   */
  setGuests(id, guests, storeId, idempotencyKey) {
    return this.#client.request("PATCH", recipePath(id), { json: { guests, store_id: storeId }, write: true, idempotencyKey });
  }

  /**
   * DELETE /basket/recipes/<id>.
   * @param {string} id @param {string} storeId @param {string} [idempotencyKey] @returns {Promise<BasketAnswer>}
   */
  removeRecipe(id, storeId, idempotencyKey) {
    return this.#client.request("DELETE", recipePath(id), { query: { store_id: storeId }, write: true, idempotencyKey });
  }

  /**
   * PUT /basket/recipes/<id>/ingredients/<ingredient>. `guests`: those of the entry the line makes when the
   * recipe is not in the basket (the service decides; an entry it holds keeps its own).
   * @param {string} id @param {string} ingredientId @param {string} productId @param {number} quantity @param {string} storeId
   * @param {number} [guests] @param {string} [idempotencyKey]
   * @returns {Promise<BasketAnswer>}
   */
  setIngredient(id, ingredientId, productId, quantity, storeId, guests, idempotencyKey) {
    return this.#client.request("PUT", `${recipePath(id)}/ingredients/${encodeURIComponent(ingredientId)}`, {
      json: { product_id: productId, quantity, store_id: storeId, ...(guests ? { guests } : {}) }, write: true, idempotencyKey,
    });
  }

  /**
   * POST /basket/reconcile with the cart as the route takes it (sdk/basket-sync.js, `normalizeCart`), and which
   * browser reported it when (an older cart of a browser leaves to the cart what a newer one of it showed).
   * @param {string} storeId @param {{ id: string, quantity: number }[]} cart
   * @param {{ by: string, at: number } | undefined} reported @returns {Promise<BasketAnswer>}
   */
  async reconcile(storeId, cart, reported) {
    const send = (/** @type {object} */ report) => this.#client.request("POST", "/basket/reconcile", {
      json: { store_id: storeId, cart, ...report }, write: true,
    });
    try {
      return await send(reported ? { reported } : {});
    } catch (error) {
      // During a rolling deploy a node of the release before answers `reported` with a 400 ("Unknown field"):
      // the cart goes again without it (followed as it comes, as that release does). For one release: every node
      // of the next one takes it (docs/decisions.md, "two tabs' reconciles crossing on their way").
      if (!refusesReport(error)) throw error;
      return send({});
    }
  }

  /**
   * POST /baskets/handle-payment.
   * @param {string} storeId @param {number} total @param {{ id: string, quantity: number }[]} products @param {string} [orderId]
   */
  handlePayment(storeId, total, products, orderId) {
    return this.#client.request("POST", "/baskets/handle-payment", {
      query: orderId ? { "order-id": String(orderId) } : {},
      json: { store_id: storeId, totalPrice: total, products },
      write: true,
    });
  }

  /** GET /basket/merge-authless-basket. @param {string} authlessId @param {string} storeId @param {string} proof @returns {Promise<BasketAnswer>} */
  mergeAuthless(authlessId, storeId, proof) {
    return this.#client.request("GET", "/basket/merge-authless-basket",
      { query: { authless_id: authlessId, store_id: storeId }, write: true, headers: { "authless-credential": proof } });
  }

  /** POST /v2/menu/current/finalize: the planner's menu into the basket. */
  finalizeMenu() {
    return this.#client.request("POST", "/menu/current/finalize", { write: true, version: "v2" });
  }

  /**
   * GET /basket/transfers/stores: the stores of the publisher's affiliated retailer, as the service answers them
   * (components/basket-transfer.js checks their shape).
   * @returns {Promise<unknown>}
   */
  transferStores() {
    return this.#client.request("GET", "/basket/transfers/stores", {});
  }

  /** POST /basket/transfers. @param {string} storeId */
  createTransfer(storeId) {
    return this.#client.request("POST", "/basket/transfers", { json: { store_id: storeId }, write: true });
  }

  /** POST /basket/transfers/redeem. @param {string} token @param {string} storeId @param {string} [idempotencyKey] */
  redeemTransfer(token, storeId, idempotencyKey) {
    return this.#client.request("POST", "/basket/transfers/redeem",
      { json: { token, store_id: storeId }, write: true, idempotencyKey });
  }
}
