// The planner's part of the SDK: what the current-menu page asks of the host page, and the finalize flow's
// resume URL (docs/sdk.md, `svc.planner`).
//
// Finalizing a menu needs a logged-in user and a store. When one is missing, the page caches where to come
// back (localStorage `_<prefix>/cachedFinalizeMenuUrl`: the current-menu page's URL alone, as the
// specification has it, for a host's login page to read; `_<prefix>/supplier-<id>/planner/finalizeNeeds`: `{needs,
// at, store, url}`, what was missing, when, the store then and that URL again: only a page of that supplier
// resumes, at its own copy of the URL, as several suppliers' pages may share a site and the first key) and asks the host: the `loginRequired$` / `storeRequired$` events, and the callback given to
// `defineLoginRequired` / `defineStoreRequired`. Once what was missing arrives on another page (a user's
// credential after a login, or a store given to `pos.load`), the SDK takes the cached URL out and goes back.
//
// The shopper's other tabs follow the menu (sdk/tabs.js, message `menu`): a page whose menu write the service
// took says so (`menuChanged`, with the store it acted at), and the other tabs of that shopper emit
// `changedElsewhere$` with that store, at once when they show, else once when they show again, however many
// changes they missed; the current-menu page at that store then draws its menu again (components/planner.js).
// A finalize is not told: the menu went into the basket, and drawing the page again would make a new menu from
// the suggestions, before the shopper chose how (the planner entry's mode counts only when a menu is made).
// A page restored from the back/forward cache heard nothing while it was kept there (its channel was closed, and
// the change may have been made by the page that replaced it, in the same tab): each change is also written down
// (localStorage `_<prefix>/planner/menuChanged`: `{supplier, shopper, store, change}`, `change` a new random id each
// time),
// and a restored page that has not seen the shopper's last change follows it as it would another tab's. Ids, not
// times: two pages' clocks (a page's start, another's Date.now) are not one clock.
import { Stream } from "./observable.js";
import { isRecent, randomId } from "./storage.js";
import { jsonText } from "./json.js";

/** Storage name (under `_<prefix>/`) of the URL the finalize flow resumes at: the URL alone. */
export const FINALIZE_URL_KEY = "cachedFinalizeMenuUrl";
/** Storage name (the supplier's: `Session.supplierKey`) of what that resume waits for: `{needs, at, store, url}`. */
export const FINALIZE_NEEDS_KEY = "planner/finalizeNeeds";
/** A resume older than this is forgotten: the shopper went on with something else. */
export const FINALIZE_URL_MAX_AGE_MS = 30 * 60 * 1000;
/** Storage name (under `_<prefix>/`) of the shopper's last menu change a page of this browser made. */
export const MENU_CHANGED_KEY = "planner/menuChanged";

/**
 * @typedef {object} PlannerRequest what the planner asks the host
 * @property {string} resumeUrl the current-menu page to come back to (also cached)
 */
/** @typedef {(request: PlannerRequest) => unknown} PlannerCallback */

export class Planner {
  /** @type {Stream<PlannerRequest>} finalize needs a logged-in user: the host logs the user in */
  loginRequired$ = new Stream();
  /** @type {Stream<PlannerRequest>} finalize needs a store: the host lets the user choose one */
  storeRequired$ = new Stream();
  /** @type {Stream<{ store: string | null }>} another tab changed this shopper's menu, at that store (emitted while
   * the page shows) */
  changedElsewhere$ = new Stream();
  /** @type {PlannerCallback | null} */ #onLoginRequired = null;
  /** @type {PlannerCallback | null} */ #onStoreRequired = null;
  #session;
  /** @type {import("./tabs.js").Tabs | null} */
  #tabs;
  /** @type {{ store: string | null } | null} the last change another tab told while this page was hidden */
  #missed = null;
  #newId;
  /** The shopper's last menu change this page knows of (an id of `MENU_CHANGED_KEY`'s), "" for none. */
  #known;

