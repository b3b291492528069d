// Observables in the shape integrations of the maker's web SDK subscribe to (docs/sdk.md, "Migrating from the
// maker's SDK"): `subscribe(next)`, `subscribe(next, error, complete)` or `subscribe({next, error, complete})`,
// returning `{unsubscribe(), closed}`. No dependency. A throwing observer (the customer's code) is logged and
// never breaks the SDK.

/**
 * @template T
 * @typedef {object} Observer
 * @property {(value: T) => void} [next]
 * @property {(error: unknown) => void} [error]
 * @property {() => void} [complete]
 */

/**
 * @template T
 * @typedef {((value: T) => void) | Observer<T> | null | undefined} ObserverArgument
 */

/** @typedef {{ unsubscribe(): void, readonly closed: boolean }} Unsubscribable */

/**
 * Calls one of the page's observer callbacks.
 * @param {((value: any) => void) | undefined} callback
 * @param {unknown} [value]
 */
function call(callback, value) {
  try {
    callback?.(value);
  } catch (error) {
    console.error("[sdk] observer failed", error);
  }
}

/**
 * A cold observable: each subscription runs `producer` with its own sink.
 * @template T
 */
export class Observable {
  #producer;

  /**
   * @param {(sink: { next(value: T): void, error(error: unknown): void, complete(): void }) => (() => void) | void} producer
   *   starts emitting into the sink; returns its teardown
   */
  constructor(producer) {
    this.#producer = producer;
  }

  /**
   * @param {ObserverArgument<T>} [observerOrNext]
   * @param {(error: unknown) => void} [error]
   * @param {() => void} [complete]
   * @returns {Unsubscribable}
   */
  subscribe(observerOrNext, error, complete) {
    const observer = typeof observerOrNext === "function"
      ? { next: observerOrNext, error, complete }
      : { next: observerOrNext?.next?.bind(observerOrNext), error: observerOrNext?.error?.bind(observerOrNext) ?? error,
        complete: observerOrNext?.complete?.bind(observerOrNext) ?? complete };
    let closed = false;
    /** @type {(() => void) | void} */
    let teardown;
    const close = () => {
      if (closed) return;
      closed = true;
      const run = teardown;
      teardown = undefined;
      run?.();
    };
    const sink = {
      next: (/** @type {T} */ value) => {
        if (!closed) call(observer.next, value);
      },
      error: (/** @type {unknown} */ reason) => {
        if (closed) return;
        close();
        if (observer.error) call(observer.error, reason);
        else console.error("[sdk] unhandled observable error", reason);
      },
      complete: () => {
        if (closed) return;
        close();
        call(observer.complete);
      },
    };
    teardown = this.#producer(sink);
    if (closed) {
      const run = teardown;
      teardown = undefined;
      run?.();
    }
    return {
      unsubscribe: close,
      get closed() {
        return closed;
      },
    };
  }
}

/**
 * `observable` that is also `promise`: `then`/`catch`/`finally` follow the promise. The members that returned a
 * promise in this SDK keep doing so; the maker's observable-returning members get `subscribe` too.
 * @template T, P
 * @param {Observable<T>} observable @param {Promise<P>} promise
 * @returns {Observable<T> & PromiseLike<P> & { catch: Promise<P>["catch"], finally: Promise<P>["finally"] }}
 */
export function withThen(observable, promise) {
  return Object.assign(observable, {
    then: promise.then.bind(promise),
    catch: promise.catch.bind(promise),
    finally: promise.finally.bind(promise),
  });
}

/**
 * An observable of one asynchronous result that is also that promise: it emits the value and completes (or
 * errors).
 * @template T
 * @param {Promise<T>} result
 */
export function single(result) {
  // Nobody may subscribe: a rejection is then reported through `then` or the console, not as unhandled.
  result.catch(() => {});
  const observable = new Observable((/** @type {any} */ sink) => {
    let active = true;
    result.then(
      (value) => {
        if (!active) return;
        sink.next(value);
        sink.complete();
      },
      (error) => {
        if (active) sink.error(error);
      },
    );
    return () => {
      active = false;
    };
  });
  return withThen(observable, result);
}
