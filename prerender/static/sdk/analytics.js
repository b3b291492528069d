// Analytics events `{id, name, path, props}`: emitted on `eventSent$` when queued, sent in batches to
// POST {api}/v1/events (every 2 s, or at 20 events; after failed sends, later each time), and with
// navigator.sendBeacon when the page is hidden or left (body with a `headers` object, text/plain:
// docs/browser-api.md). Each event has its own id, made
// once and sent with it on every attempt: the service stores an id once, so a batch retried after an
// answer that was lost (a 504 whose request went through) is not counted twice. Events are the shopper's of the
// session's credential: while the SDK has none they wait in the queue (sent once one arrives), and the
// events queued for a shopper are handed to a beacon before the SDK switches to another (or logs out).
import { Stream } from "./observable.js";
import { ApiError } from "./http.js";
import { jsonText } from "./json.js";

/**
 * @typedef {object} AnalyticsEvent
 * @property {string} [id] a random UUID (absent only where the browser has no `crypto`)
 * @property {string} name `[a-z.-]`, e.g. `recipe.show`
 * @property {string} path the page's analytics path
 * @property {Record<string, string | number | boolean>} props
 */

const FLUSH_DELAY_MS = 2000;
// After failed sends (a service down, or its endpoint blocked by the browser's tracker blocker): the next is
// FLUSH_DELAY_MS doubled at each failure, at most this long; a send that goes through brings back the 2 s.
const MAX_RETRY_DELAY_MS = 5 * 60_000;
const FLUSH_SIZE = 20;
const MAX_BATCH = 50; // the route takes 1 to 50 events
const MAX_QUEUE = 500; // events kept while the service is unreachable; older ones are dropped
const NAME = /^[a-z.-]{1,64}$/;

/** The event's JSON, `{"name","path","props"}`: what `String(event)` and `JSON.parse(event)` read. @this {AnalyticsEvent} */
function eventJson() {
  return jsonText({ name: this.name, path: this.path, props: this.props });
}

export class Analytics {
  /** @type {Stream<AnalyticsEvent>} every event, as it is queued for sending */
  eventSent$ = new Stream();
  /** @type {AnalyticsEvent[]} */
  #queue = [];
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  #timer;
  #sending = false;
  /** Failed sends since the last one that went through: they space out the next attempts. */
  #failures = 0;
  /** @type {string | null} set by pageview(path) */
  #path = null;
  #client;
  #session;

