// The browser SDK: window.<prefix> (default window.svc). Safe to load any number of times: the first load
// creates the object, later loads (another fragment, another build) find it and change nothing.
//
// Module URL query (the same on every module of a page, docs/sdk.md): `prefix=<p>` when the element prefix
// is not `svc`; `api=<base URL>` when the modules are served from a CDN. Without `api`, the prerender API
// is where the modules come from: <base>/static/<build>/sdk/svc.js -> <base>.
//
// Inside sdk/, modules import each other statically and without the query: they never read it (svc.js
// hands them what they need), so each has one URL and one instance, and svc.js runs without awaiting
// anything: window.<prefix> exists as soon as this module has run, and a customer's module script placed
// after the fragment's scripts can use it at once. Modules outside sdk/ import svc.js with the query.
import { Stream, State } from "./stream.js";
import { Session } from "./session.js";
import { ApiClient, ApiError } from "./http.js";
import { Notices } from "./notices.js";
import { Pos } from "./pos.js";
import { BasketService } from "./basket.js";
import { Likes } from "./likes.js";
import { Analytics } from "./analytics.js";
import { ShowTracker } from "./show-tracking.js";
import { Planner } from "./planner.js";
import { GuestCounts, validGuestCount } from "./guests.js";
import { TransferArrivals } from "./transfer.js";
import { defineShopperElement } from "./shopper.js";
import { translator } from "./texts.js";

export { Stream, State, ApiError, translator, validGuestCount };

const moduleUrl = new URL(import.meta.url);
const search = moduleUrl.search;
const prefix = moduleUrl.searchParams.get("prefix") || "svc";
const VERSION = "1.0.0";
/** Key of the SDK's internals, for the components of this package only. */
export const INTERNAL = Symbol.for("prerender.sdk.internal");

/** @typedef {ReturnType<typeof createSdk>["sdk"]} Sdk the object installed as window.<prefix> */

/**
 * What `sdk[INTERNAL]` holds: the SDK's services, for the components of this package only.
 * @typedef {object} SdkInternals
 * @property {Session} session
 * @property {ApiClient} client
 * @property {Notices} notices
 * @property {Analytics} analytics
 * @property {BasketService} basket
 * @property {Likes} likes
 * @property {Pos} pos
 * @property {Planner} planner
 * @property {GuestCounts} guests
 * @property {TransferArrivals} transfers
 * @property {(name: string, props: Record<string, unknown>) => import("./analytics.js").AnalyticsEvent} track
 */

/** The page's window seen as a map of SDKs by prefix: window.<prefix>. */
const sdks = /** @type {Record<string, Sdk | undefined>} */ (/** @type {unknown} */ (window));

/** Builds the SDK object; `start()` then does what touches the page (the credential element, pageview of the
 * meta path, cleanup). */
