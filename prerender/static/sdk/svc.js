// The browser SDK: window.<prefix> (default window.svc). Safe to load any number of times: the first
// load creates the object, later loads find it and change nothing.
const prefix = new URL(import.meta.url).searchParams.get("prefix") || "svc";

/** A minimal multicast stream: subscribe(fn) -> {unsubscribe()}. */
export class Stream {
  #listeners = new Set();

  subscribe(listener) {
    this.#listeners.add(listener);
    return { unsubscribe: () => this.#listeners.delete(listener) };
  }

  next(value) {
    for (const listener of [...this.#listeners]) {
      try {
        listener(value);
      } catch (error) {
        console.error(`[${prefix}] stream listener failed`, error);
      }
    }
  }
}

function createSdk() {
  return Object.freeze({
    prefix,
    version: "0.1.0",
    analytics: Object.freeze({ eventSent$: new Stream() }),
  });
}

if (!window[prefix]) {
  Object.defineProperty(window, prefix, { value: createSdk(), enumerable: true });
}

export const sdk = window[prefix];
