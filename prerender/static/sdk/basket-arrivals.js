// Products that arrive in the basket from elsewhere (docs/browser-api.md): the logged-out visitor's basket at
// login, the planner's menu, and a recipe publisher's basket handed to its retailer (its link, then its
// redemption on the retailer's site). Each answer is published, then its changes are pushed to the retailer
// cart through the page's callbacks; there is nothing to roll back to (the other basket or the menu is gone).
import { localProblem } from "./http.js";

/** @typedef {import("./basket-model.js").Basket} Basket */
/** @typedef {import("./basket-model.js").BasketAnswer} BasketAnswer */

export class BasketArrivals {
  #core;

  /** @param {import("./basket.js").BasketCore} core */
  constructor(core) {
    this.#core = core;
  }

  /**
   * GET /basket/merge-authless-basket: at the end of the auth flow, on a page whose credential is the
   * logged-in user's, the basket built while logged out joins the user's, and its products are pushed to
   * the retailer cart. The logged-out visitor's identity is proven with the authless credential the SDK
   * remembered (`authless-credential` header); without one for that id, a local problem
   * (`#no-authless-credential`) and nothing is sent. An unconfirmed push only shows the usual message.
   * @param {string} authlessId the id the visitor had while logged out
   */
  async mergeAuthless(authlessId) {
    const { routes, queue, session, sync } = this.#core;
    const id = String(authlessId ?? "").trim();
    if (!id) throw new TypeError("mergeAuthless expects the logged-out visitor's authless id");
    const proof = session.authlessCredentialOf(id);
    if (!proof) {
      throw localProblem("no-authless-credential", "No credential of that logged-out visitor",
        `This browser holds no valid credential of the authless visitor ${id}: it is remembered when a page of that visitor carries one.`);
    }
    const storeId = await this.#core.requireStore();
    this.#core.started();
    /** @type {(() => Promise<boolean>) | null} */
    let push = null;
    const answer = await queue.run(async () => {
      this.#core.arrived(); // answered or not, the basket may move on: no write's first outcome holds
      const result = await routes.mergeAuthless(id, storeId, proof);
      this.#core.publish(result.basket);
      push = sync.register(result.changes ?? [], { after: result.basket, rollback: async () => "kept" });
      return result;
    });
    if (push) void (/** @type {() => Promise<boolean>} */ (push))();
    return answer;
  }

  /**
   * POST /v2/menu/current/finalize: the planner's menu goes into the user's basket at the menu's store
   * (docs/browser-api.md, "Menus"). Resolves once the cart's callbacks are done, with `cartFollowed` false
   * when one of them failed (the basket keeps the products). Rejects with the service's problem (403 for a
   * logged-out visitor, 409 `no-store` / `empty`).
   * @returns {Promise<{ basket: Basket, changes: { id: string, quantity: number }[], cartFollowed: boolean }>}
   */
  async finalizeMenu() {
    await this.#core.askHook();
    return this.#arrive(() => this.#core.routes.finalizeMenu());
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
    await this.#core.pos.load(id);
    return this.#core.queue.run(() => this.#core.routes.createTransfer(id));
  }

  /**
   * POST /basket/transfers/redeem, on the retailer's site: the transferred recipes join the shopper's basket at
   * the page's store, and their products are pushed to the retailer cart (awaited). Rejects with the service's
   * problem (404 unknown, 410 expired or used). `idempotencyKey`: the same on a retry after a reload, so that a
   * redeem whose answer was lost is answered again rather than refused as used.
   * @param {string} token @param {string} storeId @param {string} [idempotencyKey]
   * @returns {Promise<{ basket: Basket, changes: { id: string, quantity: number }[],
   *   transfer: { source_supplier_name: string, recipe_count: number, product_count?: number, message?: string },
   *   cartFollowed: boolean }>}
   */
  receiveTransfer(token, storeId, idempotencyKey) {
    return this.#arrive(() => this.#core.routes.redeemTransfer(String(token), String(storeId), idempotencyKey));
  }

  /**
   * The write's answer is published, then its changes are pushed to the retailer cart, awaited: a cart that
   * does not follow only sets `cartFollowed` to false.
   * @template {BasketAnswer} A
   * @param {() => Promise<A>} request
   * @returns {Promise<A & { cartFollowed: boolean }>}
   */
  async #arrive(request) {
    const { queue, sync } = this.#core;
    this.#core.started();
    let cartFollowed = true;
    /** @type {(() => Promise<boolean>) | null} */
    let push = null;
    const answer = await queue.run(async () => {
      this.#core.arrived(); // answered or not, the basket may move on: no write's first outcome holds
      const result = await request();
      this.#core.publish(result.basket);
      push = sync.register(result.changes ?? [], {
        after: result.basket,
        rollback: async () => {
          cartFollowed = false;
          return "kept"; // nothing to go back to: the products stay in the basket
        },
      });
      return result;
    });
    if (push && !(await /** @type {() => Promise<boolean>} */ (push)())) cartFollowed = false;
    if (cartFollowed) this.#core.announceAdded(answer.changes);
    return { ...answer, cartFollowed };
  }
}