  /**
   * @param {object} deps
   * @param {import("./http.js").ApiClient} deps.client
   * @param {import("./session.js").Session} deps.session
   */
  constructor({ client, session }) {
    this.#client = client;
    this.#session = session;
    const onHidden = () => {
      if (document.visibilityState === "hidden") this.beacon();
    };
    document.addEventListener("visibilitychange", onHidden);
    window.addEventListener("pagehide", () => this.beacon());
    session.leaving$.subscribe(() => this.beacon());
    session.identity$.subscribe((identity) => {
      if (identity && this.#queue.length > 0) this.#schedule();
    });
  }

  /** The page's analytics path: the last `pageview(path)`, else `<meta name="<prefix>-analytics-path">`,
   * else `location.pathname`. */
  get path() {
    if (this.#path) return this.#path;
    const meta = document.querySelector(`meta[name="${this.#session.prefix}-analytics-path"]`);
    return meta?.getAttribute("content")?.trim() || location.pathname;
  }

  /**
   * Sends a `pageview`; with a path, that path becomes the page's analytics path (single-page apps).
   * @param {string} [path]
   */
  pageview(path) {
    if (path !== undefined && path !== null && String(path).trim()) this.#path = String(path).trim().slice(0, 512);
    return this.track("pageview", {});
  }

  /**
   * Queues an event and emits it on eventSent$.
   * @param {string} name
   * @param {Record<string, unknown>} [props]
   * @returns {AnalyticsEvent}
   */
  track(name, props = {}) {
    if (!NAME.test(name)) throw new TypeError(`bad event name ${name}`);
    /** @type {AnalyticsEvent} */
    const event = Object.freeze(Object.defineProperty(
      { ...eventId(), name, path: this.path.slice(0, 512), props: Object.freeze(cleanProps(props)) },
      // The maker's SDK emits each event as its JSON text: `JSON.parse(event)` and `String(event)` give it.
      "toString", { value: eventJson },
    ));
    this.#queue.push(event);
    if (this.#queue.length > MAX_QUEUE) this.#queue.splice(0, this.#queue.length - MAX_QUEUE);
    this.eventSent$.next(event);
    if (this.#queue.length >= FLUSH_SIZE && this.#failures === 0) void this.flush();
    else this.#schedule();
    return event;
  }

  /** Sends the queued events now, in batches of up to 50; without a credential they stay queued. */
  async flush() {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#sending || this.#queue.length === 0 || !this.#session.credential) return;
    this.#sending = true;
    try {
      while (this.#queue.length > 0 && this.#session.credential) {
        const batch = this.#queue.splice(0, MAX_BATCH);
        try {
          await this.#client.request("POST", "/events", { json: { events: batch } });
          this.#failures = 0;
        } catch (error) {
          // Unreachable or failing service: keep the events for the next attempt, later each time. A 4xx would
          // fail again.
          const retry = !(error instanceof ApiError) || error.status === 0 || error.status >= 500 || error.status === 429;
          if (retry) {
            this.#queue.unshift(...batch);
            this.#failures += 1;
          } else {
            this.#failures = 0; // the service answered: the next events go at the usual pace
            console.error(`[${this.#session.prefix}] events refused`, error);
          }
          break;
        }
      }
    } finally {
      this.#sending = false;
      if (this.#queue.length > 0) this.#schedule();
    }
  }

  /** The page is hidden or left: hand the queue to the browser, which sends it even after unload (a beacon; a
   * `keepalive` fetch in a browser without sendBeacon). */
  beacon() {
    if (this.#queue.length === 0 || !this.#session.isConfigured || !this.#session.credential) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const url = this.#session.url("/events");
    while (this.#queue.length > 0) {
      const batch = this.#queue.slice(0, MAX_BATCH);
      // `headers`: authorization (Bearer), language-id, session-id, profiling, as a fetch would send them.
      const body = jsonText({ headers: this.#session.headers(), events: batch });
      // A string body is sent as text/plain;charset=UTF-8: no CORS preflight, which a beacon cannot do.
      if (typeof navigator.sendBeacon === "function") {
        if (!navigator.sendBeacon(url, body)) break; // over the browser's quota: kept for later
      } else {
        // Refused or failed (the page stays, hidden): back in the queue; the service stores an event id once.
        sendKeptAlive(url, body).catch(() => {
          this.#queue.unshift(...batch);
          this.#schedule();
        });
      }
      this.#queue.splice(0, batch.length);
    }
  }

  #schedule() {
    if (this.#timer === undefined && !this.#sending && this.#session.credential) {
      const delay = Math.min(FLUSH_DELAY_MS * 2 ** this.#failures, MAX_RETRY_DELAY_MS);
      this.#timer = setTimeout(() => void this.flush(), delay);
    }
  }
}

/**
 * A beacon's request as a `keepalive` fetch, which the browser also finishes after the page is gone (the same body:
 * text/plain, no preflight; no cookies). Rejected when it was refused or failed.
 * @param {string} url @param {string} body @returns {Promise<unknown>}
 */
async function sendKeptAlive(url, body) {
  const answer = await fetch(url, { method: "POST", body, keepalive: true, credentials: "omit" });
  if (!answer.ok) throw new Error(`events not stored: ${answer.status}`);
  return answer;
}

/**
 * A new event's id: `crypto.randomUUID()` (secure contexts), else a version 4 UUID from
 * `crypto.getRandomValues` (any page), else none (the service then stores each copy it receives).
 * @returns {{id?: string}}
 */
function eventId() {
  const cryptography = globalThis.crypto;
  if (typeof cryptography?.randomUUID === "function") return { id: cryptography.randomUUID() };
  if (typeof cryptography?.getRandomValues !== "function") return {};
  const bytes = cryptography.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40; // version 4
  bytes[8] = (bytes[8] & 0x3f) | 0x80; // RFC 9562 variant
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
  return { id: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}` };
}

/**
 * Props as the service stores them: at most 20 string / number / boolean values.
 * @param {Record<string, unknown>} props
 * @returns {Record<string, string | number | boolean>}
 */
function cleanProps(props) {
  /** @type {Record<string, string | number | boolean>} */
  const clean = {};
  for (const [key, value] of Object.entries(props ?? {}).slice(0, 20)) {
    if (typeof value === "string" || typeof value === "boolean" || (typeof value === "number" && Number.isFinite(value))) {
      clean[key] = value;
    } else if (value !== null && value !== undefined) {
      clean[key] = String(value);
    }
  }
  return clean;
}