  /**
   * @param {object} services
   * @param {import("./session.js").Session} services.session
   * @param {import("./tabs.js").Tabs | null} [services.tabs] the shopper's other tabs of the site
   * @param {() => string} [services.newId] an id for each change written down (default: a random UUID)
   */
  constructor({ session, tabs = null, newId = randomId }) {
    this.#session = session;
    this.#tabs = tabs;
    this.#newId = newId;
    // The menu the page was drawn with holds the changes made before it started.
    this.#known = this.#writtenChange()?.change ?? "";
    tabs?.on("menu", (message) => {
      if (!message.shopper || message.shopper !== session.shopperKey) return;
      this.#missed = { store: typeof message.store === "string" ? message.store : null };
      if (tabs.visible) this.#followOthers();
    });
    tabs?.onReturn((awayMs) => {
      if (awayMs === Number.POSITIVE_INFINITY) this.#missWrittenChange(); // restored from the back/forward cache
      if (this.#missed) this.#followOthers();
    });
  }

  /**
   * This page changed the shopper's menu at `store` (a write the service took): the shopper's other tabs are told,
   * and the change is written down for the pages kept in the back/forward cache.
   * @param {string | null} store
   */
  menuChanged(store) {
    const shopper = this.#session.shopperKey;
    if (!shopper) return;
    const change = this.#newId();
    this.#known = change;
    // Written before the others are told: a tab that follows the message reads it as the change it has seen.
    const supplier = this.#session.supplier;
    this.#session.local.set(this.#session.key(MENU_CHANGED_KEY), jsonText({ supplier, shopper, store, change }));
    this.#tabs?.post({ type: "menu", shopper, store });
  }

  /**
   * The last change written down (any shopper's, of any supplier), or null.
   * @returns {{ supplier: string, shopper: string, store: string | null, change: string } | null}
   */
  #writtenChange() {
    /** @type {unknown} */
    let written;
    try {
      written = JSON.parse(this.#session.local.get(this.#session.key(MENU_CHANGED_KEY)) ?? "null");
    } catch {
      return null; // not ours to read
    }
    if (!written || typeof written !== "object") return null;
    const { supplier, shopper, store, change } = /** @type {{ supplier?: unknown, shopper?: unknown, store?: unknown,
      change?: unknown }} */ (written);
    if (typeof shopper !== "string" || !shopper || typeof change !== "string" || !change) return null;
    return {
      supplier: typeof supplier === "string" ? supplier : "", shopper, store: typeof store === "string" ? store : null, change,
    };
  }

  /** A change written down since this page last knew the menu, by the same shopper of the same supplier: missed. */
  #missWrittenChange() {
    const written = this.#writtenChange();
    if (!written || written.change === this.#known || written.shopper !== this.#session.shopperKey) return;
    if (written.supplier !== this.#session.supplier) return;
    this.#missed = { store: written.store };
  }

  #followOthers() {
    const missed = this.#missed;
    this.#missed = null;
    this.#known = this.#writtenChange()?.change ?? this.#known; // the menu drawn now holds it
    if (missed) this.changedElsewhere$.next(missed);
  }

  /** @param {PlannerCallback | null} callback */
  defineLoginRequired(callback) {
    this.#onLoginRequired = checkCallback(callback);
  }

  /** @param {PlannerCallback | null} callback */
  defineStoreRequired(callback) {
    this.#onStoreRequired = checkCallback(callback);
  }

  /**
   * The planner cannot finalize: caches the resume URL, then tells the host. Returns whether the host
   * handles it (a callback, or a subscriber to the event), so that the page can say what to do otherwise.
   * @param {"login" | "store"} what
   * @param {string} resumeUrl
   * @param {string | null} [storeId] the page's store now (`pos`): only another one resumes a `store` need
   */
  require(what, resumeUrl, storeId = null) {
    this.#session.local.set(this.#session.key(FINALIZE_URL_KEY), resumeUrl);
    const needs = { needs: what, at: Date.now(), store: storeId, url: resumeUrl };
    this.#session.local.set(this.#session.supplierKey(FINALIZE_NEEDS_KEY), jsonText(needs));
    const request = { resumeUrl };
    const stream = what === "login" ? this.loginRequired$ : this.storeRequired$;
    const callback = what === "login" ? this.#onLoginRequired : this.#onStoreRequired;
    const listened = stream.observed;
    stream.next(request);
    if (callback) {
      try {
        void Promise.resolve(callback(request)).catch((error) => console.error(error));
      } catch (error) {
        console.error(error);
      }
    }
    return Boolean(callback) || listened;
  }

  /**
   * The cached resume URL and what it waits for, or null (none, without what it waits for, not ours, or older
   * than 30 minutes). A URL without this supplier's wait is another supplier's page's (or an SDK's of before):
   * left as it is.
   * @returns {{ url: string, needs: "login" | "store", store: string | null } | null}
   */
  cachedFinalize() {
    const wait = this.#wait();
    if (wait === null) return null;
    const { needs, at, store, url: own } = wait;
    // Its own copy (the site's key may hold another supplier's since); one written before the copy: the site's.
    const url = typeof own === "string" ? own : this.#session.local.get(this.#session.key(FINALIZE_URL_KEY));
    const fresh = typeof at === "number" && isRecent(at, FINALIZE_URL_MAX_AGE_MS);
    if (url && (needs === "login" || needs === "store") && fresh) {
      return { url, needs, store: typeof store === "string" ? store : null };
    }
    this.clearFinalizeUrl(); // not ours to follow, or too old
    return null;
  }

  /**
   * This supplier's finalize wait as written (`{needs, at, store, url}`, unchecked), `{}` when unreadable, null when
   * there is none.
   * @returns {Record<string, unknown> | null}
   */
  #wait() {
    const raw = this.#session.local.get(this.#session.supplierKey(FINALIZE_NEEDS_KEY));
    if (!raw) return null;
    try {
      const wait = JSON.parse(raw);
      return wait && typeof wait === "object" ? wait : {};
    } catch {
      return {};
    }
  }

