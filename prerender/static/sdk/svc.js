// The browser SDK: window.<prefix> (default window.svc). Safe to load any number of times: the first load
// creates the object, later loads (another fragment, another build) find it and change nothing.
//
// Its configuration (the element prefix, the API's base) is in its URL (sdk/config.js). The modules of sdk/
// import each other statically and never read it (svc.js hands them what they need), so svc.js runs without
// awaiting anything: window.<prefix> exists as soon as this module has run, and a customer's module script
// placed after the fragment's scripts can use it at once. The components import this module (through
// components/ui.js), and it loads the drawer's module the first time the drawer opens.
import { Session } from "./session.js";
import { ApiClient, ApiError, isOutcomeUnknown, localProblem, logFailure } from "./http.js";
import { Notices } from "./notices.js";
import { Pos } from "./pos.js";
import { BasketService } from "./basket.js";
import { Likes } from "./likes.js";
import { Analytics } from "./analytics.js";
import { ShowTracker } from "./show-tracking.js";
import { Planner } from "./planner.js";
import { MenuRoutes } from "./menu-routes.js";
import { GuestCounts, validGuestCount, GUESTS_MIN, GUESTS_MAX } from "./guests.js";
import { TransferArrivals } from "./transfer.js";
import { defineShopperElement } from "./shopper.js";
import { formatText, isolated, numberFormat, translator } from "./texts.js";
import { Customization } from "./customization.js";
import { Hooks, isStoppedByHook } from "./hooks.js";
import { Toaster } from "./toaster.js";
import { TopLayer } from "./top-layer.js";
import { DrawerLoader } from "./drawer-loading.js";
import { Observable, State, Stream, single, withThen } from "./observable.js";
import { moduleConfig } from "./config.js";
import { reported } from "./reported.js";
import { Tabs } from "./tabs.js";
import { inertFragment, parsedDocument, parsedFragment } from "./markup.js";
import { writableLocalStorage } from "./storage.js";
import { jsonText } from "./json.js";

export { Stream, State, ApiError, Observable, inertFragment, parsedDocument, parsedFragment, formatText, isolated, isOutcomeUnknown, localProblem, logFailure, numberFormat, translator, validGuestCount, GUESTS_MIN, GUESTS_MAX, isStoppedByHook, writableLocalStorage, jsonText };

const { prefix, apiBase } = moduleConfig(import.meta.url);
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
 * @property {MenuRoutes} menuRoutes the menu's routes (sdk/menu-routes.js), for the planner's page and the catalog
 * @property {GuestCounts} guests
 * @property {TransferArrivals} transfers
 * @property {Customization} customization the page's settings through the maker's setters (sdk/customization.js)
 * @property {{ hidden: Stream<boolean>, addAllClicked: Stream<{ ingredientsAdded: number, ingredientsTotal: number }> }} recipeEvents
 *   what the drawer tells the page (`recipes.hidden`, `recipes.addAllIngredientsCTAWasClicked`)
 * @property {State<boolean>} storeLocator$ a store picker of ours is open (`events.storeLocatorOpened()`)
 * @property {TopLayer} topLayer the overlays' place above the retailer's page (sdk/top-layer.js)
 * @property {(name: string, props: Record<string, unknown>) => import("./analytics.js").AnalyticsEvent} track
 */

/** The page's window seen as a map of SDKs by prefix: window.<prefix>. */
const sdks = /** @type {Record<string, Sdk | undefined>} */ (/** @type {unknown} */ (window));

/** Builds the SDK object; `start()` then does what touches the page (the credential element, pageview of the
 * meta path, cleanup). */
