// Demo Market: prerender's browser SDK (window.svc, docs/sdk.md) set up with the language, session and identity
// the shop's server used for the fragments of this page (read from <script type="application/json"
// id="shop-context">), and the shop's own cart kept in step with the recipe basket (basketSync). Page scripts
// import { svc, cart }. Without the SDK (prerender down) the page keeps its cart and header counter.
// The SDK acts for the shopper of the credential prerender put in the page (the hidden <svc-shopper> element
// of the fragments or the bootstrap): the supplier token stays on the shop's server, never in the page.
const element = document.getElementById("shop-context");
export const context = JSON.parse(element?.textContent || "{}");
/** The SDK, or null when prerender did not give the page its module scripts. */
export const svc = window.svc ?? null;

let current = [];

// The header sticks at the top of every page: a control the keyboard reaches scrolls clear of it, the shop's own
// (shop.css reads --dm-header-height) and prerender's (the SDK's setStickyHeaderHeight, docs/sdk.md: the catalog's
// and the planner's sticky parts and focused controls stay below it). Followed as it wraps or the page narrows
// (on a resize of the window where the browser has no ResizeObserver: an exception here would stop the SDK's setup
// below, and leave the recipe cards waiting for it).
const header = document.querySelector(".site-header");
if (header) {
  const followHeader = () => {
    const height = Math.ceil(header.getBoundingClientRect().height);
    document.documentElement.style.setProperty("--dm-header-height", `${height}px`);
    svc?.setStickyHeaderHeight(height);
  };
  followHeader();
  if (typeof ResizeObserver === "function") new ResizeObserver(followHeader).observe(header);
  else window.addEventListener("resize", followHeader);
}

/** Writes the number of items in the header's cart link. */
function showCount(count) {
  for (const link of document.querySelectorAll("[data-cart-link]")) {
    const badge = link.querySelector("[data-cart-count]");
    if (badge) badge.textContent = String(count);
    // The label's plural form by the page's language rules (the server picks it with Babel, examples/shop/texts.py).
    const category = new Intl.PluralRules(document.documentElement.lang || "fr").select(count);
    const label = link.getAttribute(`data-label-${category}`) ?? link.getAttribute("data-label-other");
    if (label) link.setAttribute("aria-label", label.replace("{count}", String(count)));
  }
}

