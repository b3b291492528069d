// The order of the basket's calls (sdk/basket.js): one at a time, each after every call queued before it
// (failed ones included), so that a write knows the basket it changes, which is what its rollback restores.
// The writes of one recipe also join the queue in the order they were asked, even while what comes before
// one of them (the page's hook, the store) is still pending; other recipes' writes do not wait for that.

export class BasketQueue {
  /** @type {Promise<unknown>} the tail of the queue */
  #tail = Promise.resolve();
  /** @type {Map<string, Promise<void>>} per recipe, settled once its last write asked has joined the queue */
  #turns = new Map();

  /**
   * Runs `task` after every queued one (failed ones included).
   * @template T
   * @param {() => Promise<T>} task
   * @returns {Promise<T>}
   */
  run(task) {
    const run = this.#tail.then(task, task);
    this.#tail = run.catch(() => {});
    return run;
  }

  /** Resolves once the calls queued so far are done (whatever their outcome). */
  idle() {
    return this.#tail;
  }

  /**
   * A write of `recipeId`: once the recipe's previous write has joined the queue and `ready` has resolved,
   * `task(ready's value)` joins it. Rejects with `ready`'s error (the write never joins the queue then).
   * @template R, T
   * @param {string} recipeId
   * @param {Promise<R>} ready what the write needs first (started at once, by the caller)
   * @param {(value: R) => Promise<T>} task
   * @returns {Promise<T>}
   */
  async inTurn(recipeId, ready, task) {
    ready.catch(() => {}); // handled below, once the previous write's turn has passed
    const previous = this.#turns.get(recipeId) ?? Promise.resolve();
    /** @type {() => void} */
    let release = () => {};
    /** @type {Promise<void>} */
    const turn = new Promise((resolve) => {
      release = () => {
        if (this.#turns.get(recipeId) === turn) this.#turns.delete(recipeId);
        resolve();
      };
    });
    this.#turns.set(recipeId, turn);
    /** @type {R} */
    let value;
    try {
      value = await previous.then(() => ready);
    } catch (error) {
      release();
      throw error;
    }
    const queued = this.run(() => task(value));
    release();
    return queued;
  }
}
