// The planner page's "finalize" (components/planner.js; bundled into it in the release tree). Without a store or a
// logged-in user, the host is asked (svc.planner, sdk/planner.js) and the page's URL cached to resume; otherwise
// the menu goes to the basket (svc.basket, sdk/basket.js), the retailer cart receives its products through the
// basket sync callbacks, and the browser goes to the retailer cart (the element's `cart-url`).
import { services, isStoppedByHook } from "../ui.js";

/** How long after a finalize a planner page opened again in the tab says where that menu went. */
const FINALIZED_NOTICE_MS = 30 * 60_000;
const finalizedKey = () => services.session.key("planner/finalized");

/**
 * What finalizing asks of its page.
 * @typedef {object} FinalizeHost
 * @property {string | null} storeId the menu's store, if any
 * @property {string | null} cartUrl where the browser goes once the retailer cart has the products
 * @property {number} recipeCount the menu's recipes as drawn (for the tracked event)
 * @property {import("./messages.js").PlannerMessages} messages
 * @property {() => Promise<void>} refresh the menu's parts drawn again
 */

/**
 * An error's HTTP status and problem document (sdk/http.js), when it has them.
 * @param {unknown} error
 */
export function problemOf(error) {
  return /** @type {{ status?: number, problem?: { reason?: string, detail?: string, type?: string } }} */ (error ?? {});
}

/**
 * Sends the menu to the basket and the browser to the retailer cart, or asks the host for what is missing. A
 * failure it does not handle is thrown (the page's queue shows it).
 * @param {HTMLButtonElement} button @param {FinalizeHost} host
 */
export async function finalizeMenu(button, host) {
  const { messages } = host;
  const planner = services.planner;
  const resumeUrl = window.location.href;
  const posStore = services.pos.current;
  if (!host.storeId) {
    askHost(messages, planner.require("store", resumeUrl, posStore), "STORE_REQUIRED");
    return;
  }
  if (services.session.identity$.value?.kind !== "user") {
    askHost(messages, planner.require("login", resumeUrl), "LOGIN_REQUIRED");
    return;
  }
  // Past the checks: whatever happens now, the page need not be resumed later.
  planner.clearFinalizeUrl();
  button.setAttribute("aria-busy", "true");
  button.disabled = true;
  messages.say("FINALIZING");
  let leaving = false;
  try {
    let result;
    try {
      result = await services.basket.finalizeMenu();
    } catch (error) {
      const { status, problem } = problemOf(error);
      if (status === 403) return askHost(messages, planner.require("login", resumeUrl), "LOGIN_REQUIRED");
      if (status === 409 && problem?.reason === "no-store") {
        return askHost(messages, planner.require("store", resumeUrl, posStore), "STORE_REQUIRED");
      }
      // The page's hook callback said no (svc.hook.setHookCallback): it shows its own way on.
      if (isStoppedByHook(error)) {
        messages.status("");
        return undefined;
      }
      throw error;
    }
    services.track("planner.finalize", { recipe_count: host.recipeCount, product_count: result.changes?.length ?? 0 });
    await services.analytics.flush();
    if (!result.cartFollowed) {
      // The menu is in the basket and gone from the planner: show that, and keep the message up.
      await host.refresh();
      messages.show("CART_FAILED", { persistent: true });
      return;
    }
    const destination = host.cartUrl;
    if (destination && /^https?:/.test(new URL(destination, window.location.href).protocol)) {
      // The menu is the basket's now, and the planner's next page is a new menu: Back from the cart must not find
      // a page that looks like the one just sent, with its button to send it again. The cart takes this page's
      // place in the history, and a planner page opened in this tab soon after says where the menu went.
      rememberFinalized();
      leaving = true; // the button stays off until the cart's page replaces this one: its menu was sent
      window.location.replace(new URL(destination, window.location.href).href);
    } else {
      // No retailer cart nor catalog home for this environment: the page says where the menu went.
      await host.refresh();
      messages.say("FINALIZED");
      messages.show("FINALIZED", { alert: false, persistent: true });
    }
  } finally {
    if (!leaving) {
      button.removeAttribute("aria-busy");
      if (button.isConnected) button.disabled = false;
    }
  }
}

/**
 * The page's message `key`, said by the alert region unless the host listens (`handled`).
 * @param {import("./messages.js").PlannerMessages} messages @param {boolean} handled @param {string} key
 */
function askHost(messages, handled, key) {
  // The host may navigate to its login page; the message stays for a host that does nothing visible. A host that
  // handled it (its login button focused, say) moved the focus without a word: the page's status says why.
  messages.show(key, { alert: !handled });
  if (handled) messages.say(key);
}

/**
 * Whether this tab sent a menu to the cart a short while ago and no planner page has said so since: a page of the
 * planner then says it once (its new menu is not the one sent). A blocked storage: no notice.
 */
export function takeFinalizedNotice() {
  try {
    const at = window.sessionStorage.getItem(finalizedKey());
    if (at === null) return false;
    window.sessionStorage.removeItem(finalizedKey());
    const age = Date.now() - Number(at);
    return age >= 0 && age < FINALIZED_NOTICE_MS;
  } catch {
    return false;
  }
}

/** Notes in the tab that its menu went to the cart now (a full or blocked storage: not noted). */
function rememberFinalized() {
  try {
    window.sessionStorage.setItem(finalizedKey(), String(Date.now()));
  } catch {
    // the notice is not given
  }
}