async function call(method, body) {
  const response = await fetch(context.cart.linesUrl, {
    method,
    credentials: "same-origin",
    cache: "no-store",
    headers: body ? { "Content-Type": "application/json", Accept: "application/json" } : { Accept: "application/json" },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!response.ok) throw new Error(`the cart answered ${response.status}`);
  const { lines, count } = await response.json();
  current = lines;
  showCount(count);
  return lines;
}

/** The shop's cart (server-side, per visitor): lines are [{id, quantity}]. */
export const cart = Object.freeze({
  lines: () => current.map((line) => ({ ...line })),
  load: () => call("GET"),
  /** Applies [{id, quantity}] deltas (negative removes); resolves to the new lines. */
  apply: (deltas) => call("POST", deltas),
});

// A store move asked by the SDK and the reload it made, remembered for this tab a minute: after the reload the page
// must be at that store, else (the shop refused it meanwhile) the SDK is told "not now" instead of reloading again.
const FORCED_STORE_KEY = "dm/forced-store";
const FORCED_STORE_MS = 60 * 1000;
const STORE_ID = /^[0-9]{1,12}$/;

/** The store of a recent move and reload, or null. */
function forcedStore() {
  try {
    const { storeId, at } = JSON.parse(sessionStorage.getItem(FORCED_STORE_KEY) || "null") ?? {};
    return typeof storeId === "string" && Date.now() - Number(at) < FORCED_STORE_MS ? storeId : null;
  } catch {
    return null;
  }
}

function rememberForcedStore(storeId) {
  try {
    if (storeId === null) sessionStorage.removeItem(FORCED_STORE_KEY);
    else sessionStorage.setItem(FORCED_STORE_KEY, JSON.stringify({ storeId, at: Date.now() }));
  } catch {
    // no sessionStorage: the move still happens, only its loop guard is lost
  }
}

// The move is done once a page is at that store.
if (forcedStore() === String(context.storeId ?? "")) rememberForcedStore(null);

/**
 * The SDK's force-pos callback (docs/sdk.md, svc.hook.setForcePosCallback): a basket transferred from a recipe
 * site arrives for the store the reader chose there. True when the page is already at that store (the SDK goes
 * on); otherwise the visitor's store is changed the way the store picker does (POST /preferences) and the page
 * reloads at the new store, and the answer is false (the SDK resumes the transfer after the reload). An unknown or
 * refused store is false, logged, and the page stays.
 */
export async function forcePos(storeId) {
  const wanted = String(storeId ?? "");
  if (wanted && wanted === String(context.storeId ?? "")) {
    rememberForcedStore(null);
    return true;
  }
  if (!STORE_ID.test(wanted)) {
    console.warn(`the SDK asked for a store the shop cannot have: ${JSON.stringify(storeId)}`);
    return false;
  }
  if (forcedStore() === wanted) {
    // Already moved there and reloaded, yet the page is elsewhere: the shop did not keep the store.
    rememberForcedStore(null);
    console.warn(`the shop did not stay at store ${wanted}; the transferred basket waits`);
    return false;
  }
  try {
    const response = await fetch(context.preferencesUrl, {
      method: "POST",
      credentials: "same-origin",
      cache: "no-store",
      headers: { Accept: "application/json" },
      body: new URLSearchParams({ store_id: wanted }),
    });
    if (!response.ok) {
      console.warn(`the shop refused store ${wanted} (${response.status}); the transferred basket waits`);
      return false;
    }
  } catch (error) {
    console.warn(`the shop could not move to store ${wanted}`, error);
    return false;
  }
  rememberForcedStore(wanted);
  location.reload();
  return false;
}

/** Tells the basket what the cart holds now (docs/sdk.md, retailerBasketChanged). Never rejects. */
export function reportCart(lines) {
  if (!svc) return Promise.resolve(null);
  return svc.basketSync.retailerBasketChanged(lines.map(({ id, quantity }) => ({ id, quantity })))
    .catch((problem) => {
      console.warn("basket reconcile failed", problem);
      return null;
    });
}

if (svc) {
  // A setup failure must not take the page down: without the SDK the shop still shows its cart.
  try {
    // The session of the shop's fragments (cookie dm_session) is the SDK's session too.
    const options = { language: context.language, sessionId: context.sessionId };
    if (typeof svc.supplier.setup === "function") svc.supplier.setup(options);
    else svc.supplier.setupWithToken("", options); // an SDK without setup(): its setupWithToken ignores the token
    // The identity the page was made for: the SDK checks it against its credential's.
    const identity = context.user?.kind === "user"
      ? svc.user.loadWithExternalId(context.user.id)
      : svc.user.loadWithAuthlessId(context.user.id);
    Promise.resolve(identity).catch((error) => console.warn("the SDK could not load the visitor", error));
    // A basket transferred from a recipe site may be for another store: the SDK asks the page to move there.
    if (typeof svc.hook?.setForcePosCallback === "function") svc.hook.setForcePosCallback(forcePos);
    // "n produits ajoutés à votre panier" after each addition, in the drawer or a toaster (role="status"): a shopper
    // who cannot see the cart count change hears it.
    if (typeof svc.recipes?.showConfirmationToaster === "function") svc.recipes.showConfirmationToaster();
    Promise.resolve(svc.pos.load(context.storeId ?? null))
      .catch((error) => console.warn("the SDK could not load the store", error));

    // A logout: the SDK forgets the shopper and what it kept for them in this browser (their preferences, a
    // payment on its way...: docs/sdk.md, section 7) before the form leaves the page.
    document.querySelector("[data-account=logout]")?.closest("form")?.addEventListener("submit", () => {
      Promise.resolve(svc.user.reset()).catch((error) => console.warn("the SDK could not forget the shopper", error));
    });
    // Our basket drives the cart: apply the changes, then report the new cart (which confirms them).
    svc.basketSync.definePushProductsToCart(async (changes) => {
      const lines = await cart.apply(changes);
      if (context.cart.reportsPushes) reportCart(lines);
    });
  } catch (error) {
    console.warn("the SDK setup failed; the shop goes on without recipes in its cart", error);
  }
}

/** The cart at page start, reported once to the basket. */
export const ready = cart.load().then((lines) => {
  reportCart(lines);
  return lines;
}).catch((error) => {
  console.warn("the cart could not be loaded", error);
  return [];
});