function createSdk() {
  const apiBase = moduleUrl.searchParams.get("api") || new URL("../../../", import.meta.url).href;
  const session = new Session({ prefix, apiBase });
  const client = new ApiClient(session);
  const notices = new Notices(session);
  const analytics = new Analytics({ client, session });
  const track = (/** @type {string} */ name, /** @type {Record<string, unknown>} */ props) => analytics.track(name, props);
  const pos = new Pos();
  const basket = new BasketService({ client, pos, session, notices });
  const likes = new Likes({ client, session, track });
  const planner = new Planner({ session });
  const guests = new GuestCounts();
  // The page has loaded and its basket calls are done: what resumes a flow that leaves the page (the planner's
  // finalize) or changes the basket (a transferred basket) waits for it, so as not to cut short the page's own
  // calls (the first logged-in page merges the visitor's basket).
  const whenSettled = () => new Promise((resolve) => {
    if (document.readyState === "complete") resolve(undefined);
    else window.addEventListener("load", () => resolve(undefined), { once: true });
  }).then(() => basket.whenIdle());
  const transfers = new TransferArrivals({ session, pos, basket, notices, track, settled: whenSettled });
  const shows = new ShowTracker({
    storage: session.local,
    key: (name) => session.key(name),
    emit: (recipeId) => track("recipe.show", { recipe_id: recipeId }),
  });

  /**
   * Opens the drawer with a recipe's details. Resolves once they are shown; rejects with the problem
   * when they cannot be loaded (the drawer then shows an error state).
   * @param {string | number} recipeId
   * @param {number} [guests]
   * @param {{ opener?: HTMLElement, source?: string, title?: string, storeId?: string,
   *   transfer?: import("../components/basket-transfer.js").TransferOffer }} [options]
   */
  async function openDetails(recipeId, guests, options = {}) {
    const id = String(recipeId ?? "").trim();
    if (!id) throw new TypeError("openDetails expects a recipe id");
    const { openRecipeDetails } = /** @type {typeof import("../components/drawer.js")} */ (
      await import(new URL(`../components/drawer.js${search}`, import.meta.url).href));
    return openRecipeDetails({ recipeId: id, guests: validGuests(guests), ...options });
  }

  let tokenWarned = false;
  const sdk = {
    prefix,
    version: VERSION,
    supplier: Object.freeze({
      /**
       * Language, API base and version, session id. API calls wait for it (or setupWithToken).
       * @param {import("./session.js").SetupOptions} [options]
       */
      setup: (options) => session.setup(options),
      /**
       * Kept for existing pages: the token is ignored (never sent, never stored); does what `setup` does.
       * @param {unknown} token no longer used: remove the supplier token from the page
       * @param {import("./session.js").SetupOptions} [options]
       */
      setupWithToken: (token, options) => {
        if (typeof token === "string" && token.trim() && !tokenWarned) {
          tokenWarned = true;
          console.warn(`[${prefix}] supplier.setupWithToken: the supplier token is ignored and should not be in `
            + "the page (the browser acts with the shopper's credential): call supplier.setup(options).");
        }
        session.setup(options);
      },
    }),
    pos: Object.freeze({
      load: (/** @type {string | number | null} */ storeId) => pos.load(storeId),
      storeId$: pos.storeId$,
    }),
    user: Object.freeze({
      // The page's claims: only the credential of the page decides whom the SDK acts for (session.claim).
      loadWithExternalId: async (/** @type {string} */ id, forbidProfiling = false) => session.claim("user", id, forbidProfiling),
      loadWithAuthlessId: async (/** @type {string} */ id) => session.claim("authless", id),
      /** Logout: the SDK forgets its credentials, and has no identity until a new credential element arrives. */
      reset: async () => session.reset(),
      user$: session.identity$,
    }),
    basket: Object.freeze({
      initialize: () => basket.initialize(),
      recipeCount: () => basket.recipeCount(),
      reset: () => basket.reset(),
      basket$: basket.basket$,
      inBasket$: (/** @type {string} */ recipeId) => basket.inBasket$(recipeId),
      mergeAuthless: (/** @type {string} */ authlessId) => basket.mergeAuthless(authlessId),
      /** A publisher's basket to its affiliated retailer: resolves with the link to send the browser to. */
      transfer: (/** @type {string} */ storeId) => basket.transfer(storeId),
      /** Emits `{affiliate, recipeCount, changes, cartFollowed}` when a basket from an affiliated site arrived. */
      transferReceived$: transfers.received$,
    }),
    basketSync: Object.freeze({
      retailerBasketChanged: async (/** @type {unknown} */ products) => basket.sync.cartChanged(products),
      handlePayment: async (/** @type {number} */ total, /** @type {string} */ orderId, /** @type {unknown} */ cart) =>
        basket.confirm(total, orderId, cart),
      definePushProductsToCart: (/** @type {any} */ callback) => basket.sync.definePush(callback),
      defineAddProductsToCart: (/** @type {any} */ callback) => basket.sync.defineAdd(callback),
      defineRemoveProductsFromCart: (/** @type {any} */ callback) => basket.sync.defineRemove(callback),
    }),
    recipes: Object.freeze({
      openDetails,
      /**
       * The guest count of a recipe for every control of the page that follows it (a publisher's CTA, by the
       * service's id or the publisher's own). Not 1 to 50: ignored, false.
       */
      setGuests: (/** @type {string | number} */ recipeId, /** @type {unknown} */ count) => guests.set(recipeId, count),
      /** The guest count chosen on the page for a recipe, as a stream. */
      guests$: (/** @type {string | number} */ recipeId) => guests.of(recipeId),
    }),
    hook: Object.freeze({
      /**
       * How the page switches to a store (a basket arriving from an affiliated site was built at another one):
       * `(storeId) => boolean | Promise<boolean>`, true once the page is at that store.
       */
      setForcePosCallback: (/** @type {unknown} */ callback) => transfers.setForcePosCallback(callback),
    }),
    likes: Object.freeze({
      like: async (/** @type {string} */ recipeId) => likes.like(recipeId),
      unlike: async (/** @type {string} */ recipeId) => likes.unlike(recipeId),
      liked$: likes.liked$,
    }),
    analytics: Object.freeze({
      eventSent$: analytics.eventSent$,
      attachRecipeCardShowTracking: (/** @type {any} */ options) => shows.attach(options),
      pageview: (/** @type {string} */ path) => analytics.pageview(path),
      flush: () => analytics.flush(),
    }),
    planner: Object.freeze({
      defineLoginRequired: (/** @type {any} */ callback) => planner.defineLoginRequired(callback),
      defineStoreRequired: (/** @type {any} */ callback) => planner.defineStoreRequired(callback),
      loginRequired$: planner.loginRequired$,
      storeRequired$: planner.storeRequired$,
      resumeFinalize: () => planner.resumeFinalize(),
    }),
    ApiError,
  };
  /** @type {SdkInternals} */
  const internals = { session, client, notices, analytics, basket, likes, pos, planner, guests, transfers, track };
  Object.defineProperty(sdk, INTERNAL, { value: Object.freeze(internals) });
  return {
    sdk: Object.freeze(sdk),
    start() {
      // The credential elements already parsed are upgraded now, before any component asks for anything.
      defineShopperElement({ prefix, session });
      // A page that names its analytics path in a meta tag gets its pageview without any code; sent once
      // the document is parsed, so that the page's own module scripts have subscribed to eventSent$.
      const autoPageview = () => {
        if (document.querySelector(`meta[name="${prefix}-analytics-path"]`)) analytics.pageview();
      };
      const navigation = /** @type {PerformanceNavigationTiming | undefined} */ (performance.getEntriesByType?.("navigation")[0]);
      const parsed = document.readyState === "complete" || (navigation?.domContentLoadedEventStart ?? 0) > 0;
      if (parsed) setTimeout(autoPageview, 0);
      else document.addEventListener("DOMContentLoaded", autoPageview, { once: true });
      // The finalize flow of the planner resumes once its user has logged in or a store is chosen, when that
      // happened on another page (sdk/planner.js), once the page has settled.
      session.identity$.subscribe((identity) => {
        if (identity?.kind === "user" && planner.cachedFinalize()?.needs === "login") {
          void whenSettled().then(() => planner.resumeFinalize("login"));
        }
      });
      pos.storeId$.subscribe((storeId) => {
        if (storeId && planner.cachedFinalize()?.needs === "store") {
          void whenSettled().then(() => planner.resumeFinalize("store", storeId));
        }
      });
      // A basket sent by an affiliated publisher: out of the address bar now, redeemed once the page is ready.
      transfers.catchArrival();
      if (transfers.pending()) void whenSettled().then(() => transfers.resume());
      const idle = window.requestIdleCallback ?? ((/** @type {() => void} */ fn) => setTimeout(fn, 2000));
      idle(() => shows.prune());
    },
  };
}

/** A guest count of 1 to 50, or undefined (the recipe's own). */
function validGuests(/** @type {unknown} */ guests) {
  const value = Number.parseInt(String(guests ?? ""), 10);
  return Number.isInteger(value) && value >= 1 && value <= 50 ? value : undefined;
}

if (!sdks[prefix]) {
  const created = createSdk();
  Object.defineProperty(window, prefix, { value: created.sdk, enumerable: true });
  created.start();
}

/** The SDK of the page (whichever build installed it first). */
export const sdk = /** @type {Sdk} */ (sdks[prefix]);
