// Who the SDK acts for and where: the shopper's credential (from the `<prefix>-shopper` element a private
// fragment or the bootstrap carries, sdk/shopper.js), language, API base, session id. Everything an API call
// needs to build the headers of the browser routes (docs/browser-api.md): `authorization: Bearer
// <credential>`, `language-id`, `session-id`, `profiling`. The browser never holds the supplier token and
// never claims an identity: the identity is the one the page's server vouched for (docs/security.md).
import { State, Stream } from "./observable.js";
import { safeStorage, randomId } from "./storage.js";
import { checkId, isId, readCredential } from "./credential.js";
import { SHOPPER_ENTRIES, SITE_WIDE_ENTRIES } from "./storage-entries.js";
import { jsonText } from "./json.js";

/** @typedef {import("./credential.js").Identity} Identity @typedef {import("./credential.js").Credential} Credential */

/**
 * @typedef {object} SetupOptions
 * @property {string} [language] `language-id`: `fr`, `en` or `<lang>-<retailer>`
 * @property {string} [apiUrl] base URL of the prerender service (default: where the modules come from)
 * @property {"v1" | "v2"} [apiVersion] version segment of the browser routes (default v1)
 * @property {string} [sessionId] the session id the customer's server used for the fragments (default: one per tab)
 */

const LANGUAGE = /^[a-z]{2}(?:-[a-z0-9_]{1,32})?$/;
/** A browser id the reconcile route takes (an identifier: prerender/schemas/fields.py, ID_PATTERN). */
const BROWSER_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;
// How long a page's naming of a shopper (`claim`) lets an element of that shopper refused as stale be taken, before
// or after it: a single-page app's login fetches its fragments and names its user within seconds.
const CLAIM_WINDOW_MS = 60_000;
// When this page started (the device's clock, ms), told with the credentials it gives the other tabs.
const PAGE_STARTED = typeof performance === "object" ? performance.timeOrigin : Date.now();
// A remembered credential whose expires-at is this far behind the device's clock has surely expired, however far
// ahead the clock runs (an AM/PM slip is 12 hours): the merge does not send it (`authlessCredentialOf`).
const LONG_EXPIRED_MS = 3 * 24 * 3_600_000;

/** The page's language when it is one the service speaks, else French. */
function pageLanguage() {
  const lang = (document.documentElement.lang || "").slice(0, 2).toLowerCase();
  return lang === "en" ? "en" : "fr";
}

export class Session {
  /** @type {State<Identity | null>} the shopper of the credential; null without one */
  identity$ = new State(/** @type {Identity | null} */ (null));
  /** @type {Stream<Identity>} the identity about to be left (another credential, or `user.reset()`) */
  leaving$ = new Stream();
  /** @type {Promise<void>} resolves once `supplier.setup` (or `setupWithToken`) has been called: API calls wait for it. */
  configured;
  #resolveConfigured = () => {};
  #isConfigured = false;
  /** @type {Credential | null} */
  #credential = null;
  /** @type {Set<string>} credentials given up by `user.reset()`: an element still carrying one is ignored */
  #forgotten = new Set();
  /** @type {Set<string>} this page's credentials another shopper's replaced (a login or a logout in this page or
   * in another tab) since the last `reset`: their elements, connected again, no longer count */
  #superseded = new Set();
  /** @type {{ credential: Credential, at: number } | null} the last element refused as forgotten or superseded,
   * and when: taken when the page claims its shopper within CLAIM_WINDOW_MS (`claim`) */
  #refused = null;
  /** @type {{ shopper: string, at: number } | null} the shopper the page last claimed (`kind:id`) and when, until
   * `reset`, a credential of another shopper, or the one element of that shopper refused as stale it lets in
   * within CLAIM_WINDOW_MS (a login again within the ten minutes in which the service gives a shopper the same
   * credential; a visitor's id kept across a logout, which the page names) */
  #claimed = null;
  /** @type {string} the credential the last switch to another shopper replaced (a login's: the visitor's) */
  #replaced = "";
  /** @type {Set<string>} refused stale credentials already said in the console */
  #toldRefused = new Set();
  /** @type {Set<string>} other suppliers whose elements were refused, said in the console */
  #toldOtherSuppliers = new Set();
  /** Whether the credential came from another tab (`#credentialElsewhere`), not from this page's elements. */
  #adopted = false;
  /** The `expires-at` of the credential a logout forgot: another tab's older one is not taken after it. */
  #forgottenUntil = 0;
  /** When (the device's clock, ms) the last logout forgot a credential: a page started since that gives it again
   * was given it by the retailer's server after the logout (a login again within the step of one credential). */
  #forgottenAt = 0;
  #forbidProfiling = false;
  /** The supplier of this page's credentials, "" until one naming it arrived: one supplier per page. */
  #supplier = "";
  #language = pageLanguage();
  #apiBase;
  #apiVersion = "v1";
  #local;
  #sessionStore;
  #keyPrefix;
  /** @type {import("./tabs.js").Tabs | null} */
  #tabs;