  /**
   * Forgets the resume URL and what it waited for (the current-menu page does once it is shown again): the site's
   * key only when it holds this supplier's URL.
   */
  clearFinalizeUrl() {
    const own = this.#wait()?.url;
    const urlKey = this.#session.key(FINALIZE_URL_KEY);
    if (typeof own === "string" && this.#session.local.get(urlKey) === own) this.#session.local.remove(urlKey);
    this.#session.local.remove(this.#session.supplierKey(FINALIZE_NEEDS_KEY));
  }

  /**
   * Goes back to the cached current-menu page, when there is one, this page is not it, and what it waited
   * for (`needs`, when given) is what just arrived: a login, or a store other than the one in force when
   * the page asked. Returns whether the browser is leaving. Only same-origin http(s) URLs are followed; on
   * the cached page itself the cache is cleared.
   * @param {"login" | "store"} [arrived] what the page now has (none: resume whatever the cache waits for)
   * @param {string | null} [storeId] with `store`: the store now in force
   */
  resumeFinalize(arrived, storeId = null) {
    const cached = this.cachedFinalize();
    if (!cached || (arrived && cached.needs !== arrived)) return false;
    if (arrived === "store" && storeId === cached.store) return false;
    let url;
    try {
      url = new URL(cached.url, window.location.href);
    } catch {
      this.clearFinalizeUrl();
      return false;
    }
    if (url.origin !== window.location.origin || !/^https?:$/.test(url.protocol)) {
      this.clearFinalizeUrl();
      return false;
    }
    this.clearFinalizeUrl();
    if (url.pathname === window.location.pathname) return false;
    window.location.assign(url.href);
    return true;
  }
}

/** @param {unknown} callback */
function checkCallback(callback) {
  if (callback !== null && typeof callback !== "function") throw new TypeError("expected a function or null");
  return /** @type {PlannerCallback | null} */ (callback);
}
