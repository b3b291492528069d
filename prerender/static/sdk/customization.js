// What the page customizes through the maker's documented setters (docs/sdk.md, section 6, "Migrating from the
// maker's web SDK"): default pictures, difficulty labels, the page's own URLs, feature switches, the sticky header height
// and the scroll container. Each setting is a state; the SDK applies the ones that live in the markup to every
// fragment of the page, already there or inserted later, through the attributes the templates carry:
//
// - `img[data-svc-picture="recipe|ingredient"]`: no src, or a picture that fails to load, shows the default
//   picture of its kind; `[data-svc-picture-fallback="recipe|ingredient"]` (a fragment's placeholder where
//   there is no picture) gets an <img> of the default picture;
// - `[data-difficulty="1|2|3"]`: its text becomes the page's label for that level;
// - `a[data-svc-route="catalog|recipe-info|cart|promotions|planner"]`: its href becomes the page's URL for
//   that route; such a link rendered hidden (no URL known to the server) is shown;
// - `[data-svc-feature="tags"]`: shown only once `features.enableTagsOnRecipes()` was called.
//
// Components read the other settings (collapse unavailable products, ingredient pictures on cards, the
// shopper's location...) from here, and lock the page's scroll through `scrollLock`.
import { State } from "./observable.js";

/** @typedef {"recipe" | "ingredient"} PictureKind */
/** @typedef {{ catalog?: string, recipeInfo?: string, cart?: string, promotions?: string, planner?: string }} Routes */
/** @typedef {{ latitude: number, longitude: number, accuracy?: number }} Location */

/** Route names of `data-svc-route` -> keys of Routes. */
const ROUTE_KEYS = /** @type {const} */ ({
  catalog: "catalog", "recipe-info": "recipeInfo", cart: "cart", promotions: "promotions", planner: "planner",
});
const SELECTOR = "img[data-svc-picture], [data-svc-picture-fallback], [data-difficulty], a[data-svc-route], [data-svc-feature]";

/**
 * A URL the page gives: absolute http(s), or relative to the page. Anything else (javascript:, data:) is refused.
 * @param {unknown} url @param {string} what
 */
export function pageUrl(url, what) {
  let parsed;
  try {
    parsed = new URL(String(url ?? "").trim(), document.baseURI);
  } catch {
    throw new TypeError(`${what}: not a URL`);
  }
  if (!String(url ?? "").trim() || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
    throw new TypeError(`${what}: an http(s) URL or a path of the page's site`);
  }
  return parsed.href;
}

export class Customization {
  /** @type {State<string | null>} */ defaultRecipePicture$ = new State(/** @type {string | null} */ (null));
  /** @type {State<string | null>} */ defaultIngredientPicture$ = new State(/** @type {string | null} */ (null));
  /** @type {State<ReadonlyMap<number, string>>} */ difficultyLabels$ = new State(/** @type {ReadonlyMap<number, string>} */ (new Map()));
  /** @type {State<boolean>} */ ingredientPicturesOnCard$ = new State(false);
  /** @type {State<boolean>} */ collapseUnavailable$ = new State(false);
  /** @type {State<boolean>} */ tagsOnRecipes$ = new State(false);
  /** @type {State<boolean>} */ videoRecipes$ = new State(false);
  /** @type {State<boolean>} */ userPreferences$ = new State(false);
  /** @type {State<boolean>} */ confirmationToaster$ = new State(false);
  /** @type {State<Routes>} */ routes$ = new State(/** @type {Routes} */ ({}));
  /** @type {State<number>} */ stickyHeaderHeight$ = new State(0);
  /** @type {State<Location | null>} */ location$ = new State(/** @type {Location | null} */ (null));
  /** @type {(() => HTMLElement | null) | null} null: the default (<html> gets `svc-scroll-lock`) */
  #scrollElementGetter = null;
  #locks = 0;
  /** @type {(() => void) | null} undoes the current lock */
  #unlock = null;
  #watching = false;

  // ---- setters (svc.js validates nothing twice: these throw TypeError on bad input) ----

  /** @param {PictureKind} kind @param {unknown} url */
  setDefaultPicture(kind, url) {
    const value = url === null || url === undefined || url === "" ? null : pageUrl(url, "default picture");
    (kind === "recipe" ? this.defaultRecipePicture$ : this.defaultIngredientPicture$).next(value);
  }

  /** @param {unknown} levels `[{value: 1|2|3, label}]`: merged into the labels set before */
  setDifficultyLevels(levels) {
    if (!Array.isArray(levels)) throw new TypeError("setDifficultyLevels expects [{value, label}]");
    const labels = new Map(this.difficultyLabels$.value);
    for (const level of levels) {
      const value = Number(level?.value);
      const label = String(level?.label ?? "").trim();
      if (![1, 2, 3].includes(value) || !label) throw new TypeError("setDifficultyLevels: each level is {value: 1, 2 or 3, label}");
      labels.set(value, label.slice(0, 60));
    }
    this.difficultyLabels$.next(labels);
  }

