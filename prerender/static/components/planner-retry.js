// The planner page's try-again state (templates/planner/current_menu.html with `retry`: the upstream failed
// while the server rendered the page; the page is components/planner.js). `retry="fetch"` asks the page again
// from its route (`data-retry-query`, with the shopper's credential) after 2, 4, 8 and 16 s, then stops on the
// message; the retry button asks at once. The first real page replaces the element (its own hydration then
// runs). `retry="reload"` (no credential could be issued): the button reloads the host page, nothing retries
// by itself.
import { sdk, inertFragment } from "./ui.js";

// The automatic tries: the wait before each (bounded: then only the button asks again).
const RETRY_DELAYS_MS = [2000, 4000, 8000, 16000];

/**
 * What the try-again state asks of its page.
 * @typedef {object} RetryHost
 * @property {(path: string, query: Record<string, string>) => Promise<{ html: string }>} fetchHtml
 * @property {() => void} failed the button's own try failed: say so
 */

export class PlannerRetry {
  #root;
  #host;
  /** @type {number | undefined} */
  #timer;
  #tries = 0;
  #asking = false;

  /** @param {HTMLElement} root the `<svc-planner>` element in its try-again state @param {RetryHost} host */
  constructor(root, host) {
    this.#root = root;
    this.#host = host;
  }

  /** The next automatic try, while some are left (only where the page can be asked again). */
  schedule() {
    clearTimeout(this.#timer);
    if (this.#root.getAttribute("retry") !== "fetch" || this.#tries >= RETRY_DELAYS_MS.length) return;
    const delay = RETRY_DELAYS_MS[this.#tries];
    this.#tries += 1;
    this.#timer = window.setTimeout(() => void this.now({ manual: false }), delay);
  }

  /** No more automatic tries (the element left the page). */
  stop() {
    clearTimeout(this.#timer);
  }

  /**
   * Asks the page again; its real state replaces the element. A try that fails (an error, or the try-again
   * state again) leaves the message up and waits for the next try; the button's own try says it failed.
   * @param {{ manual: boolean }} options
   */
  async now({ manual }) {
    const root = this.#root;
    if (root.getAttribute("retry") === "reload") {
      window.location.reload();
      return;
    }
    if (this.#asking || !root.isConnected) return;
    this.#asking = true;
    clearTimeout(this.#timer);
    root.setAttribute("busy", "");
    /** @type {Element | null} */
    let fresh = null;
    try {
      /** @type {Record<string, string>} */
      let query = {};
      try {
        query = JSON.parse(root.dataset.retryQuery ?? "{}");
      } catch {
        query = {};
      }
      const page = inertFragment((await this.#host.fetchHtml("/planner/current-menu", query)).html);
      fresh = page.querySelector(root.localName);
    } catch (error) {
      console.warn(`[${sdk.prefix}] planner: still unavailable`, error);
    } finally {
      this.#asking = false;
      root.removeAttribute("busy");
    }
    if (!root.isConnected) return;
    if (fresh && !fresh.hasAttribute("retry")) {
      this.#replaceWith(fresh);
      return;
    }
    if (manual) this.#host.failed();
    this.schedule();
  }

  /** The try-again state gives way to the real page; the focus, when it was here, goes to its title. @param {Element} fresh */
  #replaceWith(fresh) {
    const root = this.#root;
    const hadFocus = root.contains(document.activeElement);
    root.replaceWith(fresh);
    if (!hadFocus) return;
    const title = /** @type {HTMLElement | null} */ (fresh.querySelector(".svc-planner__title"));
    if (title) {
      title.setAttribute("tabindex", "-1");
      title.focus();
    }
  }
}
