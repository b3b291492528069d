// Calls to prerender's browser routes (docs/browser-api.md) with the session's headers: the shopper's
// credential (`authorization: Bearer`), language, session. A 401 means the credential is missing, expired or
// invalid: the notices tell the user to reload the page or sign in again (sdk/notices.js).
// Failures become ApiError, whose `problem` is the RFC 9457 body the service answered (or one made here
// for network failures), so callers get a rejected promise with the problem, never a raw exception.
import { pageCall } from "./page-calls.js";
import { jsonText } from "./json.js";
import { OriginCheck } from "./origin-check.js";

/**
 * @typedef {object} Problem
 * @property {string} [type]
 * @property {string} title
 * @property {number} status  0 for a network failure
 * @property {string} [detail]
 * @property {object} [errors]
 */

export class ApiError extends Error {
  /** @param {Problem} problem @param {{ retryAfterMs?: number | null }} [options] the answer's Retry-After */
  constructor(problem, { retryAfterMs = null } = {}) {
    super(problem.detail || problem.title);
    this.name = "ApiError";
    /** @type {Problem} */
    this.problem = problem;
    this.status = problem.status;
    /** @type {number | null} when the service asked to be asked again (its `Retry-After`, in ms) */
    this.retryAfterMs = retryAfterMs;
  }
}

/**
 * Whether the service asked for the same write to be sent again later (a 409 with `Retry-After`: the write still in
 * progress, or held up by another change and not applied), rather than answering it.
 * @param {unknown} error
 */
export function asksToRetryLater(error) {
  return error instanceof ApiError && error.status === RETRY_LATER && error.retryAfterMs !== null;
}

/**
 * Whether a write's failure leaves its outcome unknown (a network failure, no answer in time, a 502, 503 or 504:
 * the service may have applied it).
 * @param {unknown} error
 */
export function isOutcomeUnknown(error) {
  if (!(error instanceof ApiError)) return false;
  // The SDK's own problems have status 0 too: only its network failure and its timeout leave an outcome unknown.
  if (error.status === 0) return /#(network|timeout)$/.test(String(error.problem.type ?? ""));
  return OUTCOME_UNKNOWN.has(error.status);
}

// The SDK's own problems that come from the shopper's state, not from the page's code.
const SHOPPERS_STATE = /#not-connected$/;

/**
 * Logs a failure the SDK handled (the shopper told, or the page left as it was). The network's or the service's (no
 * answer, a 5xx, a 429) is a warning: an outage of the service must not fill the retailer's error tracker, which
 * often collects `console.error`. So is the shopper's own state (SHOPPERS_STATE: a heart pressed by a shopper who
 * is not logged in, or no longer, told to sign in). Anything else (a 4xx the page's calls caused, a bug) is an
 * error, to be fixed.
 * @param {string} prefix @param {string} what @param {unknown} error
 */
export function logFailure(prefix, what, error) {
  const transient = isTransient(error);
  const shoppers = error instanceof ApiError && error.status === 0 && SHOPPERS_STATE.test(String(error.problem.type ?? ""));
  (transient || shoppers ? console.warn : console.error)(`[${prefix}] ${what}`, error);
}

/**
 * Whether a failure is the network's or the service's for now (no answer, a `5xx`, a `429`): the same call may
 * succeed later, unlike a `4xx` it caused.
 * @param {unknown} error
 */
export function isTransient(error) {
  return isOutcomeUnknown(error) || (error instanceof ApiError && (error.status >= 500 || error.status === 429));
}

/** A problem made by the SDK itself (no store selected, network down...). */
export function localProblem(/** @type {string} */ type, /** @type {string} */ title, detail = "") {
  return new ApiError({ type: `about:blank#${type}`, title, status: 0, detail });
}

/**
 * @typedef {object} RequestOptions
 * @property {Record<string, string | number | null | undefined>} [query]
 * @property {unknown} [json] body sent as application/json
 * @property {"json" | "text" | "page"} [as] how to read a successful answer (default json; page: HTML with its
 *   response headers, `{body, headers}`)
 * @property {AbortSignal} [signal]
 * @property {boolean} [write] a basket write: it carries an idempotency key, kept across its retries
 * @property {string} [idempotencyKey] the write's key when the caller keeps it beyond this call (a retry after a
 *   reload: the service answers the first attempt's outcome); default: a new one
 * @property {Record<string, string>} [headers] more headers (the merge's `authless-credential`)
 * @property {"v1" | "v2"} [version] the version segment, for routes of one version only (the planner's, v2);
 *   default: the one `supplier.setup` chose
 */