  /** @param {keyof Routes} route @param {unknown} url */
  setRoute(route, url) {
    this.routes$.next({ ...this.routes$.value, [route]: pageUrl(url, `${route} URL`) });
  }

  /** @param {unknown} url the page of the meals planner (the catalog's planner links) */
  enableMealsPlanner(url) {
    this.setRoute("planner", url);
  }

  /** @param {unknown} height px of the page's sticky header (0: none) */
  setStickyHeaderHeight(height) {
    const px = Number(height);
    if (!Number.isFinite(px) || px < 0) throw new TypeError("setStickyHeaderHeight expects a height in px >= 0");
    this.stickyHeaderHeight$.next(Math.round(px));
  }

  /** @param {unknown} getter `() => HTMLElement | null` */
  setScrollElementGetter(getter) {
    if (typeof getter !== "function") throw new TypeError("setDefaultScrollElementGetter expects a function");
    this.#scrollElementGetter = /** @type {() => HTMLElement | null} */ (getter);
  }

  /** @param {unknown} position a GeolocationPosition, or `{coords: {latitude, longitude}}` */
  setLocation(position) {
    const coords = /** @type {any} */ (position)?.coords;
    const latitude = Number(coords?.latitude);
    const longitude = Number(coords?.longitude);
    if (!Number.isFinite(latitude) || !Number.isFinite(longitude) || Math.abs(latitude) > 90 || Math.abs(longitude) > 180) {
      throw new TypeError("setLocation expects a GeolocationPosition: {coords: {latitude, longitude}}");
    }
    const accuracy = Number(coords?.accuracy);
    this.location$.next({ latitude, longitude, ...(Number.isFinite(accuracy) ? { accuracy } : {}) });
  }

  // ---- the page's scroll while a dialog of ours is open ----

