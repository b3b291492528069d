// What undoes a basket write the retailer's cart did not follow (sdk/basket-sync.js calls it): the inverse of
// each write, from the recipe's entry before it. The inverse is itself a basket write, queued like the others
// but never pushed to the cart (the cart never took the change it undoes).

/** @typedef {import("./basket-model.js").BasketAnswer} BasketAnswer */
/** @typedef {import("./basket-model.js").BasketEntry} BasketEntry */
/** @typedef {(before: BasketEntry | undefined) => () => Promise<unknown>} Inverse */

export class Rollbacks {
  #routes;
  #queue;
  #pos;
  #publish;

  /**
   * @param {object} deps
   * @param {import("./basket-routes.js").BasketRoutes} deps.routes
   * @param {import("./basket-queue.js").BasketQueue} deps.queue
   * @param {import("./pos.js").Pos} deps.pos
   * @param {(basket: import("./basket-model.js").Basket) => void} deps.publish
   */
  constructor({ routes, queue, pos, publish }) {
    this.#routes = routes;
    this.#queue = queue;
    this.#pos = pos;
    this.#publish = publish;
  }

  /** The inverse of adding a recipe: it leaves, or its entry comes back as it was (its guests only, without choices). @param {string} id @param {boolean} withChoices @returns {Inverse} */
  ofAdd(id, withChoices) {
    return (before) => {
      if (!before) return () => this.removeRecipe(id);
      return withChoices ? () => this.restoreEntry(before) : () => this.setGuests(id, before.guests);
    };
  }

  /** The inverse of re-scaling a recipe. @param {string} id @returns {Inverse} */
  ofSetGuests(id) {
    return (before) => (before ? () => this.setGuests(id, before.guests) : () => this.removeRecipe(id));
  }

  /** The inverse of removing a recipe: its entry comes back. @returns {Inverse} */
  ofRemove() {
    return (before) => (before ? () => this.restoreEntry(before) : () => Promise.resolve());
  }

  /** The inverse of setting one line: the line as it was, or none. @param {string} id @param {string} ingredientId @param {string} productId @returns {Inverse} */
  ofSetIngredient(id, ingredientId, productId) {
    return (before) => {
      if (!before) return () => this.removeRecipe(id);
      const line = before.lines.find((l) => l.ingredient_id === ingredientId);
      return line
        ? () => this.apply((storeId) => this.#routes.setIngredient(id, line.ingredient_id, line.product_id, line.quantity, storeId))
        : () => this.apply((storeId) => this.#routes.setIngredient(id, ingredientId, productId, 0, storeId));
    };
  }

  /**
   * A write that is not pushed to the retailer cart, at the page's store (none: nothing is sent).
   * @param {(storeId: string) => Promise<BasketAnswer>} request
   * @returns {Promise<BasketAnswer | null>}
   */
  apply(request) {
    return this.#queue.run(async () => {
      const storeId = this.#pos.storeId$.value;
      if (!storeId) return null;
      const result = await request(storeId);
      this.#publish(result.basket);
      return result;
    });
  }

  /** @param {string} id @param {number} guests */
  setGuests(id, guests) {
    return this.apply((storeId) => this.#routes.setGuests(id, guests, storeId));
  }

  /** @param {string} id */
  removeRecipe(id) {
    return this.apply((storeId) => this.#routes.removeRecipe(id, storeId));
  }

  /** Puts a removed entry back: the recipe for its guests, then its lines as they were. @param {BasketEntry} entry */
  async restoreEntry(entry) {
    const added = await this.apply((storeId) => this.#routes.addRecipe(entry.recipe_id, entry.guests, storeId));
    const now = added?.basket?.recipes?.find((e) => e.recipe_id === entry.recipe_id);
    if (!now) return;
    const wanted = new Map(entry.lines.map((line) => [line.ingredient_id, line]));
    for (const line of now.lines) {
      const before = wanted.get(line.ingredient_id);
      if (!before) {
        await this.apply((storeId) => this.#routes.setIngredient(entry.recipe_id, line.ingredient_id, line.product_id, 0, storeId));
      } else if (before.product_id !== line.product_id || before.quantity !== line.quantity) {
        await this.apply((storeId) => this.#routes.setIngredient(entry.recipe_id, before.ingredient_id, before.product_id, before.quantity, storeId));
      }
    }
  }
}
