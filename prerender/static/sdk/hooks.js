// The page's hook callback (`hook.setHookCallback`, docs/sdk.md): asked before an action that adds products to
// the basket, with whether the shopper is logged in and whether the page's store is one the service knows. The
// page may send the shopper to its login or store picker; the action goes on only when the callback returns
// true (or a promise of true; any truthy value counts, as in the maker's SDK).
import { localProblem } from "./http.js";

/** @typedef {(isLogged: boolean, isPosValid: boolean) => unknown} HookCallback */

/** Whether `error` is an action the page's hook callback stopped (a `#stopped-by-hook` problem). @param {unknown} error */
export function isStoppedByHook(error) {
  return String(/** @type {any} */ (error)?.problem?.type ?? "").endsWith("#stopped-by-hook");
}

export class Hooks {
  /** @type {HookCallback | null} */
  #callback = null;
  #prefix;

  /** @param {{ prefix: string }} options */
  constructor({ prefix }) {
    this.#prefix = prefix;
  }

  /** @param {unknown} callback a function, or null to remove it */
  setHookCallback(callback) {
    if (callback !== null && callback !== undefined && typeof callback !== "function") {
      throw new TypeError("setHookCallback expects a function (isLogged, isPosValid) => boolean");
    }
    this.#callback = /** @type {HookCallback | null} */ (callback ?? null);
  }

  /**
   * Asks the page before an action; rejects with a `#stopped-by-hook` problem when it says no (or fails).
   * Without a callback every action goes on.
   * @param {boolean} isLogged @param {boolean} isPosValid
   */
  async proceed(isLogged, isPosValid) {
    const callback = this.#callback;
    if (!callback) return;
    let answer;
    try {
      answer = await callback(isLogged, isPosValid);
    } catch (error) {
      console.error(`[${this.#prefix}] the hook callback failed: the action is stopped`, error);
      answer = false;
    }
    if (answer) return;
    throw localProblem("stopped-by-hook", "Stopped by the page's hook callback",
      `hook.setHookCallback's callback returned ${String(answer)} (isLogged: ${isLogged}, isPosValid: ${isPosValid}).`);
  }
}
