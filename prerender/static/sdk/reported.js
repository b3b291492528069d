// The promise of a call the maker's integrations make without waiting for it (typed `=> void` there:
// `basketSync.retailerBasketChanged`, `basketSync.handlePayment`). A page that drops it gets the failure said once
// in the console, never an unhandled rejection (which error trackers report as the page's crash); a page that takes
// it (`await`, `then`, `catch`, `finally`) gets the failure and says it as it wants: the SDK says nothing more.

/**
 * A promise that knows whether the page took it: any `then` (which `catch`, `finally` and `await` call).
 * @extends {Promise<unknown>}
 */
class Reported extends Promise {
  /** What its `then` makes is a plain promise. */
  static get [Symbol.species]() {
    return Promise;
  }

  #taken = false;

  /** Whether the page took the promise. */
  get taken() {
    return this.#taken;
  }

  /**
   * @template [TResult1=unknown] @template [TResult2=never]
   * @param {((value: unknown) => TResult1 | PromiseLike<TResult1>) | null} [onFulfilled]
   * @param {((reason: any) => TResult2 | PromiseLike<TResult2>) | null} [onRejected]
   * @returns {Promise<TResult1 | TResult2>}
   */
  then(onFulfilled, onRejected) {
    this.#taken = true;
    return super.then(onFulfilled, onRejected);
  }
}

/**
 * `promise`, as a promise whose failure `onDropped` hears when the page did not take it.
 * @template T @param {Promise<T>} promise @param {(error: unknown) => void} onDropped @returns {Promise<T>}
 */
export function reported(promise, onDropped) {
  /** @type {(value: T) => void} */
  let resolve = () => {};
  /** @type {(error: unknown) => void} */
  let reject = () => {};
  const result = new Reported((onResolve, onReject) => {
    resolve = onResolve;
    reject = onReject;
  });
  // Heard without taking it (the base `then`): the rejection is handled, so none is unhandled in the page.
  Promise.prototype.then.call(result, undefined, (/** @type {unknown} */ error) => {
    if (!result.taken) onDropped(error);
  });
  promise.then(resolve, reject);
  return /** @type {Promise<T>} */ (/** @type {unknown} */ (result));
}