// A write whose outcome is unknown (network failure, 502, 503, 504: the service may have applied it) is sent
// again with the same Idempotency-Key, so the service answers a write it already applied with its first
// outcome instead of applying it twice (docs/browser-api.md).
const OUTCOME_UNKNOWN = new Set([0, 502, 503, 504]);
// A 409 with `Retry-After` is not the write's outcome either: the same write still in progress (an earlier attempt
// the service is finishing), or another change to the same data that held it up (this one was not applied). It is
// sent again, with its key, after the time asked. A 409 without it (a payment short of the total) is final. A read
// that writes (`GET /basket` moving the basket to the page's store, `GET /v2/menu/current` making the menu) gets
// the same 409 behind a held change, and is asked again too.
const RETRY_LATER = 409;
const RETRY_DELAYS_MS = [300, 1200];
/** The longest `Retry-After` waited for within one call. */
const MAX_RETRY_AFTER_MS = 5000;
// An attempt that has no answer in this time (a node that stopped answering, a network that drops packets) is a
// network failure: a read shows its error state and "try again" rather than "loading" for ever; a write is sent
// again with its key, as after any failure whose outcome is unknown. Above prerender's own worst case (7 s: a
// connect, a read and one retry upstream) and its nginx's 10 s for a node.
export const ATTEMPT_TIMEOUT_MS = 12_000;

/**
 * The signal an attempt runs under: the caller's, and the attempt's own timeout.
 * @param {AbortSignal | undefined} signal @param {number} ms
 * @returns {{ combined: AbortSignal, timeout: AbortSignal }}
 */
function attemptSignal(signal, ms) {
  const timeout = typeof AbortSignal.timeout === "function" ? AbortSignal.timeout(ms) : timeoutSignal(ms);
  if (!signal) return { combined: timeout, timeout };
  if (typeof AbortSignal.any === "function") return { combined: AbortSignal.any([signal, timeout]), timeout };
  const controller = new AbortController();  // browsers before AbortSignal.any (Safari 17.3, Firefox 123)
  for (const source of [signal, timeout]) {
    if (source.aborted) controller.abort(source.reason);
    else source.addEventListener("abort", () => controller.abort(source.reason), { once: true });
  }
  return { combined: controller.signal, timeout };
}

/** A key for one write, the same for all its attempts. */
export function newIdempotencyKey() {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();  // secure contexts only
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * Wait, or reject at once when the signal aborts.
 * @param {number} ms
 * @param {AbortSignal | undefined} signal
 * @returns {Promise<void>}
 */
function pause(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });
}

/**
 * AbortSignal.timeout where a browser lacks it (Safari before 16): a signal aborted with a TimeoutError after `ms`.
 * @param {number} ms @returns {AbortSignal}
 */
function timeoutSignal(ms) {
  const controller = new AbortController();
  setTimeout(() => controller.abort(new DOMException("signal timed out", "TimeoutError")), ms);
  return controller.signal;
}

export class ApiClient {
  /**
   * @param {import("./session.js").Session} session
   * @param {{ attemptTimeoutMs?: number, originCheck?: OriginCheck }} [options] attemptTimeoutMs: how long one
   *   attempt may wait for its whole answer; originCheck: what looks into a failure without an answer (a page whose
   *   origin the service does not allow: sdk/origin-check.js)
   */
  constructor(session, { attemptTimeoutMs = ATTEMPT_TIMEOUT_MS, originCheck = new OriginCheck({ prefix: session.prefix }) } = {}) {
    this.session = session;
    this.attemptTimeoutMs = attemptTimeoutMs;
    this.originCheck = originCheck;
  }

