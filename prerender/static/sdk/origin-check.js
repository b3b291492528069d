// Why the service's answers fail on this page, when the browser hides it: a page whose origin the service does not
// allow (PRERENDER_CORS_ALLOWED_ORIGINS) gets answers it may not read, and its calls fail as a network's would (the
// cards read, every drawer says the recipe could not be loaded). The browser says why only in its own console,
// which the page's scripts and error trackers do not see. So after such a failure, while the browser is online, the
// SDK asks the service's `GET /origin-check` (open to every origin, a simple GET: no preflight), which answers
// whether this page's origin is allowed. Not allowed: said once, as an error naming the setting. Allowed, or no
// readable answer (the network, the service or its front down: a front's own error pages carry no CORS headers):
// nothing is said, the failure stays the network's warning.

/** How long after a check another may run (a flaky network fails often). */
export const CHECK_EVERY_MS = 60_000;

/**
 * @typedef {object} OriginCheckOptions
 * @property {string} prefix the SDK's name in the console
 * @property {typeof fetch} [fetcher] default: the page's fetch
 * @property {() => number} [now] default: Date.now
 * @property {() => boolean} [online] default: navigator.onLine (true where unknown)
 */

export class OriginCheck {
  #prefix;
  #fetch;
  #now;
  #online;
  #lastAt = Number.NEGATIVE_INFINITY;
  #said = false;
  /** The last check (a caller within the minute gets it). @type {Promise<void>} */
  #last = Promise.resolve();

  /** @param {OriginCheckOptions} options */
  constructor({
    prefix,
    fetcher = (input, init) => globalThis.fetch(input, init),
    now = () => Date.now(),
    online = () => globalThis.navigator?.onLine !== false,
  }) {
    this.#prefix = prefix;
    this.#fetch = fetcher;
    this.#now = now;
    this.#online = online;
  }

  /**
   * A call failed without an answer: ask `checkUrl` (the service's `/origin-check`) whether this page's origin is
   * allowed, at most once a minute, never twice at once, never after it was said. Resolves once done (never rejects).
   * @param {string} checkUrl
   * @returns {Promise<void>}
   */
  afterNetworkFailure(checkUrl) {
    if (this.#said || !this.#online() || this.#now() - this.#lastAt < CHECK_EVERY_MS) return this.#last;
    this.#lastAt = this.#now();
    this.#last = this.#check(checkUrl).catch(() => {});
    return this.#last;
  }

  /** @param {string} checkUrl */
  async #check(checkUrl) {
    const response = await this.#fetch(checkUrl, { mode: "cors", credentials: "omit", cache: "no-store" });
    if (!response.ok) return;
    const answer = await response.json();
    if (!answer || answer.allowed !== false || typeof answer.origin !== "string") return;
    this.#said = true;
    console.error(`[${this.#prefix}] prerender (${new URL(checkUrl).origin}) does not let this page read its answers: `
      + `its origin, ${answer.origin}, is not among the service's PRERENDER_CORS_ALLOWED_ORIGINS. Cards show, but `
      + "the drawer, the basket and the likes cannot work here.");
  }
}
