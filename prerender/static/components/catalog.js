// <svc-catalog>: the catalog pages (templates/catalog/*.html: header, home, category, list, favorites,
// my-space, basket preview), made interactive. Idempotent: defined once whatever the number of fragments
// loading this module. The server renders every page whole and every link works without this module; it adds:
//
// - analytics: the page's `pageview` (its `analytics-path`) unless the host's page has its meta path (the SDK
//   sends that one), `category.display` the first time a home row is half on screen, `preferences.display`
//   when the panel opens, `liked.display` on the favorites link;
// - "more": the next page of the list from the page's own route (`route` + `data-params`, the shopper's
//   credential), its cards appended in place, focus on the first new card;
// - the preferences panel: a modal dialog; saving (PUT /{v}/preferences) or clearing (DELETE) reloads the
//   customer's page, whose lists then follow the new preferences; `personalization="off"` drops the copy the
//   SDK keeps (`_<prefix>/supplier-<id>/preferences`);
// - favorites: a heart unpressed takes its card out of the list;
// - planner mode: "add to my menu" (POST /v2/menu/current/recipes), the host asked to log in when needed;
// - history and basket preview: "see the recipe" opens the drawer; the basket preview's remove button takes a
//   recipe out of the basket (the retailer cart follows through the basket sync) and the preview follows the
//   basket;
// - a logged-out shopper's "log in" asks the host (svc.planner.defineLoginRequired), which brings the shopper
//   back here after the login;
// - the toolbar's height while it sticks (catalog.css), on the root as --svc-catalog-toolbar-height: the list's
//   filter bar sticks under it, and focused controls scroll clear of it; the filter bar's and the basket
//   preview's footer's likewise (--svc-catalog-filters-height, --svc-catalog-footer-height), so that a focused
//   control does not hide under them (WCAG 2.4.11).
//
// The preferences panel and the basket preview are parts of their own, components/catalog/preferences.js and
// basket-preview.js (with what the preview counts, basket-counts.js), bundled into this module in the release tree.
import { sdk, services, parsedDocument, formsFromHolders, scriptedForms, keepSubmitsInside, isOutcomeUnknown, logFailure, revealFocusInRows, translator } from "./ui.js";
import { BasketPreview } from "./catalog/basket-preview.js";
import { PreferencesPanel } from "./catalog/preferences.js";

const tagName = `${sdk.prefix}-catalog`;
// The bars that stick to the top or the bottom of the viewport, and the custom property that holds each one's
// height while it sticks: what sticks under them, and the focused control scrolled into view, keep clear of them
// (catalog.css).
const STICKY_BARS = [
  [".svc-catalog__toolbar", "--svc-catalog-toolbar-height"],
  [".svc-catalog-list__filters", "--svc-catalog-filters-height"],
  [".svc-basket-preview__footer", "--svc-catalog-footer-height"],
];
const REMOVING_MS = 300;
/** Analytics paths already sent a pageview on this document (a header and a home on one page: one pageview). */
const sentPageviews = new Set();

/** @param {unknown} error */
function statusOf(error) {
  return /** @type {{ status?: number }} */ (error ?? {}).status;
}

/**
 * A catalog page's own route: its API version, path and parameters (`route` and `data-params` on its root).
 * @typedef {{ version: "v1" | "v2", path: string, params: Record<string, string | number | boolean> }} PageRoute
 */

export class CatalogElement extends HTMLElement {
  /** @type {AbortController | null} */
  #listeners = null;
  /** @type {{ unsubscribe(): void }[]} */
  #subscriptions = [];
  /** The preferences panel's dialog (made in connectedCallback, with the page's texts). @type {PreferencesPanel | null} */
  #preferences = null;
  /** @type {IntersectionObserver | null} */
  #rows = null;
  /** @type {ResizeObserver | null} */
  #stickyBars = null;
  /** The page's texts (its `data-texts`, filled by the server in the page's language). */
  #text = translator("fr");
  #busy = false;
  // Whether this page read the shopper's menu already (which makes it when there is none): `#addRecipeToMenu`.
  #menuRead = false;
  /** The basket preview's part, on that page only. @type {BasketPreview | null} */
  #basketPreview = null;

