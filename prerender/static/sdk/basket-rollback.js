// What undoes a basket write the retailer's cart did not follow (sdk/basket-sync.js calls it), or whose outcome
// stayed unknown (every attempt met a network failure or a node down: it may have been applied, and the shopper
// was told it failed): the inverse of each write, from the recipe's entry before it. The inverse is itself a
// basket write, queued like the others but never pushed to the cart (the cart never took the change it undoes).
// Each inverse sets the recipe back to a state (gone, its guests, its entry, one line), so sending it when the
// write was not applied after all changes nothing.
//
// An inverse that meets the same failures is owed: it is sent again after a growing pause, when the browser says
// it is online again, when the page shows again, and before the next write of its recipe, until the service
// answers it. A write of that recipe waits for it and is not sent while it is still owed (applied after it, the
// inverse would undo the shopper's newer change; applied before it, an "add all" the service already holds would
// push nothing to the cart). Another device's change of that recipe meanwhile is undone by it: a window of the
// network failure, docs/sdk.md.

import { ApiError, isOutcomeUnknown } from "./http.js";

/** @typedef {import("./basket-model.js").BasketAnswer} BasketAnswer */
/** @typedef {import("./basket-model.js").BasketEntry} BasketEntry */
/** @typedef {(before: BasketEntry | undefined) => () => Promise<unknown>} Inverse */
/**
 * What became of an undo: done (or nothing was left to undo), owed (to be sent again), or refused by the service
 * (the basket is loaded again so that the page shows it as it is).
 * @typedef {"undone" | "owed" | "failed"} UndoOutcome
 */

/** The pauses before an owed undo is sent again (ms); the last one repeats. */
export const OWED_RETRY_MS = [2_000, 5_000, 10_000, 20_000, 30_000];

export class Rollbacks {
  #routes;
  #queue;
  #pos;
  #publish;
  #refused;
  /** @type {{ recipeId: string, undo: () => Promise<unknown> }[]} undos to send again, in the order they were owed */
  #owed = [];
  /** @type {Promise<void> | null} the owed undos being sent again */
  #sending = null;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  #timer;
  #failures = 0;

  /**
   * @param {object} deps
   * @param {import("./basket-routes.js").BasketRoutes} deps.routes
   * @param {import("./basket-queue.js").BasketQueue} deps.queue
   * @param {import("./pos.js").Pos} deps.pos
   * @param {(basket: import("./basket-model.js").Basket) => void} deps.publish
   * @param {(error: unknown) => void} [deps.refused] the service refused an undo (the page loads the basket again)
   */
  constructor({ routes, queue, pos, publish, refused = () => {} }) {
    this.#routes = routes;
    this.#queue = queue;
    this.#pos = pos;
    this.#publish = publish;
    this.#refused = refused;
  }

  /**
   * Sends an undo of `recipeId`'s write; owed when its outcome stays unknown.
   * @param {string} recipeId @param {() => Promise<unknown>} undo @returns {Promise<UndoOutcome>}
   */
  async run(recipeId, undo) {
    const outcome = await this.#attempt(undo);
    if (outcome === "owed") this.owe(recipeId, undo);
    return outcome;
  }

  /** Whether an undo of that recipe is owed. @param {string} recipeId */
  owes(recipeId) {
    return this.#owed.some((owed) => owed.recipeId === recipeId);
  }

  /**
   * Sends the owed undos again, in order (at most one round at a time: a call during one gets it). Resolves once
   * they were tried (never rejects); those still without an answer stay owed.
   * @returns {Promise<void>}
   */
  sendOwed() {
    if (this.#sending) return this.#sending;
    if (this.#owed.length === 0) return Promise.resolve();
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const sending = (async () => {
      // In order, and the first that meets the failure again keeps its place and those after it (the network is
      // likely still down; an undo sent before an earlier one of its recipe would reach the service reversed).
      while (this.#owed.length > 0) {
        if ((await this.#attempt(this.#owed[0].undo)) === "owed") break;
        this.#owed.shift();
      }
      this.#failures = this.#owed.length > 0 ? this.#failures + 1 : 0;
      if (this.#owed.length > 0) this.#schedule();
    })().finally(() => {
      this.#sending = null;
    });
    this.#sending = sending;
    return sending;
  }

  /**
   * An undo to send later: the write it undoes met failures that leave its outcome unknown.
   * @param {string} recipeId @param {() => Promise<unknown>} undo
   */
  owe(recipeId, undo) {
    this.#owed.push({ recipeId, undo });
    if (!this.#sending) this.#schedule();
  }

  /** Drops the owed undos (another shopper now: they were the previous one's basket's). */
  forget() {
    this.#owed = [];
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#failures = 0;
  }

  #schedule() {
    if (this.#timer !== undefined) return;
    const pause = OWED_RETRY_MS[Math.min(this.#failures, OWED_RETRY_MS.length - 1)];
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.sendOwed();
    }, pause);
  }

  /** @param {() => Promise<unknown>} undo @returns {Promise<UndoOutcome>} */
  async #attempt(undo) {
    try {
      await undo();
      return "undone";
    } catch (error) {
      if (isOutcomeUnknown(error)) return "owed";
      // Nothing left to undo: the recipe is not in the basket (another tab or device took it out).
      if (error instanceof ApiError && error.status === 404) return "undone";
      this.#refused(error);
      return "failed";
    }
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
