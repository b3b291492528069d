// Calls to prerender's browser routes (docs/browser-api.md) with the headers of the specification.
// Failures become ApiError, whose `problem` is the RFC 9457 body the service answered (or one made here
// for network failures), so callers get a rejected promise with the problem, never a raw exception.

/**
 * @typedef {object} Problem
 * @property {string} [type]
 * @property {string} title
 * @property {number} status  0 for a network failure
 * @property {string} [detail]
 * @property {object} [errors]
 */

export class ApiError extends Error {
  /** @param {Problem} problem */
  constructor(problem) {
    super(problem.detail || problem.title);
    this.name = "ApiError";
    /** @type {Problem} */
    this.problem = problem;
    this.status = problem.status;
  }
}

/** A problem made by the SDK itself (no store selected, network down...). */
export function localProblem(/** @type {string} */ type, /** @type {string} */ title, detail = "") {
  return new ApiError({ type: `about:blank#${type}`, title, status: 0, detail });
}

/**
 * @typedef {object} RequestOptions
 * @property {Record<string, string | number | null | undefined>} [query]
 * @property {unknown} [json] body sent as application/json
 * @property {"json" | "text"} [as] how to read a successful answer (default json)
 * @property {AbortSignal} [signal]
 */

export class ApiClient {
  /** @param {import("./session.js").Session} session */
  constructor(session) {
    this.session = session;
  }

  /**
   * @param {string} method
   * @param {string} path route path after the version segment ("/basket")
   * @param {RequestOptions} [options]
   * @returns {Promise<any>}
   */
  async request(method, path, { query, json, as = "json", signal } = {}) {
    await this.session.configured;
    const headers = this.session.headers();
    headers.accept = as === "json" ? "application/json" : "text/html";
    /** @type {RequestInit} */
    const init = { method, headers, signal, credentials: "omit", mode: "cors" };
    if (json !== undefined) {
      headers["content-type"] = "application/json";
      init.body = JSON.stringify(json);
    }
    let response;
    try {
      response = await fetch(this.session.url(path, query), init);
    } catch (error) {
      if (error instanceof DOMException && error.name === "AbortError") throw error;
      throw localProblem("network", "Network error", String(/** @type {{ message?: unknown } | null | undefined} */ (error)?.message ?? error));
    }
    if (!response.ok) throw new ApiError(await readProblem(response));
    if (response.status === 204) return null;
    try {
      return as === "json" ? await response.json() : await response.text();
    } catch (error) {
      if (error instanceof DOMException && error.name === "AbortError") throw error;
      throw new ApiError({ title: "Malformed answer", status: 502, detail: `${method} ${path}` });
    }
  }
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