  /**
   * @param {string} method
   * @param {string} path route path after the version segment ("/basket")
   * @param {RequestOptions} [options]
   * @returns {Promise<any>}
   */
  async request(method, path, { query, json, as = "json", signal, write = false, headers, version, idempotencyKey } = {}) {
    const key = write ? idempotencyKey ?? newIdempotencyKey() : undefined;
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await this.#send(method, path, { query, json, as, signal, headers, version }, key);
      } catch (error) {
        if (!(error instanceof ApiError) || attempt >= RETRY_DELAYS_MS.length) throw error;
        // A read (a GET) is asked again only when the service asks (`GET /basket` moving the basket to another
        // store behind a change that holds it: nothing was done); a keyed write also when its outcome is unknown;
        // an unkeyed write (likes, events, favorite items) never.
        const later = asksToRetryLater(error) && (write || method === "GET");
        if (!later && !(write && OUTCOME_UNKNOWN.has(error.status))) throw error;
        await pause(Math.max(RETRY_DELAYS_MS[attempt], later ? Math.min(error.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS) : 0), signal);
      }
    }
  }

  /**
   * Waits for the page's `supplier.setup`; a `#not-set-up` problem when it does not come (sdk/page-calls.js).
   * @returns {Promise<void>}
   */
  #configured() {
    const { prefix } = this.session;
    return pageCall(this.session.configured, {
      prefix,
      call: "supplier.setup({ language })",
      consequence: "nothing is sent to prerender until it does (cards, drawer, basket and likes wait for it)",
      failure: () => localProblem("not-set-up", "The page has not set the SDK up",
        `Call ${prefix}.supplier.setup({ language }) once the fragments' scripts have run.`),
    });
  }

  /**
   * One attempt.
   * @param {string} method
   * @param {string} path
   * @param {RequestOptions} options
   * @param {string} [idempotencyKey]
   * @returns {Promise<any>}
   */
  async #send(method, path, { query, json, as = "json", signal, headers: extra, version }, idempotencyKey) {
    await (this.session.isConfigured ? undefined : this.#configured());
    const headers = { ...extra, ...this.session.headers() };
    if (idempotencyKey) headers["idempotency-key"] = idempotencyKey;
    headers.accept = as === "json" ? "application/json" : "text/html";
    const { combined, timeout } = attemptSignal(signal, this.attemptTimeoutMs);
    /** @type {RequestInit} */
    const init = { method, headers, signal: combined, credentials: "omit", mode: "cors" };
    if (json !== undefined) {
      headers["content-type"] = "application/json";
      init.body = jsonText(json);
    }
    /** The caller's abort goes on as it is; this attempt's timeout is a network failure. */
    const aborted = (/** @type {unknown} */ error) => {
      if (timeout.aborted && !signal?.aborted) {
        return localProblem("timeout", "No answer in time", `${method} ${path}: none within ${this.attemptTimeoutMs} ms`);
      }
      return error instanceof DOMException && error.name === "AbortError" ? error : null;
    };
    let response;
    try {
      response = await fetch(this.session.url(path, query, version), init);
    } catch (error) {
      const stopped = aborted(error);
      if (stopped) throw stopped;
      void this.originCheck.afterNetworkFailure(this.session.serviceUrl("/origin-check")); // the browser's refusal?
      throw localProblem("network", "Network error", String(/** @type {{ message?: unknown } | null | undefined} */ (error)?.message ?? error));
    }
    try {
      if (!response.ok) throw new ApiError(await readProblem(response), { retryAfterMs: retryAfterMs(response) });
      if (response.status === 204) return null;
      if (as === "page") return { body: await response.text(), headers: response.headers };
      return as === "json" ? await response.json() : await response.text();
    } catch (error) {
      if (error instanceof ApiError) throw error;
      throw aborted(error) ?? new ApiError({ title: "Malformed answer", status: 502, detail: `${method} ${path}` });
    }
  }
}

/**
 * An answer's `Retry-After` in milliseconds (delay-seconds only: the form prerender sends), or null.
 * @param {Response} response @returns {number | null}
 */
function retryAfterMs(response) {
  const value = response.headers.get("retry-after");
  return value !== null && /^\s*\d+\s*$/.test(value) ? Number(value) * 1000 : null;
}

/**
 * The problem body of an error answer; a problem made from the status when the body is not one.
 * @param {Response} response
 * @returns {Promise<Problem>}
 */
async function readProblem(response) {
  try {
    const body = await response.json();
    if (body && typeof body === "object") {
      return { ...body, title: String(body.title ?? response.statusText), status: Number(body.status ?? response.status) };
    }
  } catch {
    // not JSON
  }
  return { type: "about:blank", title: response.statusText || "HTTP error", status: response.status };
}
