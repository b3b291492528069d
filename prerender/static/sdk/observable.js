// The SDK's one observable, in the shape integrations of the maker's web SDK subscribe to (docs/sdk.md,
// section 6, "Migrating from the maker's web SDK"): `subscribe(next)`, `subscribe(next, error, complete)` or
// `subscribe({next, error, complete})`, returning `{unsubscribe(), closed}`. No dependency, no global state. A
// throwing observer (the customer's code) is logged and never breaks the SDK or the other observers.
//
// - `Observable`: cold, each subscription runs its producer (one result: `single`);
// - `Stream`: an observable the SDK emits into with `next(value)`, to every current subscriber (late ones only
//   see later values; it never ends);
// - `State`: a stream with a current value, which a new subscriber gets at once; `map` derives a read-only one.

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
 * @template T
 * @typedef {{ next(value: T): void, error(error: unknown): void, complete(): void }} Sink
 */

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
 * The observer of `subscribe`'s arguments (an object's callbacks bound to it); what is neither a function, an
 * object nor absent is a mistake of the caller.
 * @template T
 * @param {ObserverArgument<T>} observerOrNext @param {(error: unknown) => void} [error] @param {() => void} [complete]
 * @returns {Observer<T>}
 */
function toObserver(observerOrNext, error, complete) {
  if (typeof observerOrNext === "function") return { next: observerOrNext, error, complete };
  if (observerOrNext !== null && observerOrNext !== undefined && typeof observerOrNext !== "object") {
    throw new TypeError("subscribe expects a function or an observer object");
  }
  const next = observerOrNext?.next;
  const failed = observerOrNext?.error;
  const completed = observerOrNext?.complete;
  return {
    next: typeof next === "function" ? next.bind(observerOrNext) : undefined,
    error: typeof failed === "function" ? failed.bind(observerOrNext) : error,
    complete: typeof completed === "function" ? completed.bind(observerOrNext) : complete,
  };
}

/**
 * A cold observable: each subscription runs `producer` with its own sink.
 * @template T
 */
export class Observable {
  #producer;

  /**
   * @param {(sink: Sink<T>) => (() => void) | void} producer starts emitting into the sink; returns its teardown
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
    const observer = toObserver(observerOrNext, error, complete);
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
 * A multicast stream of values, which the SDK emits with `next`. Late subscribers only see later values; a
 * subscriber that unsubscribes while a value is being emitted gets no later one (that one included).
 * @template T
 * @extends {Observable<T>}
 */
export class Stream extends Observable {
  /** @type {Set<Sink<T>>} */
  #sinks = new Set();

  constructor() {
    super((sink) => this.attach(sink));
  }

  /**
   * Adds a subscription's sink (called by `subscribe`, through the producer); returns its teardown.
   * @protected @param {Sink<T>} sink @returns {() => void}
   */
  attach(sink) {
    this.#sinks.add(sink);
    return () => void this.#sinks.delete(sink);
  }

  /** @param {T} value */
  next(value) {
    for (const sink of [...this.#sinks]) sink.next(value);
  }

  /** Whether anything subscribes now. */
  get observed() {
    return this.#sinks.size > 0;
  }
}

/**
 * A stream with a current value: a new subscriber receives the current value at once (when there is one),
 * before `subscribe` returns, then every change.
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

  /** @protected @param {Sink<T>} sink @returns {() => void} */
  attach(sink) {
    const detach = super.attach(sink);
    if (this.#hasValue) sink.next(/** @type {T} */ (this.#value));
    return detach;
  }

  /** @param {T} value */
  next(value) {
    this.#value = value;
    this.#hasValue = true;
    super.next(value);
  }

  /**
   * A read-only state derived from this one; it emits only when the projected value changes (Object.is).
   * @template U
   * @param {(value: T) => U} project
   * @returns {Observable<U> & { readonly value: U | undefined }}
   */
  map(project) {
    const mapped = new Observable((/** @type {Sink<U>} */ sink) => {
      let first = true;
      /** @type {U | undefined} */
      let last;
      const subscription = this.subscribe((value) => {
        const projected = project(value);
        if (first || !Object.is(projected, last)) {
          first = false;
          last = projected;
          sink.next(projected);
        }
      });
      return () => subscription.unsubscribe();
    });
    const source = this;
    return /** @type {Observable<U> & { readonly value: U | undefined }} */ (Object.defineProperty(mapped, "value", {
      get: () => (source.hasValue ? project(/** @type {T} */ (source.value)) : undefined),
    }));
  }

  /**
   * The current value when there is one, else the next one.
   * @returns {Promise<T>}
   */
  first() {
    if (this.#hasValue) return Promise.resolve(/** @type {T} */ (this.#value));
    return new Promise((resolve) => {
      const subscription = this.subscribe((value) => {
        subscription.unsubscribe();
        resolve(value);
      });
    });
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
