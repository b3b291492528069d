// The names of what the SDK and its components keep in the browser's storage, by whom it is kept for
// (docs/sdk.md, "What the SDK keeps in the browser"): sdk/session.js keys them and removes a shopper's at a
// logout; tests/js/session.test.mjs checks that every entry written is of one kind.

/**
 * What the SDK and its components keep in localStorage, in two kinds (docs/sdk.md, "What the SDK keeps in the
 * browser"). A shopper's: what they chose, saved or paid, which a logout (`user.reset()`) removes, since the next
 * person at the device is someone else (a diet preference can tell of a health condition). Several suppliers'
 * pages may share a site: a shopper's entry is the page's supplier's (`supplierKey`: `_<prefix>/supplier-<id>/<name>`),
 * but for the two the specification names (`_<prefix>/cachedFinalizeMenuUrl`, `_<prefix>/planner/guests`) and the
 * menu change, which names its supplier in its value; a logout removes its supplier's entries and those three.
 */
export const SHOPPER_ENTRIES = Object.freeze([
  "authless-credential", // the logged-out visitor's credential (sdk/session.js)
  "authless-id", // an older SDK's (removed at start too)
  "preferences", // the diets and equipment saved (components/catalog/preferences.js)
  "preferences-asked", // when the preferences were last asked for
  "payment-started", // a paid cart and its shopper, for a day (sdk/basket-payment.js)
  "cachedFinalizeMenuUrl", // the menu page to come back to (sdk/planner.js), the specification's key
  "planner/finalizeNeeds", // what that resume waits for
  "planner/menuChanged", // the shopper's last menu change, for pages in the back/forward cache (sdk/planner.js)
  "planner/guests", // the planner's guests (components/planner-entry.js), the specification's key
  "planner/guests-preferred",
  "publisher-store", // the store picked in a publisher's drawer (components/no-supplier-cta.js)
]);
/** The shopper's entries kept under the site's key whatever the supplier: the specification's two, and the menu
 * change, whose value names its supplier. */
export const SITE_WIDE_ENTRIES = new Set(["cachedFinalizeMenuUrl", "planner/guests", "planner/menuChanged"]);
/**
 * The browser's: kept at a logout. `browser-id` names the browser to the reconcile route, `shown/<recipe>` when
 * a card was last reported shown (five minutes apart at most), `planner/onboarded` whether the planner's
 * onboarding was seen, `planner/probe` a write probe removed at once.
 */
export const BROWSER_ENTRIES = Object.freeze(["browser-id", "shown/", "planner/onboarded", "planner/probe"]);
/**
 * In sessionStorage, gone with the tab: `session-id` (the tab's session), `preferences-saved` (the message of a
 * save, said by the reloaded page), `transferredBasket` (a basket transfer on its way, sdk/transfer.js),
 * `planner/finalized` (when the tab's menu went to the cart, said by the planner's next page:
 * components/planner/finalize.js).
 */
export const TAB_ENTRIES = Object.freeze(["session-id", "preferences-saved", "transferredBasket", "planner/finalized"]);
