// Why the service's answers fail on this page, when the browser hides it: a page whose origin the service does not
// allow (PRERENDER_CORS_ALLOWED_ORIGINS) gets answers it may not read, and its calls fail as a network's would (the
// cards read, every drawer says the recipe could not be loaded). The browser says why only in its own console,
// which the page's scripts and error trackers do not see. So after such a failure, while the browser is online, the
// same address is asked twice with nothing of ours (a simple GET, no preflight): once without reading the answer
// (`no-cors`: it arrives if the service is there) and once to read it (`cors`: refused if the origin is not
// allowed). The service there and its answer unreadable: the page's origin is the cause, said once as an error.

/** How long after a check another may run (a flaky network fails often; its checks find the service away). */
export const CHECK_EVERY_MS = 60_000;

/**
 * @typedef {object} OriginCheckOptions
 * @property {string} prefix the SDK's name in the console
 * @property {typeof fetch} [fetcher] default: the page's fetch
 * @property {() => number} [now] default: Date.now
 * @property {() => boolean} [online] default: navigator.onLine (true where unknown)
 * @property {() => string} [pageOrigin] default: the page's origin
 */

export class OriginCheck {
  #prefix;
  #fetch;
  #now;
  #online;
  #pageOrigin;
  #lastAt = Number.NEGATIVE_INFINITY;
  #said = false;
  /** @type {Promise<void> | null} */
  #running = null;

  /** @param {OriginCheckOptions} options */
  constructor({
    prefix,
    fetcher = (input, init) => globalThis.fetch(input, init),
    now = () => Date.now(),
    online = () => globalThis.navigator?.onLine !== false,
    pageOrigin = () => globalThis.location?.origin ?? "",
  }) {
    this.#prefix = prefix;
    this.#fetch = fetcher;
    this.#now = now;
    this.#online = online;
    this.#pageOrigin = pageOrigin;
  }

  /**
   * A call to `url` failed without an answer: look into it (at most once a minute, never twice at once, never
   * after it was said). Resolves once done (never rejects).
   * @param {string} url
   * @returns {Promise<void>}
   */
  afterNetworkFailure(url) {
    if (this.#said || this.#running || !this.#online() || this.#now() - this.#lastAt < CHECK_EVERY_MS) {
      return this.#running ?? Promise.resolve();
    }
    this.#lastAt = this.#now();
    this.#running = this.#check(url).finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  /** @param {string} url */
  async #check(url) {
    const asked = (/** @type {RequestMode} */ mode) => this.#fetch(url, { mode, credentials: "omit", cache: "no-store" })
      .then(() => true, () => false);
    if (!(await asked("no-cors"))) return; // nothing answers there: a network's failure, or the service down
    if (await asked("cors")) return; // readable: the failure was another (a connection cut, a restart)
    this.#said = true;
    const service = new URL(url).origin;
    console.error(`[${this.#prefix}] prerender (${service}) answers, but this page may not read its answers: its `
      + `origin, ${this.#pageOrigin()}, is not among the service's PRERENDER_CORS_ALLOWED_ORIGINS (or an extension `
      + "of the browser blocks the calls). Cards show, but the drawer, the basket and the likes cannot work here.");
  }
}
