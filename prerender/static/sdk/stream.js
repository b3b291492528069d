// Streams of the SDK: `subscribe(fn)` (or `subscribe({next})`, the observer shape of the maker's SDK, which
// integrations written for it use) -> `{unsubscribe()}`. No dependency, no global state.

/**
 * @template T
 * @typedef {{ unsubscribe(): void }} Subscription
 */

/**
 * Calls a listener; a throwing listener (the customer's code) never breaks the others.
 * @param {(value: any) => void} listener
 * @param {any} value
 */
function notify(listener, value) {
  try {
    listener(value);
  } catch (error) {
    console.error("[sdk] stream listener failed", error);
  }
}

/**
 * The function to call for a subscriber given as a function or as an observer object (`{next}`; streams never
 * end, so `error` and `complete` are never called).
 * @template T
 * @param {((value: T) => void) | { next?: (value: T) => void }} listener
 * @returns {(value: T) => void}
 */
function toListener(listener) {
  if (typeof listener === "function") return listener;
  if (listener && typeof listener === "object") {
    const next = listener.next;
    return typeof next === "function" ? (value) => next.call(listener, value) : () => {};
  }
  throw new TypeError("subscribe expects a function or an observer object");
}

/**
 * A multicast stream of values. Late subscribers only see later values.
 * @template T
 */
export class Stream {
  /** @type {Set<(value: T) => void>} */
  #listeners = new Set();

  /**
   * @param {((value: T) => void) | { next?: (value: T) => void }} listener a function, or an observer object
   * @returns {Subscription<T>}
   */
  subscribe(listener) {
    const next = toListener(listener);
    // A wrapper per subscription: subscribing the same function twice gives two independent subscriptions.
    const entry = (/** @type {T} */ value) => next(value);
    this.#listeners.add(entry);
    return { unsubscribe: () => void this.#listeners.delete(entry) };
  }

  /** @param {T} value */
  next(value) {
    for (const listener of [...this.#listeners]) notify(listener, value);
  }

  /** Whether anything subscribes now. */
  get observed() {
    return this.#listeners.size > 0;
  }
}

/**
 * A stream with a current value: a new subscriber receives the current value at once (when there is one),
 * then every change.
 * @template T
 * @extends {Stream<T>}
 */
export class State extends Stream {
  /** @type {T | undefined} */
  #value = undefined;
  #hasValue = false;

  /** @param {[T]|[]} initial optional initial value */
  constructor(...initial) {
    super();
    if (initial.length > 0) {
      this.#value = initial[0];
      this.#hasValue = true;
    }
  }

  /** @returns {T | undefined} */
  get value() {
    return this.#value;
  }

  get hasValue() {
    return this.#hasValue;
  }

  /**
   * @param {((value: T) => void) | { next?: (value: T) => void }} listener a function, or an observer object
   * @returns {Subscription<T>}
   */
  subscribe(listener) {
    const subscription = super.subscribe(listener);
    if (this.#hasValue) notify(toListener(listener), this.#value);
    return subscription;
  }

  /** @param {T} value */
  next(value) {
    this.#value = value;
    this.#hasValue = true;
    super.next(value);
  }

  /**
   * A read-only state derived from this one; it emits only when the projected value changes.
   * @template U
   * @param {(value: T) => U} project
   * @returns {{ subscribe(listener: ((value: U) => void) | { next?: (value: U) => void }): Subscription<U>, readonly value: U | undefined }}
   */
  map(project) {
    const source = this;
    return {
      subscribe(subscriber) {
        const listener = toListener(subscriber);
        let first = true;
        /** @type {U | undefined} */
        let last;
        return source.subscribe((value) => {
          const projected = project(value);
          if (first || !Object.is(projected, last)) {
            first = false;
            last = projected;
            listener(projected);
          }
        });
      },
      get value() {
        return source.hasValue ? project(/** @type {T} */ (source.value)) : undefined;
      },
    };
  }

  /**
   * The current value when there is one, else the next one.
   * @returns {Promise<T>}
   */
  first() {
    if (this.#hasValue) return Promise.resolve(/** @type {T} */ (this.#value));
    return new Promise((resolve) => {
      const subscription = super.subscribe((value) => {
        subscription.unsubscribe();
        resolve(value);
      });
    });
  }
}