function createSdk() {
  // The shopper's other tabs of the site: a credential, a logout and the basket's changes are followed there.
  const tabs = new Tabs({ name: `_${prefix}/tabs` });
  const session = new Session({ prefix, apiBase, tabs });
  const client = new ApiClient(session);
  const analytics = new Analytics({ client, session });
  const track = (/** @type {string} */ name, /** @type {Record<string, unknown>} */ props) => analytics.track(name, props);
  const pos = new Pos();
  const customization = new Customization();
  const hooks = new Hooks({ prefix });
  // The overlays' place above the retailer's page (the drawer, the onboarding, the toaster above them).
  const topLayer = new TopLayer();
  const toaster = new Toaster({ prefix, topLayer });
  const notices = new Notices(session, { toaster });
  // The confirmation of `recipes.showConfirmationToaster()`: in the open drawer's messages when the addition was
  // made there (inside its modal dialog, where assistive technology reads it), else the toaster.
  const onAdded = (/** @type {number} */ count) => {
    if (!customization.confirmationToaster$.value) return;
    const text = notices.t("toaster.added", { count });
    if (!notices.presentInDialog(text)) toaster.show(text);
  };
  const basket = new BasketService({ client, pos, session, notices, hooks, onAdded, tabs });
  /** @type {SdkInternals["recipeEvents"]} */
  const recipeEvents = { hidden: new Stream(), addAllClicked: new Stream() };
  /** @type {State<boolean>} */
  const storeLocator$ = new State(false);
  const likes = new Likes({ client, session, track, tabs });
  const planner = new Planner({ session, tabs });
  const menuRoutes = new MenuRoutes(client);
  const guests = new GuestCounts();
  // The page has loaded and its basket calls are done: what resumes a flow that leaves the page (the planner's
  // finalize) or changes the basket (a transferred basket) waits for it, so as not to cut short the page's own
  // calls (the first logged-in page merges the visitor's basket).
  const whenSettled = () => new Promise((resolve) => {
    if (document.readyState === "complete") resolve(undefined);
    else window.addEventListener("load", () => resolve(undefined), { once: true });
  }).then(() => basket.whenIdle());
  const transfers = new TransferArrivals({ session, pos, basket, notices, toaster, track, settled: whenSettled });
  // The drawer's module, loaded on the first opening; a slow or failed load is told in the toaster.
  const drawer = new DrawerLoader({
    importDrawer: () => import("../components/drawer.js"),
    toaster,
    t: (key) => notices.t(key),
  });
  const shows = new ShowTracker({
    storage: session.local,
    key: (name) => session.supplierKey(name),
    siteKey: (name) => session.key(name),
    emit: (recipeId) => track("recipe.show", { recipe_id: recipeId }),
    covered: topLayer.covering$,
  });

  // Each drawer request (an opening, a close): an opening waiting for the module goes on only if still the last.
  let drawerRequests = 0;

  /**
   * Opens the drawer with a recipe's details. Resolves once they are shown; rejects with the problem
   * when they cannot be loaded (the drawer then shows an error state), or when the drawer itself cannot open
   * (its module not loaded within 10 s: a `#drawer-unavailable` problem, told in the toaster; sdk/drawer-loading.js).
   * @param {string | number} recipeId
   * @param {number} [guests]
   * @param {{ opener?: HTMLElement, source?: string, title?: string, storeId?: string,
   *   transfer?: import("../components/basket-transfer.js").TransferOffer, picture?: string }} [options]
   */
  async function openDetails(recipeId, guests, options = {}) {
    const id = String(recipeId ?? "").trim();
    if (!id) throw new TypeError("openDetails expects a recipe id");
    const opening = ++drawerRequests;
    const { openRecipeDetails } = await drawer.load({ opening: "drawer.opening", failed: "error.drawer" });
    if (opening !== drawerRequests) return undefined; // closed (or opened on another) while its module loaded
    return openRecipeDetails({ recipeId: id, guests: validGuestCount(guests) ?? undefined, ...options });
  }

  /** Closes the drawer when it is open, or opening (nothing is loaded when it never was): a single-page app's
   * route change. */
  function closeDetails() {
    drawerRequests += 1;
    drawer.loaded?.closeDrawer();
  }

  /** Opens the drawer on the basket's recipes (the v2 basket preview). @param {{ opener?: HTMLElement }} [options] */
  async function openPreview(options = {}) {
    const opening = ++drawerRequests;
    const { openBasketPreview } = await drawer.load({ opening: "drawer.opening-basket", failed: "error.drawer-basket" });
    if (opening !== drawerRequests) return undefined;
    return openBasketPreview(options);
  }

  /**
   * The maker's login call: records `forbidProfiling`, checks the claim against the credential (sdk/session.js)
   * and returns an observable that emits the identity once the SDK acts for that shopper, which is also a
   * promise resolved once the call is recorded (as before).
   * @param {"user" | "authless"} kind @param {unknown} id @param {unknown} forbidProfiling
   */
  function load(kind, id, forbidProfiling) {
    try {
      const atClaim = session.shopperKey;
      const claimed = session.claim(kind, id, forbidProfiling === undefined ? undefined : Boolean(forbidProfiling));
      const login = new Observable((/** @type {any} */ sink) => session.watchClaim(kind, claimed, atClaim, sink));
      return withThen(login, Promise.resolve(undefined));
    } catch (error) {
      // A bad id is the page's bug: said in the console even when nobody subscribes or awaits.
      console.error(`[${prefix}] user.${kind === "user" ? "loadWithExternalId" : "loadWithAuthlessId"}:`, error);
      return single(Promise.reject(error));
    }
  }

  /**
   * The retailer's favorite products (`user.setFavoriteItems`): PUT /favorite-items, preferred when the
   * basket picks a product for an ingredient. An observable of the stored list that is also a promise.
   * @param {unknown} ids product ids, strings (numbers are accepted)
   */
  function setFavoriteItems(ids) {
    const request = (async () => {
      if (!Array.isArray(ids)) throw new TypeError("setFavoriteItems expects an array of product ids");
      const productIds = ids.map((id) => String(id ?? "").trim());
      if (productIds.some((id) => !id)) throw new TypeError("setFavoriteItems: empty product id");
      return client.request("PUT", "/favorite-items", { json: { product_ids: productIds } });
    })();
    return single(request);
  }

  /** A setter of the maker's surface that takes no argument and switches a feature on. @param {State<boolean>} state */
  const enable = (state) => () => {
    state.next(true);
  };

  /**
   * The promise of a call the maker's integrations make without waiting for it (sdk/reported.js): a failure the
   * page does not take is said in the console; a page that takes it gets it, and the console nothing more.
   * @template T @param {string} name @param {Promise<T>} promise @returns {Promise<T>}
   */
  const dropped = (name, promise) => reported(promise, (/** @type {unknown} */ error) => {
    console.warn(`[${prefix}] ${name} failed:`, error);
  });
  /** @type {Set<string>} the members whose advice the console was given (once each) */
  const warned = new Set();
  /** Says `message` about the member `name` in the console, the first time only. @param {string} name @param {string} message */
  const warnOnce = (name, message) => {
    if (warned.has(name)) return;
    warned.add(name);
    console.warn(`[${prefix}] ${name}${message}`);
  };
  /**
   * A member the maker marks deprecated, kept so that an existing setup does not stop at it (a missing member
   * throws a TypeError): it says once, in the console, what does its work here, and `then` runs that, if anything.
   * @param {string} name @param {string} instead @param {() => void} [then]
   */
  const deprecated = (name, instead, then) => () => {
    warnOnce(name, ` is deprecated: ${instead}`);
    then?.();
  };
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
        if (typeof token === "string" && token.trim()) {
          warnOnce("supplier.setupWithToken", ": the supplier token is ignored and should not be in the page (the "
            + "browser acts with the shopper's credential): call supplier.setup(options).");
        }
        session.setup(options);
      },
      load: deprecated(
        "supplier.load",
        "the shopper's credential names the supplier; call supplier.setup(options).",
        () => session.setup(),
      ),
      setOrigin: deprecated("supplier.setOrigin", "the browser sends the page's origin itself; nothing to do."),
    }),
    pos: Object.freeze({
      load: (/** @type {string | number | null} */ storeId) => pos.load(storeId),
      storeId$: pos.storeId$,
    }),
    user: Object.freeze({
      // The page's claims: only the credential of the page decides whom the SDK acts for (session.claim).
      loadWithExternalId: (/** @type {string} */ id, forbidProfiling = false) => load("user", id, forbidProfiling),
      loadWithExtId: (/** @type {string} */ id, forbidProfiling = false) => load("user", id, forbidProfiling),
      loadWithAuthlessId: (/** @type {string} */ id, /** @type {boolean | undefined} */ forbidProfiling) => load("authless", id, forbidProfiling),
      /** Logout: the SDK forgets its credentials, and has no identity until a new credential element arrives. */
      reset: async () => session.reset(),
      setLanguage: (/** @type {string} */ language) => session.setLanguage(language),
      setFavoriteItems,
      /** The shopper's position, for the store pickers (nearest stores first). */
      setLocation: (/** @type {unknown} */ position) => customization.setLocation(position),
      updateForbidProfiling: (/** @type {boolean} */ forbid, /** @type {string} */ userId, isAuthless = false) => {
        try {
          session.updateForbidProfiling(Boolean(forbid), isAuthless ? "authless" : "user", userId);
        } catch (error) {
          // Called from the page's cookie banner: a bad id is reported, never thrown into it.
          console.warn(`[${prefix}] user.updateForbidProfiling:`, error);
        }
      },
      user$: session.identity$,
    }),
    basket: Object.freeze({
      /** Emits `true` once the basket has loaded the first time (at once for a later subscriber). */
      basketIsReady$: basket.ready$,
      initialize: () => basket.initialize(),
      recipeCount: () => basket.recipeCount(),
      /** Empties the basket (every recipe out), then loads it again. */
      reset: () => basket.reset(),
      /** Loads the basket again without changing it. */
      reload: () => basket.reload(),
      openPreview: (/** @type {{ opener?: HTMLElement }} */ options) => openPreview(options),
      basket$: basket.basket$,
      inBasket$: (/** @type {string} */ recipeId) => basket.inBasket$(recipeId),
      mergeAuthless: (/** @type {string} */ authlessId) => basket.mergeAuthless(authlessId),
      /** A publisher's basket to its affiliated retailer: resolves with the link to send the browser to. */
      transfer: (/** @type {string} */ storeId) => basket.transfer(storeId),
      /** Emits `{affiliate, recipeCount, changes, cartFollowed}` when a basket from an affiliated site arrived. */
      transferReceived$: transfers.received$,
    }),
    basketSync: Object.freeze({
      retailerBasketChanged: (/** @type {unknown} */ products) =>
        dropped("basketSync.retailerBasketChanged", (async () => basket.sync.cartChanged(products))()),
      handlePayment: (/** @type {number} */ total, /** @type {string} */ orderId, /** @type {unknown} */ cart) =>
        dropped("basketSync.handlePayment", (async () => basket.confirm(total, orderId, cart))()),
      paymentStarted: (/** @type {number} */ total) => basket.paymentStarted(total),
      definePushProductsToCart: (/** @type {any} */ callback) => basket.sync.definePush(callback),
      defineAddProductsToCart: (/** @type {any} */ callback) => basket.sync.defineAdd(callback),
      defineRemoveProductsFromCart: (/** @type {any} */ callback) => basket.sync.defineRemove(callback),
    }),
    recipes: Object.freeze({
      openDetails,
      closeDetails,
      /**
       * The guest count of a recipe for every control of the page that follows it (a publisher's CTA, by the
       * service's id or the publisher's own). Not 1 to 50: ignored, false.
       */
      setGuests: (/** @type {string | number} */ recipeId, /** @type {unknown} */ count) => guests.set(recipeId, count),
      /** The guest count chosen on the page for a recipe, as a stream. */
      guests$: (/** @type {string | number} */ recipeId) => guests.of(recipeId),
      /** Emits `true` each time the drawer closes. */
      hidden: recipeEvents.hidden,
      /** Emits `{ingredientsAdded, ingredientsTotal}` after "add all" in the drawer. */
      addAllIngredientsCTAWasClicked: recipeEvents.addAllClicked,
      setDefaultRecipePicture: (/** @type {string} */ url) => customization.setDefaultPicture("recipe", url),
      setDefaultIngredientPicture: (/** @type {string} */ url) => customization.setDefaultPicture("ingredient", url),
      setDifficultyLevels: (/** @type {{ value: number, label: string }[]} */ levels) => customization.setDifficultyLevels(levels),
      showConfirmationToaster: () => {
        customization.confirmationToaster$.next(true);
        toaster.prepare();
      },
      shouldDisplayIngredientPicturesOnRecipeCard: (/** @type {boolean} */ should) =>
        customization.ingredientPicturesOnCard$.next(Boolean(should)),
    }),
    features: Object.freeze({
      enableUserPreferences: enable(customization.userPreferences$),
      enableTagsOnRecipes: enable(customization.tagsOnRecipes$),
      enableMealsPlanner: (/** @type {string} */ url) => customization.enableMealsPlanner(url),
      collapseUnavailableProductsByDefault: enable(customization.collapseUnavailable$),
      enableVideoRecipes: enable(customization.videoRecipes$),
      enablePersonalRecipes: deprecated("features.enablePersonalRecipes", "the maker withdrew the feature; nothing to do."),
    }),
    router: Object.freeze({
      setRecipeCatalogUrl: (/** @type {string} */ url) => customization.setRoute("catalog", url),
      setRecipeInfoLink: (/** @type {string} */ url) => customization.setRoute("recipeInfo", url),
      setRetailerCartUrl: (/** @type {string} */ url) => customization.setRoute("cart", url),
      setPromotionsUrl: (/** @type {string} */ url) => customization.setRoute("promotions", url),
    }),
    events: Object.freeze({
      /** Emits `true` when a store picker of ours opens, `false` when it closes (the current state at once). */
      storeLocatorOpened: () => storeLocator$,
    }),
    hook: Object.freeze({
      /**
       * `(isLogged, isPosValid) => boolean`, asked before an action that adds products to the basket: the
       * action goes on only when it returns true (sdk/hooks.js).
       */
      setHookCallback: (/** @type {unknown} */ callback) => hooks.setHookCallback(callback),
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
      init: deprecated("analytics.init", "supplier.setup starts the analytics; nothing to do."),
    }),
    planner: Object.freeze({
      defineLoginRequired: (/** @type {any} */ callback) => planner.defineLoginRequired(callback),
      defineStoreRequired: (/** @type {any} */ callback) => planner.defineStoreRequired(callback),
      loginRequired$: planner.loginRequired$,
      storeRequired$: planner.storeRequired$,
      resumeFinalize: () => planner.resumeFinalize(),
    }),
    /** The maker's top-level setters (docs/sdk.md, "Migrating from the maker's SDK"). */
    paymentStarted: (/** @type {number} */ total) => basket.paymentStarted(total),
    setStickyHeaderHeight: (/** @type {number} */ height) => customization.setStickyHeaderHeight(height),
    setDefaultScrollElementGetter: (/** @type {unknown} */ getter) => customization.setScrollElementGetter(getter),
    ApiError,
  };
  /** @type {SdkInternals} */
  const internals = {
    session, client, notices, analytics, basket, likes, pos, planner, menuRoutes, guests, transfers, track,
    customization, recipeEvents, storeLocator$, topLayer,
  };
  Object.defineProperty(sdk, INTERNAL, { value: Object.freeze(internals) });
  return {
    sdk: Object.freeze(sdk),
    start() {
      // The credential elements already parsed are upgraded now, before any component asks for anything.
      defineShopperElement({ prefix, session });
      // The page's settings follow every fragment, there now or inserted later.
      customization.watch();
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
      // Not in a tab that took the user's credential from the tab where the login happened: that tab resumes it.
      const resumeAtStore = (/** @type {string | null} */ storeId) => {
        if (storeId && planner.cachedFinalize()?.needs === "store") {
          void whenSettled().then(() => planner.resumeFinalize("store", storeId));
        }
      };
      session.identity$.subscribe((identity) => {
        if (identity?.kind === "user" && !session.fromAnotherTab && planner.cachedFinalize()?.needs === "login") {
          void whenSettled().then(() => planner.resumeFinalize("login"));
        }
        // A store given before the page's first credential: what waits for it is read once the supplier is known.
        if (identity) resumeAtStore(pos.current);
      });
      pos.storeId$.subscribe(resumeAtStore);
      // A basket sent by an affiliated publisher: out of the address bar now, redeemed once the page is ready.
      transfers.catchArrival();
      if (transfers.pending()) void whenSettled().then(() => transfers.resume());
      const idle = window.requestIdleCallback ?? ((/** @type {() => void} */ fn) => setTimeout(fn, 2000));
      idle(() => shows.prune());
    },
  };
}

