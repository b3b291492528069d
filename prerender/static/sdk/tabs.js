// The shopper's other tabs of the same site: what one tab learns, the others follow (docs/sdk.md, "Several
// tabs"). A tab tells the others, on a BroadcastChannel named after the SDK's prefix (`_<prefix>/tabs`), when
// its page gave it a credential, when the page logged its shopper out, when a write of its own changed the
// basket or the planner's menu, when its shopper liked or unliked a recipe, and the cart its page reported (the
// site's one cart); it also tells its own parts when the page comes back into view after a while hidden (the
// shopper may have used another device meanwhile). A BroadcastChannel reaches the documents of the same origin
// in the same browser profile only, so nothing leaves the site: another tab of the site could read the same
// credential in its own page. A browser without BroadcastChannel gets a tab that follows the logouts only, told
// through localStorage's `storage` event (`logoutChannel`: nothing else, a credential least of all, is written
// where storage keeps it; a logout made while a tab sat in the back/forward cache is not heard by it when it is
// restored); a page that forbids the channel gets a tab that follows nothing. The channel is closed while the page
// sits in the back/forward cache (an open one may keep a page out of it) and opened again when the page is
// restored, which counts as a return: what the other tabs did meanwhile was not heard, so the restored tab asks them
// for their credentials.
// Several suppliers' pages may share one site (a group's brands, a retailer's recipe blog under a publisher's
// token), and the channel is the site's: every message carries the supplier of the credential the telling tab's
// page gave (`supplier`, set by sdk/session.js), and a tab hears only its own supplier's. A tab whose page gave no
// credential naming its supplier yet (an element of before `supplier-id`) tells and hears nothing. A logout told by an
// SDK of before, which names no supplier, is heard by every tab.
import { Stream } from "./observable.js";
import { jsonText } from "./json.js";

/** A page hidden this long (ms) reads again what it shows when it comes back (the basket, the hearts): the
 * shopper may have used another device meanwhile. A page restored from the back/forward cache always does. */
export const RETURN_RELOAD_MS = 60_000;

/**
 * What a tab tells the others.
 * - `credential`: its page gave it this credential (raw, as a `<prefix>-shopper` element carries it), and when
 *   that page started (`pageStarted`, the device's clock in ms: sdk/session.js);
 * - `reset`: its page logged out the shopper `shopper` (`kind:id`);
 * - `basket`: a write of its own changed the basket of `shopper` (`kind:id`);
 * - `like`: the service took its like (`liked`) or unlike of `recipeId` for `shopper`;
 * - `cart`: its page reported the cart of `shopper`, `cart` (`[{id, quantity}]`, normalised: sdk/basket-sync.js),
 *   at `at` (Date.now() there);
 * - `menu`: a write of its own changed the planner's menu of `shopper` (`kind:id`), at `store`;
 * - `ask`: it was restored from the back/forward cache and asks the others for their credentials.
 * @typedef {{ type: "credential", credential: { token: string, kind: string, id: string, expiresAt: number },
 *     pageStarted?: number }
 *   | { type: "reset", shopper: string }
 *   | { type: "basket", shopper: string }
 *   | { type: "like", shopper: string, recipeId: string, liked: boolean }
 *   | { type: "cart", shopper: string, cart: { id: string, quantity: number }[], at: number }
 *   | { type: "menu", shopper: string, store: string | null }
 *   | { type: "ask" }} TabMessage
 */

/**
 * The part of `document` the tabs read: whether the page shows, and when that changes.
 * @typedef {{ visibilityState: string, addEventListener(type: string, listener: () => void): void }} PageVisibility
 */

/**
 * The part of `window` the tabs read: the page leaving for, and coming back from, the back/forward cache.
 * @typedef {{ addEventListener(type: string, listener: (event: { persisted?: boolean }) => void): void }} PageLifecycle
 */

/** A channel as BroadcastChannel is one (an injected one in tests). */
/** @typedef {{ postMessage(message: unknown): void, close(): void, onmessage: ((event: { data: unknown }) => void) | null }} Channel */

const TYPES = new Set(["credential", "reset", "basket", "like", "cart", "menu", "ask"]);

export class Tabs {
  /** @type {Channel | null} */
  #channel = null;
  #name;
  #open;
  /** @type {Stream<TabMessage>} what the other tabs tell (a failing handler is logged, the others still run) */
  #messages = new Stream();
  /** @type {Stream<number>} the page shows again, after that many milliseconds hidden */
  #returns = new Stream();
  /** @type {Stream<void>} the browser is online again (a laptop woke before its network came back) */
  #online = new Stream();
  /** @type {PageVisibility | null} */
  #page;
  /** When the page was last hidden (`performance.now()`-like clock), or null while it shows. */
  /** @type {number | null} */
  #hiddenAt = null;
  #now;
  /** The supplier of the credential this tab's page gave, "" until then: the tabs it talks with. */
  #supplier = "";