  /** Reference-counted: the page's scroll is locked from the first acquire to the last release. */
  get scrollLock() {
    return {
      acquire: () => {
        this.#locks += 1;
        if (this.#locks === 1) this.#unlock = this.#lock();
      },
      release: () => {
        if (this.#locks === 0) return;
        this.#locks -= 1;
        if (this.#locks === 0) {
          this.#unlock?.();
          this.#unlock = null;
        }
      },
    };
  }

  /** Locks the scroll element the page named (none: <html>'s class); returns the undo. */
  #lock() {
    if (!this.#scrollElementGetter) {
      document.documentElement.classList.add("svc-scroll-lock");
      return () => document.documentElement.classList.remove("svc-scroll-lock");
    }
    let element = null;
    try {
      element = this.#scrollElementGetter();
    } catch (error) {
      console.error("[sdk] the scroll element getter failed", error);
    }
    if (!(element instanceof HTMLElement)) return () => {}; // null: the page does not want its scroll blocked
    const before = element.style.overflow;
    element.style.overflow = "hidden";
    element.classList.add("svc-scroll-lock");
    return () => {
      element.style.overflow = before;
      element.classList.remove("svc-scroll-lock");
    };
  }

  // ---- the markup ----

  /** Starts applying the settings to the page: now, to every fragment inserted later, and on every change. */
  watch() {
    if (this.#watching) return;
    this.#watching = true;
    // Until the page sets something, the markup is as the server made it: nothing to apply, nothing to watch
    // (a page that never calls a setter pays nothing for its own DOM changes). The first change applies
    // everything and starts watching the fragments inserted from then on.
    let started = false;
    /** @type {MutationObserver | null} */
    let observer = null;
    const applyAll = () => {
      if (!started) return;
      this.apply(document);
      observer ??= new MutationObserver((records) => {
        for (const record of records) {
          for (const node of record.addedNodes) if (node instanceof Element) this.apply(node);
        }
      });
      observer.observe(document.documentElement, { childList: true, subtree: true });
    };
    for (const state of [this.defaultRecipePicture$, this.defaultIngredientPicture$, this.difficultyLabels$,
      this.routes$, this.tagsOnRecipes$]) {
      state.subscribe(applyAll); // the current (default) values change nothing
    }
    started = true;
    this.stickyHeaderHeight$.subscribe((px) => {
      document.documentElement.style.setProperty("--svc-sticky-header-height", `${px}px`);
    });
    // A picture that fails to load (error and load events do not bubble: captured on the document), and those
    // that failed before the SDK started; a picture given a new source that loads is no longer a failed one.
    document.addEventListener("error", (event) => {
      if (event.target instanceof HTMLImageElement && event.target.dataset.svcPicture) this.#repairPicture(event.target, true);
    }, true);
    document.addEventListener("load", (event) => {
      if (event.target instanceof HTMLImageElement) delete event.target.dataset.svcPictureFailed;
    }, true);
    // (decode() rejects for a picture that did not load: a width of 0 would also be an SVG without a size.)
    for (const img of document.querySelectorAll("img[data-svc-picture]")) {
      const scanned = img.getAttribute("src");
      if (!(img instanceof HTMLImageElement) || !img.complete || !scanned) continue;
      img.decode().catch(() => {
        if (img.getAttribute("src") === scanned) this.#repairPicture(img, true); // not one given a new source since
      });
    }
  }

  /** Applies the settings to `root` and what it contains. @param {ParentNode & Node} root */
  apply(root) {
    const elements = root instanceof Element && root.matches(SELECTOR) ? [root] : [];
    elements.push(...root.querySelectorAll(SELECTOR));
    for (const element of elements) {
      if (element instanceof HTMLImageElement && element.dataset.svcPicture) this.#repairPicture(element, false);
      if (element instanceof HTMLElement && element.dataset.svcPictureFallback) this.#fillPlaceholder(element);
      if (element instanceof HTMLElement && element.dataset.difficulty) this.#labelDifficulty(element);
      if (element instanceof HTMLAnchorElement && element.dataset.svcRoute) this.#route(element);
      if (element instanceof HTMLElement && element.dataset.svcFeature === "tags") element.hidden = !this.tagsOnRecipes$.value;
    }
  }

  /** @param {string | undefined} kind */
  #defaultPicture(kind) {
    if (kind === "recipe") return this.defaultRecipePicture$.value ?? null;
    if (kind === "ingredient") return this.defaultIngredientPicture$.value ?? null;
    return null;
  }

  /**
   * A picture without a source or that failed to load shows the default one of its kind. Without one, a picture
   * that failed (`failed`: its error event, or a decode that did not succeed) loses its source, so that its box
   * shows the tinted placeholder (base.css, `data-svc-picture-failed`) rather than the browser's broken-picture
   * icon; nothing else is guessed without a default (a width of 0 is also an SVG without a size).
   * @param {HTMLImageElement} img @param {boolean} failed the picture is known not to load
   */
  #repairPicture(img, failed) {
    const fallback = this.#defaultPicture(img.dataset.svcPicture);
    if (!fallback) {
      const source = img.getAttribute("src");
      if (!failed || !source) return;
      img.dataset.svcPictureFailed = source;
      img.removeAttribute("srcset");
      img.removeAttribute("src");
      return;
    }
    if (img.src === fallback) return;
    const broken = failed || !img.getAttribute("src") || (img.complete && img.naturalWidth === 0 && img.currentSrc !== "");
    if (!broken) return;
    img.removeAttribute("srcset");
    delete img.dataset.svcPictureFailed;
    img.src = fallback;
    img.dataset.svcPictureDefault = "";
  }

  /** A placeholder (no picture at all) gets the default picture, filling its box. @param {HTMLElement} placeholder */
  #fillPlaceholder(placeholder) {
    const kind = placeholder.dataset.svcPictureFallback;
    const fallback = this.#defaultPicture(kind);
    const current = placeholder.querySelector(":scope > img[data-svc-picture-default]");
    if (!fallback) {
      current?.remove();
      return;
    }
    if (current instanceof HTMLImageElement) {
      if (current.src !== fallback) current.src = fallback;
      return;
    }
    const img = document.createElement("img");
    img.alt = "";
    img.src = fallback;
    img.decoding = "async";
    img.dataset.svcPictureDefault = "";
    img.style.cssText = "display:block;width:100%;height:100%;object-fit:cover";
    placeholder.append(img);
  }

  /** @param {HTMLElement} element */
  #labelDifficulty(element) {
    if (element.dataset.difficultyDefault === undefined) {
      if (this.difficultyLabels$.value?.size === 0) return; // nothing to change (and nothing to restore)
      element.dataset.difficultyDefault = element.textContent ?? "";
    }
    const label = this.difficultyLabels$.value?.get(Number(element.dataset.difficulty));
    const text = label ?? element.dataset.difficultyDefault;
    if (element.textContent !== text) element.textContent = text;
  }

  /** @param {HTMLAnchorElement} link */
  #route(link) {
    const key = ROUTE_KEYS[/** @type {keyof typeof ROUTE_KEYS} */ (link.dataset.svcRoute)];
    const url = key ? this.routes$.value?.[key] : undefined;
    if (!url) return;
    if (link.href !== url) link.href = url;
    if (link.hidden) {
      link.hidden = false;
      link.dataset.svcRouteShown = "";
    }
  }
}