/**
 * Whether `window.<prefix>` is free for the SDK: nothing there (or null), or only what the browser exposes by name from the
 * page's markup (an element with that id, a form or picture with that name, a frame: "named access on the Window
 * object"), which an own property of the window shadows. A value a script of the page set is not taken over.
 * @param {unknown} value
 */
function freeForTheSdk(value) {
  return value === undefined || value === null || value instanceof Element || value instanceof HTMLCollection
    || (typeof value === "object" && /** @type {{ window?: unknown }} */ (value).window === value);
}

/** Whether `window.<prefix>` is an SDK of this package (any build). A frame of another origin, asked for the
 * symbol, would throw: it is no SDK. @param {unknown} value */
function isSdk(value) {
  try {
    return typeof value === "object" && value !== null && INTERNAL in value;
  } catch {
    return false;
  }
}

const installed = sdks[prefix];
if (freeForTheSdk(installed)) {
  const created = createSdk();
  Object.defineProperty(window, prefix, { value: created.sdk, enumerable: true });
  created.start();
} else if (!isSdk(installed)) {
  console.error(`[${prefix}] window.${prefix} is already set by a script of the page: the SDK cannot install itself `
    + "there. Give the modules another prefix (docs/sdk.md, section 1).");
}

/** The SDK of the page (whichever build installed it first). */
export const sdk = /** @type {Sdk} */ (sdks[prefix]);

/** Its services, for the components of this package (those of the build that installed it). */
export const services = /** @type {SdkInternals} */ (/** @type {any} */ (sdk)[INTERNAL]);