  get page() {
    return this.getAttribute("page") ?? "";
  }

  get apiVersion() {
    return this.getAttribute("api-version") === "v1" ? "v1" : "v2";
  }

  connectedCallback() {
    if (this.#listeners) return;
    this.#listeners = new AbortController();
    const { signal } = this.#listeners;
    /** @type {Record<string, string>} */
    let texts;
    try {
      texts = JSON.parse(this.dataset.texts ?? "{}");
    } catch {
      texts = {};
    }
    this.#text = translator(this.getAttribute("lang") ?? "fr", texts);
    formsFromHolders(this); // the search's form (templates/catalog/toolbar.html)
    scriptedForms(this); // the preferences panel's (templates/catalog/preferences.html)
    this.addEventListener("click", (event) => this.#onClick(event), { signal });
    revealFocusInRows(this, signal);
    const preferences = new PreferencesPanel(this, { text: this.#text, apiVersion: this.apiVersion });
    this.#preferences = preferences;
    this.addEventListener("submit", (event) => preferences.onSubmit(event), { signal });
    keepSubmitsInside(this, signal);
    this.addEventListener("input", (event) => preferences.onInput(event), { signal });

    if (this.getAttribute("personalization") === "off") preferences.forgetSaved();
    this.#pageview();
    if (this.page === "home") this.#watchRows();
    if (this.page === "favorites" || (this.page === "my-space" && this.getAttribute("tab") === "favorites")) {
      this.#followLikes();
    }
    if (this.page === "basket-preview") {
      this.#basketPreview = new BasketPreview(this, {
        text: this.#text,
        notify: (text, kind) => this.#notify(text, kind),
        askAgain: async () => {
          const route = this.#route();
          return route ? this.#askRoute(route) : null;
        },
      });
      this.#subscriptions.push(this.#basketPreview.follow());
    }
    this.#watchStickyBars();
    this.#subscriptions.push(preferences.askOnce());
    preferences.sayWhatWasSaved();
    this.toggleAttribute("hydrated", true);
  }

  disconnectedCallback() {
    this.#listeners?.abort();
    this.#listeners = null;
    for (const subscription of this.#subscriptions.splice(0)) subscription.unsubscribe();
    this.#preferences?.releaseScroll();
    this.#preferences = null;
    this.#rows?.disconnect();
    this.#rows = null;
    this.#stickyBars?.disconnect();
    this.#stickyBars = null;
  }

  /** While the toolbar (from 600px, catalog.css), the list's filter bar (under 768px, catalog-list.css) and the
   * basket preview's footer (basket-preview.css) stick, their heights on the root; 0 while they scroll away. The
   * root is watched too: its width decides whether they stick. */
  #watchStickyBars() {
    if (typeof ResizeObserver !== "function") return;
    const bars = STICKY_BARS.map(([selector, property]) => /** @type {const} */ ([this.querySelector(selector), property]));
    if (!bars.some(([bar]) => bar instanceof HTMLElement)) return;
    this.#stickyBars = new ResizeObserver(() => {
      for (const [bar, property] of bars) {
        const height = bar instanceof HTMLElement && getComputedStyle(bar).position === "sticky" ? bar.offsetHeight : 0;
        this.style.setProperty(property, `${height}px`);
      }
    });
    this.#stickyBars.observe(this);
    for (const [bar] of bars) if (bar instanceof HTMLElement) this.#stickyBars.observe(bar);
  }

