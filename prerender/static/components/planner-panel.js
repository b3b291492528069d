// The planner page's left panel (templates/planner/current_menu.html, `[data-role='panel-items']`; the page is
// components/planner.js): the suggestions as the server rendered them, or the catalog for the type chips and
// the search (`GET /v2/planner/recipes`, the menu's recipes left out), page after page; and which of them are
// already in the menu (their "add" button disabled, labelled "in the menu").
import { inertFragment } from "./ui.js";

/**
 * What the panel asks of its page.
 * @typedef {object} PanelHost
 * @property {(path: string, query: Record<string, string | number | null | undefined>) => Promise<{ html: string, hasMore: boolean }>} fetchHtml
 *   one of the page's HTML routes, with the shopper's credential
 * @property {(key: string, params?: Record<string, string | number>) => string} text one of the page's texts
 * @property {(text: string) => void} status a polite announcement
 */

export class PlannerPanel {
  #root;
  #host;
  /** The suggestions as rendered, to come back to after the catalog. */
  #suggestionsHtml = "";

  /** @param {HTMLElement} root the `<svc-planner>` element @param {PanelHost} host */
  constructor(root, host) {
    this.#root = root;
    this.#host = host;
  }

  /** Keeps the suggestions as rendered (at hydration). */
  remember() {
    this.#suggestionsHtml = this.#items()?.innerHTML ?? "";
  }

  /** Whether the panel shows the catalog (a type chip pressed, or a search), not the suggestions. */
  filtering() {
    return this.#types().length > 0 || this.#searchText() !== "";
  }

  /**
   * The catalog for the pressed chips and the search: its first page, or the next one (`more`); the
   * suggestions again when neither is set.
   * @param {{ more: boolean }} options
   */
  async load({ more }) {
    const types = this.#types();
    const searchText = this.#searchText();
    if (types.length === 0 && !searchText) {
      this.showSuggestions();
      return;
    }
    const root = this.#root;
    const moreButton = /** @type {HTMLButtonElement | null} */ (root.querySelector("[data-action='more']"));
    const page = more ? Number(moreButton?.dataset.page ?? "1") + 1 : 1;
    const exclude = [...root.querySelectorAll(".svc-planner__menu-item")].map((row) => /** @type {HTMLElement} */ (row).dataset.recipeId);
    const query = {
      recipe_type_id: types.join(","),
      search: searchText,
      page,
      store_id: root.getAttribute("store-id"),
      guests: root.getAttribute("guests"),
      exclude_ids: exclude.join(","),
    };
    const grid = this.#items();
    grid?.closest(".svc-catalog-list")?.classList.add("svc-catalog-list--loading");
    try {
      const { html, hasMore } = await this.#host.fetchHtml("/planner/recipes", query);
      if (!grid) return;
      const items = inertFragment(html);
      const firstNew = items.firstElementChild;
      if (more) grid.append(...items.childNodes);
      else grid.replaceChildren(...items.childNodes);
      if (moreButton) {
        moreButton.dataset.page = String(page);
        moreButton.hidden = !hasMore;
      }
      this.#setTitle(true);
      const empty = root.querySelector("[data-role='panel-empty']");
      if (empty) {
        empty.textContent = this.#host.text("NO_RESULTS");
        empty.toggleAttribute("hidden", grid.children.length > 0);
      }
      if (more && firstNew instanceof HTMLElement) firstNew.querySelector("button")?.focus();
      // What a screen reader hears of the search: how many recipes, or that none matches.
      const count = grid.children.length;
      this.#host.status(count ? this.#host.text("RESULTS", { count }) : this.#host.text("NO_RESULTS"));
    } finally {
      grid?.closest(".svc-catalog-list")?.classList.remove("svc-catalog-list--loading");
    }
  }

  /** The suggestions again: the chips released, the search emptied, the menu's recipes marked. */
  showSuggestions() {
    const root = this.#root;
    for (const chip of root.querySelectorAll("[data-action='filter']")) chip.setAttribute("aria-pressed", "false");
    const input = /** @type {HTMLInputElement | null} */ (root.querySelector(".svc-planner__search-input"));
    if (input) input.value = "";
    const grid = this.#items();
    if (grid) grid.innerHTML = this.#suggestionsHtml;
    for (const row of root.querySelectorAll(".svc-planner__menu-item")) this.markAdded(/** @type {HTMLElement} */ (row).dataset.recipeId ?? "");
    const moreButton = /** @type {HTMLElement | null} */ (root.querySelector("[data-action='more']"));
    if (moreButton) moreButton.hidden = true;
    const empty = root.querySelector("[data-role='panel-empty']");
    if (empty) empty.toggleAttribute("hidden", (grid?.children.length ?? 0) > 0);
    this.#setTitle(false);
  }

  /** A recipe of the panel is in the menu. @param {string} recipeId */
  markAdded(recipeId) {
    this.#mark(recipeId, true);
  }

  /** A recipe of the panel left the menu. @param {string} recipeId */
  unmarkAdded(recipeId) {
    this.#mark(recipeId, false);
  }

  /** @param {string} recipeId @param {boolean} added */
  #mark(recipeId, added) {
    const item = this.#root.querySelector(`.svc-planner__suggestion[data-recipe-id="${CSS.escape(recipeId)}"]`);
    if (!item) return;
    item.classList.toggle("svc-planner__suggestion--added", added);
    const button = /** @type {HTMLButtonElement | null} */ (item.querySelector("[data-action='add']"));
    if (button) {
      button.disabled = added;
      setLabel(button, this.#host.text(added ? "IN_MENU" : "ADD"));
    }
  }

  /** @param {boolean} catalog */
  #setTitle(catalog) {
    const title = /** @type {HTMLElement | null} */ (this.#root.querySelector("[data-role='panel-title']"));
    if (title) title.textContent = (catalog ? title.dataset.catalog : title.dataset.suggestions) ?? title.textContent;
    this.#root.querySelector("[data-action='suggestions']")?.toggleAttribute("hidden", !catalog);
  }

  #types() {
    return [...this.#root.querySelectorAll("[data-action='filter'][aria-pressed='true']")]
      .map((chip) => /** @type {HTMLButtonElement} */ (chip).value);
  }

  #searchText() {
    return (/** @type {HTMLInputElement | null} */ (this.#root.querySelector(".svc-planner__search-input"))?.value ?? "").trim();
  }

  #items() {
    return this.#root.querySelector("[data-role='panel-items']");
  }
}

/** The visible label of a button (its [data-role=label]; the hidden recipe title stays). @param {HTMLElement} button @param {string} text */
function setLabel(button, text) {
  const label = button.querySelector("[data-role='label']");
  if (label) label.textContent = text;
  else button.textContent = text;
}
