// `recipe.show`: a card is shown when at least 80 % of it is on screen for one continuous second; a recipe
// is counted once per 5 minutes per supplier (localStorage `_<prefix>/supplier-<id>/shown/<recipe id>` holds the
// last time), whatever the number of its cards. One IntersectionObserver watches every card of the page. While a modal overlay of ours
// covers the page (the drawer, the planner's onboarding: `covered`), no card is on screen for the shopper: its
// second waits, and starts again once the overlay is gone, for the cards still on screen.

const VISIBLE_RATIO = 0.8;
const VISIBLE_MS = 1000;
const ONCE_PER_MS = 5 * 60 * 1000;

/**
 * @typedef {object} Tracked
 * @property {HTMLElement} element
 * @property {string} recipeId
 * @property {ReturnType<typeof setTimeout> | undefined} timer
 * @property {boolean} visible at least 80 % of it in the viewport, as last reported
 */

export class ShowTracker {
  /** @type {IntersectionObserver | null} */
  #observer = null;
  /** @type {Map<Element, Set<Tracked>>} */
  #tracked = new Map();
  #storage;
  #key;
  #siteKey;
  #emit;
  #covered;

  /**
   * @param {object} deps
   * @param {import("./storage.js").SafeStorage} deps.storage localStorage
   * @param {(name: string) => string} deps.key storage key of an entry of the page's supplier (sdk/session.js
   *   `supplierKey`: another supplier's page of the site counts its own shows)
   * @param {(name: string) => string} [deps.siteKey] storage key of the site's (where an SDK of before kept its
   *   times: pruned too; default `key`)
   * @param {(recipeId: string) => void} deps.emit sends recipe.show
   * @param {import("./observable.js").State<boolean>} deps.covered whether a modal overlay of ours covers the page
   */
  constructor({ storage, key, siteKey = key, emit, covered }) {
    this.#storage = storage;
    this.#key = key;
    this.#siteKey = siteKey;
    this.#emit = emit;
    this.#covered = covered;
    covered.subscribe((isCovered) => {
      for (const records of this.#tracked.values()) for (const tracked of records) this.#follow(tracked, tracked.visible && !isCovered);
    });
  }

  /**
   * Watches one card root. Returns the handle to call when the node is removed.
   * @param {{ element: HTMLElement, recipeId: string | number }} options
   * @returns {{ disconnect(): void }}
   */
  attach({ element, recipeId } = /** @type {any} */ ({})) {
    if (!(element instanceof Element)) throw new TypeError("attachRecipeCardShowTracking expects {element, recipeId}");
    const id = String(recipeId ?? "").trim();
    if (!id) throw new TypeError("attachRecipeCardShowTracking expects a recipeId");
    // A browser without IntersectionObserver (older ones, some hardened modes) tells no card as shown; the card
    // and the page's own code that attaches it go on.
    if (typeof IntersectionObserver !== "function") return { disconnect() {} };
    /** @type {Tracked} */
    const tracked = { element: /** @type {HTMLElement} */ (element), recipeId: id, timer: undefined, visible: false };
    let records = this.#tracked.get(element);
    if (!records) {
      records = new Set();
      this.#tracked.set(element, records);
    } else {
      // Already observed: observe again so the observer reports the current visibility to the new tracking
      // too (it only reports changes, and an element already on screen would otherwise never report).
      this.#observerFor().unobserve(element);
    }
    records.add(tracked);
    this.#observerFor().observe(element);
    let connected = true;
    return {
      disconnect: () => {
        if (!connected) return;
        connected = false;
        clearTimeout(tracked.timer);
        const set = this.#tracked.get(element);
        set?.delete(tracked);
        if (set && set.size === 0) {
          this.#tracked.delete(element);
          this.#observer?.unobserve(element);
        }
        if (this.#tracked.size === 0) {
          this.#observer?.disconnect();
          this.#observer = null;
        }
      },
    };
  }

  /** Drops the timestamps older than 5 minutes (run once per page). */
  prune() {
    const prefixes = [this.#key("shown/"), this.#siteKey("shown/")];
    const now = Date.now();
    for (const name of this.#storage.keys()) {
      if (!prefixes.some((prefix) => name.startsWith(prefix))) continue;
      const at = Number(this.#storage.get(name));
      if (!Number.isFinite(at) || now - at >= ONCE_PER_MS || at > now + ONCE_PER_MS) this.#storage.remove(name);
    }
  }

  #observerFor() {
    this.#observer ??= new IntersectionObserver((entries) => this.#onIntersections(entries), {
      threshold: [0, VISIBLE_RATIO],
    });
    return this.#observer;
  }

  /** @param {IntersectionObserverEntry[]} entries */
  #onIntersections(entries) {
    for (const entry of entries) {
      const visible = entry.isIntersecting && entry.intersectionRatio >= VISIBLE_RATIO - 0.001;
      for (const tracked of this.#tracked.get(entry.target) ?? []) {
        tracked.visible = visible;
        this.#follow(tracked, visible && !this.#covered.value);
      }
    }
  }

  /** The card's second runs while it is `seen` (on screen, nothing of ours over it), else stops. @param {Tracked} tracked @param {boolean} seen */
  #follow(tracked, seen) {
    if (seen && tracked.timer === undefined) {
      tracked.timer = setTimeout(() => this.#shown(tracked), VISIBLE_MS);
    } else if (!seen && tracked.timer !== undefined) {
      clearTimeout(tracked.timer);
      tracked.timer = undefined;
    }
  }

  /** @param {Tracked} tracked */
  #shown(tracked) {
    tracked.timer = undefined;
    const key = this.#key(`shown/${tracked.recipeId}`);
    const last = Number(this.#storage.get(key));
    const now = Date.now();
    if (Number.isFinite(last) && now - last < ONCE_PER_MS && last <= now) return;
    this.#storage.set(key, String(now));
    this.#emit(tracked.recipeId);
  }
}