  /** @param {string} text @param {"info" | "error"} [kind] */
  #notify(text, kind = "info") {
    if (text) services.notices.show(text, kind);
  }

  // --- analytics -------------------------------------------------------------------------------------

  #pageview() {
    const path = this.getAttribute("analytics-path");
    if (!path || sentPageviews.has(path)) return;
    if (document.querySelector(`meta[name="${sdk.prefix}-analytics-path"]`)) return; // the SDK sends that one
    sentPageviews.add(path);
    sdk.analytics.pageview(path);
  }

  #watchRows() {
    const rows = this.querySelectorAll(".svc-catalog__section[data-category-id]");
    if (rows.length === 0 || typeof IntersectionObserver !== "function") return;
    this.#rows = new IntersectionObserver((entries) => {
      for (const entry of entries) {
        if (!entry.isIntersecting) continue;
        const row = /** @type {HTMLElement} */ (entry.target);
        this.#rows?.unobserve(row);
        services.track("category.display", {
          category_id: row.dataset.categoryId ?? "",
          recipe_count: row.querySelectorAll("[data-recipe-id]").length,
        });
      }
    }, { threshold: 0.5 });
    for (const row of rows) this.#rows.observe(row);
  }

  // --- clicks ----------------------------------------------------------------------------------------

  /** @param {MouseEvent} event */
  #onClick(event) {
    const trigger = event.target instanceof Element ? event.target.closest("[data-action]") : null;
    if (!(trigger instanceof HTMLElement) || !this.contains(trigger)) return;
    // The cards handle their own actions (open-details, like): only those outside a card are ours.
    if (trigger.closest(`${sdk.prefix}-recipe-card`)) return;
    const action = trigger.dataset.action;
    const recipeId = trigger.dataset.recipeId ?? "";
    switch (action) {
      case "preferences":
        event.preventDefault();
        this.#preferences?.open(trigger);
        break;
      case "close":
        trigger.closest("dialog")?.close();
        break;
      case "reset":
        event.preventDefault();
        void this.#preferences?.clear(/** @type {HTMLButtonElement} */ (trigger));
        break;
      case "favorites":
        services.track("liked.display", {});
        break;
      case "load-more":
        event.preventDefault();
        void this.#loadMore(/** @type {HTMLAnchorElement} */ (trigger));
        break;
      case "add-to-menu":
        event.preventDefault();
        void this.#addToMenu(recipeId, /** @type {HTMLButtonElement} */ (trigger));
        break;
      case "open-details":
        event.preventDefault();
        sdk.recipes.openDetails(recipeId, undefined, {
          opener: trigger,
          source: "catalog",
          storeId: this.getAttribute("store-id") ?? undefined,
        }).catch(() => {}); // the drawer shows the failure
        break;
      case "remove-recipe":
        event.preventDefault();
        void this.#basketPreview?.remove(recipeId, /** @type {HTMLButtonElement} */ (trigger));
        break;
      case "login":
        event.preventDefault();
        if (!services.planner.require("login", window.location.href)) {
          this.#notify(this.querySelector('[data-role="login-required"] .svc-catalog__empty-text')?.textContent ?? "");
        }
        break;
      default:
        break;
    }
  }

  // --- more ------------------------------------------------------------------------------------------

  /** The page's route and parameters, for asking it again (null: the page has none). @returns {PageRoute | null} */
  #route() {
    const route = this.getAttribute("route");
    if (!route) return null;
    /** @type {Record<string, string | number | boolean>} */
    let params;
    try {
      params = JSON.parse(this.dataset.params ?? "{}");
    } catch {
      params = {};
    }
    const storeId = this.getAttribute("store-id");
    if (storeId) params.store_id = storeId;
    const [, version, ...rest] = route.split("/");
    /** @type {"v1" | "v2"} */
    const apiVersion = version === "v1" ? "v1" : "v2";
    return { version: apiVersion, path: `/${rest.join("/")}`, params };
  }

  /**
   * The page asked again from its route (the shopper's credential), with `changes` to its parameters, as a document.
   * @param {PageRoute} route @param {Record<string, string | number>} [changes]
   */
  async #askRoute(route, changes = {}) {
    /** @type {Record<string, string>} */
    const query = {};
    for (const [name, value] of Object.entries({ ...route.params, ...changes })) query[name] = String(value);
    const { body } = await services.client.request("GET", route.path, { query, as: "page", version: route.version });
    return parsedDocument(String(body));
  }

  /** @param {HTMLAnchorElement} link */
  async #loadMore(link) {
    const route = this.#route();
    const page = Number.parseInt(link.dataset.page ?? "", 10);
    const list = this.querySelector('[data-role="results"]');
    // A second press while a page is being added is the same press (a double click): not a navigation to the
    // next page, which dropped the list and sent a second pageview.
    if (this.#busy) return;
    if (!route || !Number.isInteger(page) || !list) {
      window.location.assign(link.href);
      return;
    }
    this.#busy = true;
    link.setAttribute("aria-busy", "true");
    list.classList.add("svc-catalog-list--loading");
    try {
      const next = await this.#askRoute(route, { page });
      const items = [...next.querySelectorAll('[data-role="results"] > li')];
      const known = new Set([...list.querySelectorAll(":scope > li[data-recipe-id]")].map((li) => li.getAttribute("data-recipe-id")));
      const added = items.filter((li) => !known.has(li.getAttribute("data-recipe-id")));
      for (const item of added) list.append(document.importNode(item, true));
      const pagination = this.querySelector('[data-role="pagination"]');
      const nextPagination = next.querySelector('[data-role="pagination"] [data-action="load-more"]');
      if (nextPagination instanceof HTMLAnchorElement) {
        link.href = nextPagination.getAttribute("href") ?? link.href;
        link.dataset.page = nextPagination.dataset.page ?? String(page + 1);
      } else {
        pagination?.querySelector(".svc-catalog__load-more")?.remove();
        // The last page a shopper may reach, with more that match: its sentence saying so comes along.
        const listedAtMost = next.querySelector('[data-role="listed-at-most"]');
        if (listedAtMost && !this.querySelector('[data-role="listed-at-most"]')) {
          (pagination ?? list).after(document.importNode(listedAtMost, true));
        }
      }
      const first = /** @type {HTMLElement | null} */ (
        added.length ? list.querySelector(`:scope > li[data-recipe-id="${CSS.escape(added[0].getAttribute("data-recipe-id") ?? "")}"] .svc-recipe-card__title-button`) : null);
      first?.focus();
    } catch (error) {
      logFailure(sdk.prefix, "catalog: the next page could not be loaded", error);
      this.#notify(this.#text("CATALOG.LOAD_FAILED"), "error");
    } finally {
      this.#busy = false;
      link.removeAttribute("aria-busy");
      list.classList.remove("svc-catalog-list--loading");
    }
  }

  // --- favorites -------------------------------------------------------------------------------------

  /** A heart unpressed on the favorites page takes its card out (the server lists what is liked). */
  #followLikes() {
    this.#subscriptions.push(services.likes.liked$.subscribe((/** @type {ReadonlyMap<string, boolean>} */ states) => {
      for (const [recipeId, liked] of states) {
        if (liked) continue;
        const cell = this.querySelector(`[data-role="results"] > li[data-recipe-id="${CSS.escape(recipeId)}"]`);
        if (!(cell instanceof HTMLElement) || cell.classList.contains("svc-catalog-favorites__item--removing")) continue;
        const title = cell.querySelector(".svc-recipe-card__title-text")?.textContent?.trim() ?? "";
        cell.classList.add("svc-catalog-favorites__item--removing");
        setTimeout(() => {
          const next = /** @type {HTMLElement | null} */ (cell.nextElementSibling ?? cell.previousElementSibling);
          const hadFocus = cell.contains(document.activeElement);
          cell.remove();
          this.#countChanged(-1);
          // The next card's title, else (the last card left) the page's heading: never the page's body.
          if (hadFocus) (/** @type {HTMLElement | null} */ (next?.querySelector(".svc-recipe-card__title-button")) ?? this.#heading())?.focus();
        }, REMOVING_MS);
        this.#notify(this.#text("CATALOG_MY_SPACE.REMOVED", { title }));
      }
    }));
  }

  /** The catalog's first heading, made focusable by script (where the focus goes when its place is gone). */
  #heading() {
    const heading = /** @type {HTMLElement | null} */ (this.querySelector("h1, h2"));
    heading?.setAttribute("tabindex", "-1");
    return heading;
  }

  /** @param {number} delta */
  #countChanged(delta) {
    for (const count of this.querySelectorAll(".svc-catalog-favorites__count, .svc-my-space__tab--active .svc-my-space__tab-count")) {
      const node = count.firstChild;
      const value = Number.parseInt(node?.textContent ?? "", 10);
      if (!node || !Number.isInteger(value)) continue;
      const now = Math.max(0, value + delta);
      node.textContent = String(now);
      // The unit a screen reader hears after the number, in the number's plural ("1 recette", "2 recettes").
      const unit = count.querySelector("[data-role='count-unit']");
      if (unit) unit.textContent = ` ${this.#text("CATALOG_FAVORITES.COUNT_UNIT", { count: now })}`;
    }
    const list = this.querySelector('[data-role="results"]');
    if (list && list.querySelectorAll(":scope > li").length === 0) {
      /** @type {HTMLElement} */ (list).hidden = true;
      const empty = this.querySelector('[data-role="empty"]');
      if (empty instanceof HTMLElement) empty.hidden = false;
    }
  }

  // --- planner mode ----------------------------------------------------------------------------------

  /** @param {string} recipeId @param {HTMLButtonElement} button */
  async #addToMenu(recipeId, button) {
    if (!recipeId || button.disabled) return;
    button.disabled = true;
    const title = button.closest("li")?.querySelector(".svc-recipe-card__title-text")?.textContent?.trim() ?? "";
    try {
      await this.#addRecipeToMenu(recipeId);
    } catch (error) {
      // Every try went unanswered: the add may have been made (its key made it once at most). The menu says.
      if (!isOutcomeUnknown(error) || !(await this.#menuHolds(recipeId))) {
        button.disabled = false;
        if (statusOf(error) === 403 && services.planner.require("login", window.location.href)) return;
        logFailure(sdk.prefix, "catalog: the recipe could not be added to the menu", error);
        this.#notify(this.#text("PLANNER_PAGE.FAILED"), "error");
        return;
      }
    }
    services.planner.menuChanged(services.pos.current);
    services.track("planner.add", { recipe_id: recipeId, source: "catalog" });
    const label = button.querySelector('[data-role="label"]');
    if (label) label.textContent = this.#text("PLANNER_PAGE.IN_MENU");
    button.closest("li")?.classList.add("svc-catalog__item--added");
    this.#notify(this.#text("PLANNER_PAGE.ADDED", { title }));
  }

  /**
   * The recipe into the shopper's menu. A menu is made by its first read, and a shopper who never opened the planner
   * has none (an add would answer 404, an error in the console of every new shopper): the page's first add reads
   * the menu first, `from=scratch` (an empty one for a shopper without, not one filled with suggestions) and without
   * `store_id` (an existing menu is not moved; the planner prices it at its store). A menu done meanwhile elsewhere
   * (finalized: the add's 404) is read again the same way, and the recipe added once more.
   * @param {string} recipeId
   */
  async #addRecipeToMenu(recipeId) {
    const add = () => services.menuRoutes.addRecipe(recipeId);
    if (!this.#menuRead) await this.#readMenu();
    try {
      await add();
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
      await this.#readMenu();
      await add();
    }
  }

  /**
   * The shopper's menu, made when there is none: `from=scratch` (an empty one, not one filled with suggestions),
   * without `store_id` (reading the menu at a store would move it there).
   * @returns {Promise<{ recipes?: { id?: unknown }[] } | null>}
   */
  async #readMenu() {
    const menu = await services.menuRoutes.read({ from: "scratch" });
    this.#menuRead = true;
    return menu;
  }

  /**
   * Whether the shopper's menu holds the recipe now; false when it cannot be read.
   * @param {string} recipeId
   */
  async #menuHolds(recipeId) {
    try {
      const menu = await this.#readMenu();
      return (menu?.recipes ?? []).some((recipe) => String(recipe.id) === recipeId);
    } catch {
      return false;
    }
  }
}

if (!customElements.get(tagName)) customElements.define(tagName, CatalogElement);