  /**
   * @param {{ prefix: string, apiBase: string, tabs?: import("./tabs.js").Tabs | null }} options `tabs`: the
   *   shopper's other tabs of the site, told of the credentials this page gives and of a logout (sdk/tabs.js)
   */
  constructor({ prefix, apiBase, tabs = null }) {
    this.prefix = prefix;
    this.#keyPrefix = `_${prefix}/`;
    this.#apiBase = apiBase.replace(/\/+$/, "");
    this.#local = safeStorage("localStorage");
    this.#sessionStore = safeStorage("sessionStorage");
    this.configured = new Promise((resolve) => {
      this.#resolveConfigured = resolve;
    });
    // Earlier versions made an authless id of their own here: the identity is now the credential's.
    this.#local.remove(this.key("authless-id"));
    this.#tabs = tabs;
    tabs?.on("credential", (message) => this.#credentialElsewhere(message.credential, message.pageStarted));
    // A tab restored from the back/forward cache missed what this one heard: it is told the credential again.
    tabs?.on("ask", () => {
      if (this.#credential) tabs.post({ type: "credential", credential: { ...this.#credential }, pageStarted: PAGE_STARTED });
    });
    tabs?.on("reset", (message) => {
      // The tab that logged out already removed the shared authless credential; a new one may be there since.
      if (message.shopper && message.shopper === this.shopperKey) this.#forget({ shared: false });
    });
  }

  /** Storage key of the SDK: `_<prefix>/<name>` (`_svc/session-id`). */
  key(/** @type {string} */ name) {
    return `${this.#keyPrefix}${name}`;
  }

  /**
   * Storage key of an entry of the page's supplier's shopper (SHOPPER_ENTRIES): `_<prefix>/supplier-<id>/<name>`
   * once the page's credential named its supplier, else `_<prefix>/<name>` (an element of before `supplier-id`).
   * Another supplier's page of the same site neither reads nor removes it.
   * @param {string} name
   */
  supplierKey(name) {
    const supplier = this.#supplier || this.#supplierInDocument();
    return supplier ? `${this.#keyPrefix}supplier-${supplier}/${name}` : this.key(name);
  }

  /**
   * The supplier the page's credential elements name, before the session took one: a fragment inserted with
   * `innerHTML` connects its components before the credential element that ends it (its elements are all in the
   * document by then), and they read their entries as they connect. "" when none names one.
   */
  #supplierInDocument() {
    const named = globalThis.document?.querySelectorAll?.(`${this.prefix}-shopper[supplier-id]`) ?? [];
    const supplier = named.length ? String(named[named.length - 1].getAttribute("supplier-id") ?? "").trim() : "";
    return isId(supplier) ? supplier : "";
  }

  /**
   * The page's supplier is known (its first credential naming it): the shopper's entries an SDK of before kept under
   * the site's key become that supplier's, unless it has its own already (a payment started, a visitor's
   * credential, a finalize waiting, across a deploy). The site-wide ones stay where they are.
   */
  #adoptSiteEntries() {
    for (const name of SHOPPER_ENTRIES) {
      if (SITE_WIDE_ENTRIES.has(name)) continue;
      const old = this.#local.get(this.key(name));
      if (old === null) continue;
      if (this.#local.get(this.supplierKey(name)) === null) this.#local.set(this.supplierKey(name), old);
      this.#local.remove(this.key(name));
    }
  }

  /** The supplier of this page's credentials ("" until one naming it arrived). */
  get supplier() {
    return this.#supplier;
  }

  get local() {
    return this.#local;
  }

  /** This tab's storage (sessionStorage, or memory where it cannot be used: sdk/storage.js). */
  get perTab() {
    return this.#sessionStore;
  }

  get language() {
    return this.#language;
  }

  get isConfigured() {
    return this.#isConfigured;
  }

  /** The credential the SDK acts with, or null. */
  get credential() {
    return this.#credential;
  }

  /**
   * The id of this browser, the same in all its tabs of the site: localStorage `_<prefix>/browser-id`, a random
   * UUID made when absent (without usable localStorage, one per page). It names the browser that reported a
   * reconciled cart, nothing else: the service compares the times of one browser's carts only.
   */
  get browserId() {
    const key = this.key("browser-id");
    let id = this.#local.get(key);
    if (!id || !BROWSER_ID.test(id)) {
      id = randomId();
      this.#local.set(key, id);
    }
    return id;
  }

  /** The session id of this tab: sessionStorage `_<prefix>/session-id`, made when absent. */
  get sessionId() {
    const key = this.key("session-id");
    let id = this.#sessionStore.get(key);
    if (!id) {
      id = randomId();
      this.#sessionStore.set(key, id);
    }
    return id;
  }

  /** @param {SetupOptions} [options] */
  setup(options = {}) {
    if (options === null || typeof options !== "object") throw new TypeError("supplier.setup expects an options object");
    if (options.language !== undefined) {
      const language = String(options.language).trim().toLowerCase();
      if (!LANGUAGE.test(language)) throw new TypeError(`unsupported language ${options.language}`);
      this.#language = language;
    }
    if (options.apiUrl) this.#apiBase = new URL(options.apiUrl, document.baseURI).href.replace(/\/+$/, "");
    if (options.apiVersion === "v1" || options.apiVersion === "v2") this.#apiVersion = options.apiVersion;
    if (options.sessionId !== undefined) {
      // A customer that renders fragments with its own session id keeps the browser on the same one.
      this.#sessionStore.set(this.key("session-id"), checkId(options.sessionId, "sessionId"));
    }
    this.#isConfigured = true;
    this.#resolveConfigured();
  }

  /**
   * A credential element was connected: the most recent valid one wins (the service, not the device's clock,
   * decides whether it has expired). An authless credential is also remembered in localStorage
   * (`_<prefix>/supplier-<id>/authless-credential`) for `basket.mergeAuthless` after login. The shopper's other tabs are told
   * of a credential new to this one (`#credentialElsewhere` is what they do with it). An element saying
   * `profiling="false"` (the page's server asked so: the shopper refused profiling) forbids profiling, as
   * `loadWithExternalId(id, true)` does, until `reset`; one without it changes no choice the page made. The
   * supplier it names is the page's: the other tabs this one talks with are that supplier's (sdk/tabs.js).
   * @param {{ token: unknown, kind: unknown, id: unknown, expiresAt: unknown, supplier?: unknown, profiling?: unknown }} raw
   * @returns {boolean} whether it was taken
   */
  receiveCredential(raw) {
    const read = readCredential(raw);
    if (!("credential" in read)) {
      console.warn(`[${this.prefix}] a ${this.prefix}-shopper element was ignored: ${read.reason}`);
      return false;
    }
    const { credential } = read;
    if (this.#supplier && credential.supplier && credential.supplier !== this.#supplier) {
      // Fragments of two suppliers in one page: the page's SDK acts for one shopper, of one supplier. The first
      // supplier's credentials stay; the other's components act for them, which the integrator must hear of (once).
      if (!this.#toldOtherSuppliers.has(credential.supplier)) {
        this.#toldOtherSuppliers.add(credential.supplier);
        console.error(`[${this.prefix}] the ${this.prefix}-shopper elements of supplier ${credential.supplier} are ignored: `
          + `this page's credentials are supplier ${this.#supplier}'s. A page holds the fragments of one supplier token.`);
      }
      return false;
    }
    // A credential a logout forgot, or a user's another shopper's replaced (the page connects again an element it
    // had, a router restores a view of before a logout), is not taken back, unless the page named its shopper
    // just before or just after (`claim`): the service gives a shopper the same credential for ten minutes, so a
    // login again within them brings the forgotten one. Never instead of a credential of the same shopper.
    const key = `${credential.kind}:${credential.id}`;
    const stale = this.#forgotten.has(credential.token) || this.#superseded.has(credential.token);
    let named = false;
    if (stale) {
      named = this.#claimed?.shopper === key && Date.now() - this.#claimed.at <= CLAIM_WINDOW_MS && this.shopperKey !== key;
      if (!named) {
        this.#refused = { credential, at: Date.now() };
        this.#tellRefused(credential);
        return false;
      }
      this.#claimed = null; // one element per naming
    }
    this.#forgotten.delete(credential.token);
    this.#superseded.delete(credential.token);
    if (credential.supplier && !this.#supplier) {
      this.#supplier = credential.supplier;
      this.#adoptSiteEntries();
    }
    if (raw.profiling === "false") this.#forbidProfiling = true;
    if (credential.kind === "authless") this.#rememberAuthless(credential);
    const current = this.#credential;
    const isNew = current?.token !== credential.token;
    if (current && isNew && `${current.kind}:${current.id}` !== key) {
      // A user's credential replaced by another shopper's (a logout, another login) does not come back. A
      // visitor's replaced by a login does only once the page names the user (`claim`): a page that logs out
      // without `reset()` and keeps its visitor's id gives that same credential again, which must be taken, or
      // the next person at the device would act as the user.
      if (current.kind === "user" || this.#claimed?.shopper === key) this.#superseded.add(current.token);
      this.#replaced = current.token;
    }
    this.#dropOtherClaim(credential);
    this.#adopted = false;
    if (this.#tabs) this.#tabs.supplier = this.#supplier;
    this.#switchTo(credential, { kind: credential.kind, id: credential.id, forbidProfiling: this.#forbidProfiling });
    // Told only when new here and issued no earlier than the one it replaces: an old element changes no other tab.
    // One the page named again after a logout is told as given now: the other tabs forgot it too.
    if (isNew && (!current || credential.expiresAt >= current.expiresAt)) {
      this.#tabs?.post({ type: "credential", credential: { ...credential }, pageStarted: named ? Date.now() : PAGE_STARTED });
    }
    return true;
  }

  /** Says once per credential why an element was ignored: an integrator's hint. @param {Credential} credential */
  #tellRefused(credential) {
    if (this.#toldRefused.has(credential.token)) return;
    this.#toldRefused.add(credential.token);
    const call = credential.kind === "user" ? "loadWithExternalId" : "loadWithAuthlessId";
    console.warn(`[${this.prefix}] a ${this.prefix}-shopper element was ignored: its credential was replaced or `
      + `forgotten on this page (a view of before a login or a logout). If its shopper is the page's again, name it: `
      + `user.${call}(${jsonText(credential.id)}).`);
  }

  /** Whether the SDK acts with a credential another tab's page gave (the shopper logged in or out there). */
  get fromAnotherTab() {
    return this.#adopted;
  }

  /**
   * Another tab's page gave it a credential: the site's cookies, which every tab shares, say who the shopper is
   * now (a login or a logout in that tab), and this page still holds the credential its server gave when it
   * loaded. This tab takes the other's, so that its writes go where the retailer's own pages now put the
   * shopper's cart (and a fresh page's credential keeps an old tab going). Only a credential issued no earlier
   * than this tab's (or, after a logout, than the forgotten one) is taken: its `expires-at`, the time
   * plus a fixed life, says when. The credential it replaces is superseded here: this page's elements carrying it
   * no longer count. A forgotten credential is taken only from a page started after the logout (its server gave
   * it again: a login within the ten minutes of one credential; a page of before, kept in the back/forward cache,
   * is not believed); an unusable one is not taken; nothing is told on.
   * @param {unknown} raw @param {unknown} pageStarted when the telling tab's page started (`PAGE_STARTED`)
   */
  #credentialElsewhere(raw, pageStarted) {
    const given = /** @type {any} */ (raw) ?? {};
    const read = readCredential({
      token: given.token, kind: given.kind, id: given.id, expiresAt: given.expiresAt, supplier: given.supplier,
    });
    if (!("credential" in read)) return;
    const { credential } = read;
    const current = this.#credential;
    if (current?.token === credential.token) return;
    const givenAgain = typeof pageStarted === "number" && pageStarted >= this.#forgottenAt;
    if (this.#forgotten.has(credential.token) && !givenAgain) return;
    if (credential.expiresAt < (current ? current.expiresAt : this.#forgottenUntil)) return;
    this.#forgotten.delete(credential.token);
    if (current) this.#superseded.add(current.token);
    this.#superseded.delete(credential.token);
    this.#dropOtherClaim(credential);
    this.#adopted = true;
    this.#switchTo(credential, { kind: credential.kind, id: credential.id, forbidProfiling: this.#forbidProfiling });
  }

  /**
   * The page says who it believes its shopper is (`user.loadWithExternalId` / `loadWithAuthlessId`). Only
   * the credential decides whom the SDK acts for: a claim that differs changes nothing and is reported.
   * `forbidProfiling` is recorded (until `reset`).
   * @param {"user" | "authless"} kind @param {unknown} id @param {boolean} [forbidProfiling]
   * @returns {string} the claimed id, checked
   */
  claim(kind, id, forbidProfiling) {
    const claimed = checkId(id, "id");
    if (forbidProfiling !== undefined) this.#forbidProfiling = Boolean(forbidProfiling);
    const key = `${kind}:${claimed}`;
    this.#claimed = { shopper: key, at: Date.now() };
    // The page names the shopper it now acts for (its login): the visitor's credential that login replaced no
    // longer comes back (a router's view of before the login).
    if (this.shopperKey === key && this.#replaced) this.#superseded.add(this.#replaced);
    const refused = this.#refused;
    if (refused && `${refused.credential.kind}:${refused.credential.id}` === key
      && Date.now() - refused.at <= CLAIM_WINDOW_MS && this.shopperKey !== key) {
      // An element of that shopper refused as stale came first: a login again after a logout.
      this.#refused = null;
      const { token, expiresAt, supplier } = refused.credential;
      this.receiveCredential({ token, kind, id: claimed, expiresAt, supplier });
    }
    const credential = this.#credential;
    const call = kind === "user" ? "loadWithExternalId" : "loadWithAuthlessId";
    if (!credential) {
      console.warn(`[${this.prefix}] user.${call}(${jsonText(claimed)}): the page has no shopper credential yet; `
        + `the SDK acts only for the shopper a ${this.prefix}-shopper element (from a fragment or the bootstrap) names.`);
    } else if (credential.kind !== kind || credential.id !== claimed) {
      const vouched = credential.kind === "user" ? `user ${jsonText(credential.id)}` : "a logged-out visitor";
      console.warn(`[${this.prefix}] user.${call}(${jsonText(claimed)}) does not match the identity the page's `
        + `server vouched for (${vouched}): the SDK keeps acting for the credential's shopper.`);
    }
    const identity = this.identity$.value;
    if (identity) this.#switchTo(credential, { ...identity, forbidProfiling: this.#forbidProfiling });
    return claimed;
  }

  /** A credential of another shopper than the page last named came since: the name no longer holds (the
   * server's word is the later one). @param {Credential} credential */
  #dropOtherClaim(credential) {
    if (this.#claimed && this.#claimed.shopper !== `${credential.kind}:${credential.id}`) this.#claimed = null;
  }

  /** The shopper the SDK acts for now, as `kind:id` ("" without a credential). */
  get shopperKey() {
    const identity = this.identity$.value;
    return identity ? `${identity.kind}:${identity.id}` : "";
  }

  /**
   * Watches a claim (`user.loadWithExternalId` / `loadWithAuthlessId`): `sink.next(identity)` then
   * `complete()` once the SDK acts for `kind`/`id` (at once when the credential is that shopper's, else when a
   * credential of that shopper arrives: a single-page app's login); `sink.error` when a credential of another
   * shopper than the one of `atClaim` arrives first, or `user.reset()`. Returns the teardown.
   * @param {"user" | "authless"} kind @param {string} id checked by `claim`
   * @param {string} atClaim `shopperKey` when the page made the claim
   * @param {{ next(identity: Identity): void, error(error: unknown): void, complete(): void }} sink
   */
  watchClaim(kind, id, atClaim, sink) {
    let done = false;
    const subscription = this.identity$.subscribe((identity) => {
      if (done) return;
      const key = identity ? `${identity.kind}:${identity.id}` : "";
      if (key === `${kind}:${id}`) {
        done = true;
        sink.next(/** @type {Identity} */ (identity));
        sink.complete();
      } else if (key !== atClaim) {
        done = true;
        sink.error(new Error(identity
          ? `the page's credential is of another shopper (${identity.kind} ${jsonText(identity.id)}), not ${kind} ${jsonText(id)}`
          : `user.reset() was called before a credential of ${kind} ${jsonText(id)} arrived`));
      }
    });
    return () => subscription.unsubscribe();
  }

  /**
   * The language of the requests from now on (`user.setLanguage`): `fr`, `en` or `<lang>-<retailer>`.
   * @param {unknown} language
   */
  setLanguage(language) {
    const value = String(language ?? "").trim().toLowerCase();
    if (!LANGUAGE.test(value)) throw new TypeError(`unsupported language ${String(language)}`);
    this.#language = value;
  }

  /**
   * The shopper's profiling choice changed (`user.updateForbidProfiling`): recorded for the requests of this
   * page, whatever `id` says (it only affects what this browser sends with its own credential, and a refusal
   * must never be lost to a bad id); an `id` that is not the credential's shopper is reported, as a claim is.
   * @param {boolean} forbid @param {"user" | "authless"} kind @param {unknown} id
   */
  updateForbidProfiling(forbid, kind, id) {
    const claimed = String(id ?? "").trim();
    const credential = this.#credential;
    if (credential && (credential.kind !== kind || credential.id !== claimed)) {
      console.warn(`[${this.prefix}] user.updateForbidProfiling(${forbid}, ${jsonText(claimed)}): not the shopper the `
        + "page's server vouched for; the choice is recorded for this page's requests all the same.");
    }
    this.#forbidProfiling = Boolean(forbid);
    const identity = this.identity$.value;
    if (identity) this.#switchTo(credential, { ...identity, forbidProfiling: this.#forbidProfiling });
  }

  /**
   * Logout: forgets the credentials (the user's, and the remembered authless one) and `forbidProfiling`.
   * The SDK has no identity until a new credential element arrives (in this tab, or in another tab of the
   * site: `#credentialElsewhere`); an element still carrying a forgotten credential is ignored.
   */
  reset() {
    const user = this.isConnected ? this.shopperKey : "";
    this.#forget();
    // A user's logout: the shopper's other tabs acting for that user forget the credential too (the site's
    // cookies logged every tab out). A logged-out visitor's reset stays with its page.
    if (user) this.#tabs?.post({ type: "reset", shopper: user });
  }

  /**
   * What `reset` does to this page. `shared`: the shopper's entries in localStorage (SHOPPER_ENTRIES, the
   * remembered authless credential among them), which every tab shares, go too (only where the logout happened).
   * @param {{ shared?: boolean }} [options]
   */
  #forget({ shared = true } = {}) {
    if (this.#credential) {
      this.#forgotten.add(this.#credential.token);
      this.#forgottenUntil = Math.max(this.#forgottenUntil, this.#credential.expiresAt);
      this.#forgottenAt = Date.now();
    }
    if (shared) {
      // The visitor's credential of before the login, remembered for the merge, is forgotten too: the logged-out
      // page brings a new visitor's (README.md). Only where the logout happened: another tab may already find the
      // new visitor's remembered there.
      const remembered = this.#rememberedAuthless();
      if (remembered) this.#forgotten.add(remembered.token);
      for (const name of SHOPPER_ENTRIES) {
        this.#local.remove(this.supplierKey(name));
        // The site-wide ones, and what an SDK of before kept under the site's key.
        this.#local.remove(this.key(name));
      }
    }
    this.#refused = null;
    this.#claimed = null;
    this.#replaced = "";
    this.#adopted = false;
    this.#switchTo(null, null);
    this.#forbidProfiling = false;
  }

  get isConnected() {
    return this.identity$.value?.kind === "user";
  }

  /**
   * The credential of an authless visitor, when the SDK has one: the current one, or the one remembered in
   * localStorage. The service judges whether it has expired (not the device's clock).
   * @param {string} authlessId
   * @returns {string | null}
   */
  authlessCredentialOf(authlessId) {
    const current = this.#credential;
    if (current?.kind === "authless" && current.id === authlessId) return current.token;
    const remembered = this.#rememberedAuthless();
    // Expired so long ago that no device's clock is that far off: the merge would only be refused.
    if (remembered && remembered.expiresAt * 1000 + LONG_EXPIRED_MS < Date.now()) {
      this.#local.remove(this.supplierKey("authless-credential"));
      return null;
    }
    return remembered?.id === authlessId ? remembered.token : null;
  }

  /** The authless credential remembered in localStorage (an unusable entry is removed). @returns {Credential | null} */
  #rememberedAuthless() {
    const key = this.supplierKey("authless-credential");
    let stored = null;
    try {
      stored = JSON.parse(this.#local.get(key) ?? "null");
    } catch {
      // unreadable: treated as none
    }
    if (!stored || typeof stored !== "object") return null;
    const read = readCredential({ token: stored.credential, kind: "authless", id: stored.id, expiresAt: stored.expiresAt });
    if (!("credential" in read)) {
      this.#local.remove(key);
      return null;
    }
    return read.credential;
  }

  /**
   * The headers of the browser routes: `authorization: Bearer <credential>` (left out without one),
   * `language-id`, `session-id`, `profiling: false` when forbidden. Never `supplier-token`, `authless-id`
   * or a `user_id` authorization.
   * @returns {Record<string, string>}
   */
  headers() {
    /** @type {Record<string, string>} */
    const headers = {
      "language-id": this.#language,
      "session-id": this.sessionId,
    };
    if (this.#credential) headers.authorization = `Bearer ${this.#credential.token}`;
    if (this.#forbidProfiling) headers.profiling = "false";
    return headers;
  }

  /**
   * Absolute URL of a route: `{api}/{v}{path}?query`. Null and undefined query values are left out.
   * @param {string} path starting with "/"
   * @param {Record<string, string | number | null | undefined>} [query]
   * @param {"v1" | "v2"} [version] default: the one `setup` chose
   */
  url(path, query = {}, version = undefined) {
    const url = new URL(`${this.#apiBase}/${version ?? this.#apiVersion}${path}`);
    for (const [name, value] of Object.entries(query)) {
      if (value !== null && value !== undefined && value !== "") url.searchParams.set(name, String(value));
    }
    return url.href;
  }

  /**
   * Absolute URL of a route outside the API versions (`/origin-check`): `{api}{path}`.
   * @param {string} path starting with "/"
   */
  serviceUrl(path) {
    return new URL(`${this.#apiBase}${path}`).href;
  }

  /** Keeps the latest authless credential for a merge after login. @param {Credential} credential */
  #rememberAuthless(credential) {
    this.#local.set(this.supplierKey("authless-credential"),
      jsonText({ credential: credential.token, id: credential.id, expiresAt: credential.expiresAt }));
  }

  /**
   * Takes a credential and its identity. `leaving$` is told first, while the previous credential is still
   * the one `headers()` gives (what was queued for that shopper goes out as theirs); a new identity is
   * emitted only when it differs: the same shopper again (a newer credential) reloads nothing.
   * @param {Credential | null} credential @param {Identity | null} identity
   */
  #switchTo(credential, identity) {
    const current = this.identity$.value ?? null;
    const sameShopper = current && identity ? current.kind === identity.kind && current.id === identity.id : current === identity;
    if (current && !sameShopper) this.leaving$.next(current);
    this.#credential = credential;
    if (sameShopper && current?.forbidProfiling === identity?.forbidProfiling) return;
    this.identity$.next(identity);
  }
}
