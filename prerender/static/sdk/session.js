// Who is calling and where: supplier token, language, API base, identity (user or authless), session id.
// Everything an API call needs to build the headers of the specification (Authentication).
import { State } from "./stream.js";
import { safeStorage, randomId } from "./storage.js";

/**
 * @typedef {object} Identity
 * @property {"user" | "authless"} kind
 * @property {string} id
 * @property {boolean} forbidProfiling
 */

/**
 * @typedef {object} SetupOptions
 * @property {string} [language] `language-id`: `fr`, `en` or `<lang>-<retailer>`
 * @property {string} [apiUrl] base URL of the prerender service (default: where the modules come from)
 * @property {"v1" | "v2"} [apiVersion] version segment of the browser routes (default v1)
 * @property {string} [sessionId] the session id the customer's server used for the fragments (default: one per tab)
 */

const LANGUAGE = /^[a-z]{2}(?:-[a-z0-9_]{1,32})?$/;

/** The page's language when it is one the service speaks, else French. */
function pageLanguage() {
  const lang = (document.documentElement.lang || "").slice(0, 2).toLowerCase();
  return lang === "en" ? "en" : "fr";
}

export class Session {
  /** @type {State<Identity>} */
  identity$;
  /** @type {Promise<void>} resolves once `supplier.setupWithToken` has been called: API calls wait for it. */
  configured;
  #resolveConfigured = () => {};
  #token = "";
  #language = pageLanguage();
  #apiBase;
  #apiVersion = "v1";
  #local;
  #sessionStore;
  #keyPrefix;

  /**
   * @param {{ prefix: string, apiBase: string }} options
   */
  constructor({ prefix, apiBase }) {
    this.prefix = prefix;
    this.#keyPrefix = `_${prefix}/`;
    this.#apiBase = apiBase.replace(/\/+$/, "");
    this.#local = safeStorage("localStorage");
    this.#sessionStore = safeStorage("sessionStorage");
    this.configured = new Promise((resolve) => {
      this.#resolveConfigured = resolve;
    });
    this.identity$ = new State(/** @type {Identity} */ ({ kind: "authless", id: this.#storedAuthlessId(), forbidProfiling: false }));
  }

  /** Storage key of the SDK: `_<prefix>/<name>` (`_svc/authless-id`). */
  key(/** @type {string} */ name) {
    return `${this.#keyPrefix}${name}`;
  }

  get local() {
    return this.#local;
  }

  get language() {
    return this.#language;
  }

  get supplierToken() {
    return this.#token;
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

  /**
   * @param {string} token
   * @param {SetupOptions} [options]
   */
  setup(token, options = {}) {
    if (typeof token !== "string" || !token.trim()) throw new TypeError("setupWithToken expects a token");
    this.#token = token.trim();
    if (options.language !== undefined) {
      const language = String(options.language).trim().toLowerCase();
      if (!LANGUAGE.test(language)) throw new TypeError(`unsupported language ${options.language}`);
      this.#language = language;
    }
    if (options.apiUrl) this.#apiBase = new URL(options.apiUrl, document.baseURI).href.replace(/\/+$/, "");
    if (options.apiVersion === "v1" || options.apiVersion === "v2") this.#apiVersion = options.apiVersion;
    if (options.sessionId !== undefined) {
      // A customer that renders fragments with its own session id keeps the browser on the same one.
      this.#sessionStore.set(this.key("session-id"), this.#checkId(String(options.sessionId)));
    }
    this.#resolveConfigured();
  }

  /** @param {string} id  @param {boolean} forbidProfiling */
  loadUser(id, forbidProfiling) {
    this.#switchTo({ kind: "user", id: this.#checkId(id), forbidProfiling: Boolean(forbidProfiling) });
  }

  /** @param {string} id */
  loadAuthless(id) {
    const value = this.#checkId(id);
    this.#local.set(this.key("authless-id"), value);
    this.#switchTo({ kind: "authless", id: value, forbidProfiling: false });
  }

  /** A new authless identity (logout): stored in localStorage `_<prefix>/authless-id`. */
  resetUser() {
    const id = randomId();
    this.#local.set(this.key("authless-id"), id);
    this.identity$.next({ kind: "authless", id, forbidProfiling: false });
    return id;
  }

  get isConnected() {
    return this.identity$.value?.kind === "user";
  }

  /**
   * The headers of the specification for the current identity.
   * @returns {Record<string, string>}
   */
  headers() {
    const identity = /** @type {Identity} */ (this.identity$.value);
    /** @type {Record<string, string>} */
    const headers = {
      "language-id": this.#language,
      "session-id": this.sessionId,
      "supplier-token": this.#token,
    };
    if (identity.kind === "user") headers.authorization = `user_id ${identity.id}`;
    else headers["authless-id"] = identity.id;
    if (identity.forbidProfiling) headers.profiling = "false";
    return headers;
  }

  /**
   * Absolute URL of a route: `{api}/{v}{path}?query`. Null and undefined query values are left out.
   * @param {string} path starting with "/"
   * @param {Record<string, string | number | null | undefined>} [query]
   */
  url(path, query = {}) {
    const url = new URL(`${this.#apiBase}/${this.#apiVersion}${path}`);
    for (const [name, value] of Object.entries(query)) {
      if (value !== null && value !== undefined && value !== "") url.searchParams.set(name, String(value));
    }
    return url.href;
  }

  /** Emits a new identity only when it differs: loading the same user twice reloads nothing. */
  #switchTo(/** @type {Identity} */ identity) {
    const current = this.identity$.value;
    if (current && current.kind === identity.kind && current.id === identity.id
        && current.forbidProfiling === identity.forbidProfiling) return;
    this.identity$.next(identity);
  }

  #storedAuthlessId() {
    const key = this.key("authless-id");
    let id = this.#local.get(key);
    if (!id || !/^[\x21-\x7e]{1,128}$/.test(id)) {
      id = randomId();
      this.#local.set(key, id);
    }
    return id;
  }

  /** Ids become header values: 1 to 128 printable ASCII characters, no space (prerender's guard). */
  #checkId(/** @type {unknown} */ id) {
    const value = String(id ?? "").trim();
    if (!/^[\x21-\x7e]{1,128}$/.test(value)) throw new TypeError("an id is 1 to 128 printable characters");
    return value;
  }
}
