// The drawer's module (components/drawer.js and the recipe details it imports), loaded the first time a shopper
// opens a recipe or the basket preview. It comes from prerender, which may be slow, hung or down: until it
// arrives a click would show nothing. So a load that takes longer than a second says so in the toaster
// ("Ouverture de la recette…"); one that fails, or has not arrived after 10 s, says that the recipe cannot open
// for now, and the click's promise rejects with a `#drawer-unavailable` problem. A module that arrives after the
// shopper was told it could not open does not open the drawer by itself then: the next click opens it at once.
// A failed load is asked for again on the next click; a browser that keeps a failed module (older ones do) fails
// it again at once, so from the second failure on the toaster says to reload the page.
import { ApiError, localProblem } from "./http.js";

/** After this long without the module, the toaster says it is on its way. */
export const LOADING_SHOWN_AFTER_MS = 1000;
/** After this long without the module, the click is given up (the shopper told). */
export const GIVEN_UP_AFTER_MS = 10_000;

/** @typedef {typeof import("../components/drawer.js")} DrawerModule */

export class DrawerLoader {
  #deps;
  /** @type {DrawerModule | null} */
  #module = null;
  /** @type {Promise<DrawerModule> | null} the load in progress (one at a time: the browser's own is one too) */
  #loading = null;
  /** @type {Promise<DrawerModule> | null} the first load that failed or was given up: when another load does too,
   * the shopper is told to reload (however many clicks waited on the first, they were told it failed once) */
  #firstFailed = null;

  /**
   * @param {object} deps
   * @param {() => Promise<DrawerModule>} deps.importDrawer the module's `import()`
   * @param {{ show(text: string, shownMs?: number): void, hide(text: string): void }} deps.toaster
   * @param {(key: string) => string} deps.t the SDK's texts
   */
  constructor(deps) {
    this.#deps = deps;
  }

  /** The drawer's module when it has been loaded (no load started here). */
  get loaded() {
    return this.#module;
  }

  /**
   * The drawer's module, at once once loaded. Rejects (the shopper told in the toaster) when the load fails or
   * takes longer than GIVEN_UP_AFTER_MS.
   * @param {{ opening: string, failed: string }} keys the texts of what is opening (a recipe, the basket)
   * @returns {Promise<DrawerModule>}
   */
  async load(keys) {
    if (this.#module) return this.#module;
    const { toaster, t } = this.#deps;
    this.#loading ??= this.#deps.importDrawer().then(
      (module) => {
        this.#module = module;
        return module;
      },
      (error) => {
        this.#loading = null; // the next click asks again
        throw error;
      },
    );
    const attempt = this.#loading;
    const loadingText = t(keys.opening);
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let loadingTimer;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let giveUpTimer;
    const givenUp = new Promise((_, reject) => {
      loadingTimer = setTimeout(() => toaster.show(loadingText, GIVEN_UP_AFTER_MS), LOADING_SHOWN_AFTER_MS);
      giveUpTimer = setTimeout(
        () => reject(localProblem("drawer-unavailable", "The drawer cannot open for now",
          `The drawer's module did not arrive within ${GIVEN_UP_AFTER_MS} ms.`)),
        GIVEN_UP_AFTER_MS,
      );
    });
    try {
      const module = await Promise.race([attempt, givenUp]);
      toaster.hide(loadingText);
      return module;
    } catch (error) {
      this.#firstFailed ??= attempt;
      toaster.show(t(this.#firstFailed === attempt ? keys.failed : "error.drawer-reload"));
      if (error instanceof ApiError) throw error;
      throw localProblem("drawer-unavailable", "The drawer cannot open for now", `The drawer's module did not load: ${error}`);
    } finally {
      clearTimeout(loadingTimer);
      clearTimeout(giveUpTimer);
    }
  }
}