  /**
   * @param {object} options
   * @param {string} options.name the channel's name: `_<prefix>/tabs`
   * @param {((name: string) => Channel) | null} [options.open] opens the channel (default: BroadcastChannel)
   * @param {PageVisibility | null} [options.page] default: the document
   * @param {PageLifecycle | null} [options.lifecycle] default: the window
   * @param {() => number} [options.now] a monotonic clock in milliseconds (default: performance.now)
   */
  constructor({
    name, open = defaultOpen(), page = globalThis.document ?? null, lifecycle = globalThis.window ?? null,
    now = () => performance.now(),
  }) {
    this.#name = name;
    this.#open = open;
    this.#page = page;
    this.#now = now;
    this.#connect();
    if (page) {
      if (page.visibilityState === "hidden") this.#hiddenAt = now();
      page.addEventListener("visibilitychange", () => this.#visibilityChanged());
    }
    lifecycle?.addEventListener("pagehide", (event) => {
      if (event.persisted) this.close();
    });
    lifecycle?.addEventListener("pageshow", (event) => {
      if (!event.persisted) return;
      this.#connect();
      this.post({ type: "ask" }); // what the others learnt meanwhile (a login) was not heard: they tell it again
      this.#returns.next(Number.POSITIVE_INFINITY); // restored: how long it was away is unknown here
    });
    lifecycle?.addEventListener("online", () => this.#online.next(undefined));
  }

  /** Whether the page shows now (a page without a document counts as showing). */
  get visible() {
    return !this.#page || this.#page.visibilityState !== "hidden";
  }

  /**
   * The supplier of the credential this tab's page gave (sdk/session.js): from then on the tab tells and hears the
   * tabs of that supplier only ("": none).
   * @param {string} supplier
   */
  set supplier(supplier) {
    this.#supplier = supplier;
  }

  /** Tells the other tabs of the site of this tab's supplier. @param {TabMessage} message */
  post(message) {
    if (!this.#supplier) return;
    try {
      this.#channel?.postMessage({ ...message, supplier: this.#supplier });
    } catch {
      // a closed channel (the page is being unloaded): nothing to tell any more
    }
  }

  /**
   * Calls `handler` with each message of `type` another tab sends. Returns the teardown.
   * @template {TabMessage["type"]} K
   * @param {K} type @param {(message: Extract<TabMessage, { type: K }>) => void} handler
   */
  on(type, handler) {
    const subscription = this.#messages.subscribe((message) => {
      if (message.type === type) handler(/** @type {Extract<TabMessage, { type: K }>} */ (message));
    });
    return () => subscription.unsubscribe();
  }

  /**
   * Calls `handler` each time the page shows again, with how long it was hidden (ms). Returns the teardown.
   * @param {(hiddenMs: number) => void} handler
   */
  onReturn(handler) {
    const subscription = this.#returns.subscribe(handler);
    return () => subscription.unsubscribe();
  }

  /**
   * Calls `handler` each time the browser is online again. Returns the teardown.
   * @param {() => void} handler
   */
  onOnline(handler) {
    const subscription = this.#online.subscribe(handler);
    return () => subscription.unsubscribe();
  }

  /** Stops listening to the other tabs. */
  close() {
    this.#channel?.close();
    this.#channel = null;
  }

  #connect() {
    if (this.#channel || !this.#open) return;
    try {
      this.#channel = this.#open(this.#name);
    } catch {
      this.#channel = null; // refused by the page's policy (a sandboxed frame): this tab follows nothing
    }
    if (this.#channel) this.#channel.onmessage = (event) => this.#receive(event.data);
  }

  /** @param {unknown} data */
  #receive(data) {
    const message = /** @type {any} */ (data);
    if (!message || typeof message !== "object" || !TYPES.has(message.type)) return; // another build's, or junk
    // Another supplier's page of the site. A logout told by an SDK of before (no `supplier`) is heard all the same:
    // forgetting a user's credential is the safe way, and its tab may be the one the shopper logged out in.
    const before = message.supplier === undefined && message.type === "reset";
    if (!before && (!this.#supplier || message.supplier !== this.#supplier)) return;
    const told = { ...message };
    delete told.supplier;
    this.#messages.next(told);
  }

  #visibilityChanged() {
    if (!this.visible) {
      this.#hiddenAt = this.#now();
      return;
    }
    const hiddenMs = this.#hiddenAt === null ? 0 : this.#now() - this.#hiddenAt;
    this.#hiddenAt = null;
    this.#returns.next(hiddenMs);
  }
}

/** BroadcastChannel's constructor as an opener; where there is none, the logouts' channel; null outside a page. */
function defaultOpen() {
  const Channel = globalThis.BroadcastChannel;
  if (Channel) return (/** @type {string} */ name) => /** @type {Channel} */ (/** @type {unknown} */ (new Channel(name)));
  return typeof globalThis.addEventListener === "function" && "localStorage" in globalThis ? logoutChannel : null;
}

/**
 * A channel for a browser without BroadcastChannel, over localStorage's `storage` event, which the site's other
 * tabs get when one writes an entry: it carries the `reset` messages only (a logout must reach the tabs still
 * acting for the user, a shared device's next person being someone else), each written and removed at once, so
 * that storage never keeps it. Nothing else goes through it: a credential in storage would outlive the page.
 * @param {string} name @returns {Channel}
 */
export function logoutChannel(name, target = globalThis) {
  const key = `${name}/reset`;
  /** @param {StorageEvent} event */
  const listener = (event) => {
    if (event.key !== key || !event.newValue) return; // its removal, or another entry
    try {
      const message = JSON.parse(event.newValue);
      if (message?.type === "reset") channel.onmessage?.({ data: message }); // a logout, nothing else
    } catch {
      // not a message of ours
    }
  };
  /** @type {Channel} */
  const channel = {
    onmessage: null,
    postMessage(message) {
      if (/** @type {{ type?: unknown }} */ (message)?.type !== "reset") return; // `ask` among them: nobody answers
      try {
        target.localStorage.setItem(key, jsonText(message));
        target.localStorage.removeItem(key);
      } catch {
        // storage blocked too: the other tabs are not told
      }
    },
    close() {
      target.removeEventListener("storage", /** @type {EventListener} */ (listener));
    },
  };
  target.addEventListener("storage", /** @type {EventListener} */ (listener));
  return channel;
}
