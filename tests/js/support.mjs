// What several of the browser modules' unit tests share (not a test file: node --test runs *.test.mjs).
import { State } from "../../prerender/static/sdk/observable.js";
import { Tabs } from "../../prerender/static/sdk/tabs.js";

/** Lets every queued promise callback run (setImmediate is not mocked: only setTimeout is). */
export const flush = async () => {
  for (let i = 0; i < 3; i += 1) await new Promise((resolve) => setImmediate(resolve));
};

/** A promise the test settles: `{ promise, resolve, reject }`. */
export function deferred() {
  let resolve;
  let reject;
  const promise = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * BroadcastChannel's behaviour for sdk/tabs.js, in one process: `open(name)` gives a channel whose messages
 * reach every other open channel of that name (not itself), cloned, in a later microtask, as the browser's do.
 */
export class ChannelHub {
  /** @type {Set<{ name: string, onmessage: ((event: { data: unknown }) => void) | null, closed: boolean }>} */
  #channels = new Set();

  open = (/** @type {string} */ name) => {
    const channel = {
      name,
      onmessage: null,
      closed: false,
      postMessage: (/** @type {unknown} */ data) => {
        if (channel.closed) throw new Error("InvalidStateError: the channel is closed");
        for (const other of this.#channels) {
          if (other === channel || other.name !== name) continue;
          const copy = structuredClone(data);
          queueMicrotask(() => {
            if (!other.closed) other.onmessage?.({ data: copy });
          });
        }
      },
      close: () => {
        channel.closed = true;
        this.#channels.delete(channel);
      },
    };
    this.#channels.add(channel);
    return channel;
  };
}

/** `document` as sdk/tabs.js reads it: its visibility, which the test changes with `hide()` and `show()`. */
export class FakePage {
  visibilityState = "visible";
  /** @type {Array<() => void>} */
  #listeners = [];

  addEventListener(/** @type {string} */ type, /** @type {() => void} */ listener) {
    if (type === "visibilitychange") this.#listeners.push(listener);
  }

  hide() {
    this.#set("hidden");
  }

  show() {
    this.#set("visible");
  }

  /** @param {string} state */
  #set(state) {
    this.visibilityState = state;
    for (const listener of this.#listeners) listener();
  }
}

/** The window's lifecycle events as sdk/tabs.js hears them (`pageshow`, `pagehide`, `online`): `fire` sends one. */
export class FakeWindow {
  /** @type {Array<[string, (event: object) => void]>} */
  #listeners = [];

  addEventListener(/** @type {string} */ type, /** @type {(event: object) => void} */ listener) {
    this.#listeners.push([type, listener]);
  }

  fire(/** @type {string} */ type, event = {}) {
    for (const [listened, listener] of this.#listeners) if (listened === type) listener(event);
  }
}

/** Session double (sdk/session.js): the members the HTTP client reads (sdk/http.js `ApiClient`). */
export const clientSession = Object.freeze({
  prefix: "svc",
  isConfigured: true,
  configured: Promise.resolve(),
  headers: () => ({ "language-id": "fr", "session-id": "s" }),
  url: (/** @type {string} */ path) => `http://prerender.test/v1${path}`,
  serviceUrl: (/** @type {string} */ path) => `http://prerender.test${path}`,
});

/** Session double (sdk/session.js): the members BasketService reads. */
export class FakeSession {
  prefix = "svc";
  supplier = "1";
  browserId = "browser-1";
  /** @type {State<{ kind: "user" | "authless", id: string, forbidProfiling: boolean } | null>} */
  identity$;
  credential;
  #store = new Map();
  local = {
    get: (key) => this.#store.get(key) ?? null,
    set: (key, value) => void this.#store.set(key, value),
    remove: (key) => void this.#store.delete(key),
    keys: () => [...this.#store.keys()],
  };

  constructor(identity) {
    this.identity$ = new State(identity);
    this.credential = identity ? { token: "t0ken", kind: identity.kind, id: identity.id, expiresAt: 4_000_000_000 } : null;
  }

  key(name) {
    return `_${this.prefix}/${name}`;
  }

  /** The page's supplier's entry (sdk/session.js `supplierKey`). */
  supplierKey(name) {
    return `_${this.prefix}/supplier-${this.supplier}/${name}`;
  }

  get isConnected() {
    return this.identity$.value?.kind === "user";
  }

  get shopperKey() {
    const identity = this.identity$.value;
    return identity ? `${identity.kind}:${identity.id}` : "";
  }

  authlessCredentialOf() {
    return null;
  }
}

/**
 * A Tabs of supplier "1"'s page: in the SDK the session names the supplier once the page gives a credential
 * (sdk/session.js), and a tab tells and hears only its supplier's tabs.
 * @param {ConstructorParameters<typeof Tabs>[0]} options
 */
export function supplierTabs(options) {
  const tabs = new Tabs(options);
  tabs.supplier = "1";
  return tabs;
}
