// The planner page's left panel (templates/planner/current_menu.html, `[data-role='panel-items']`; the page is
// components/planner.js): the suggestions as the server rendered them, or the catalog for the type chips and
// the search (`GET /v2/planner/recipes`, the menu's recipes left out), page after page; and which of them are
// already in the menu (their "add" button disabled, labelled "in the menu").
import { inertFragment } from "./ui.js";

// The most recipes `GET /v2/planner/recipes` draws again in one call (MAX_PANEL_RECIPE_IDS, prerender/schemas/menus.py).
const MAX_RECIPE_IDS = 100;

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
  /** The suggestions as rendered, held inert (a template's content), to come back to after the catalog. */
  #suggestions = inertCopy([]);

  /** @param {HTMLElement} root the `<svc-planner>` element @param {PanelHost} host */
  constructor(root, host) {
    this.#root = root;
    this.#host = host;
  }

  /** Keeps the suggestions as rendered (at hydration). */
  remember() {
    this.#suggestions = inertCopy(this.#items()?.children ?? []);
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
    if (!this.filtering()) {
      this.backToSuggestions();
      return;
    }
    const moreButton = this.#moreButton();
    const page = more ? Number(moreButton?.dataset.page ?? "1") + 1 : 1;
    const grid = this.#items();
    grid?.closest(".svc-catalog-list")?.classList.add("svc-catalog-list--loading");
    try {
      const { html, hasMore } = await this.#host.fetchHtml("/planner/recipes", this.#catalogQuery(page));
      if (!grid) return;
      const items = inertFragment(html);
      const firstNew = items.firstElementChild;
      if (more) grid.append(...items.childNodes);
      else grid.replaceChildren(...items.childNodes);
      this.#showedCatalog(page, hasMore);
      if (more && firstNew instanceof HTMLElement) firstNew.querySelector("button")?.focus();
      // What a screen reader hears of the search: how many recipes, or that none matches.
      const count = grid.children.length;
      this.#host.status(count ? this.#host.text("RESULTS", { count }) : this.#host.text("NO_RESULTS"));
    } finally {
      grid?.closest(".svc-catalog-list")?.classList.remove("svc-catalog-list--loading");
    }
  }

  /**
   * The menu's guests changed: the panel's cards, labelled and priced for the guests they were drawn for, are
   * drawn again for the page's `guests`, the same recipes in the same order (`GET /v2/planner/recipes` with
   * their `recipe_ids`): the cards shown, and the suggestions kept for later while the catalog shows. A recipe
   * the store no longer shows leaves; a failure leaves the cards as they were (the caller logs it).
   */
  async followGuests() {
    const grid = this.#items();
    if (!grid) return;
    const shown = recipeIds(grid);
    const kept = this.filtering() ? recipeIds(this.#suggestions) : shown;
    const wanted = [...new Set([...shown, ...kept])];
    /** @type {Map<string, Element>} */
    const drawn = new Map();
    for (let start = 0; start < wanted.length; start += MAX_RECIPE_IDS) {
      const query = {
        recipe_ids: wanted.slice(start, start + MAX_RECIPE_IDS).join(","),
        store_id: this.#root.getAttribute("store-id"),
        guests: this.#root.getAttribute("guests"),
      };
      const { html } = await this.#host.fetchHtml("/planner/recipes", query);
      for (const item of inertFragment(html).children) drawn.set(/** @type {HTMLElement} */ (item).dataset.recipeId ?? "", item);
    }
    /** @param {string[]} ids */
    const itemsOf = (ids) => ids.flatMap((id) => (drawn.has(id) ? [/** @type {Element} */ (drawn.get(id)).cloneNode(true)] : []));
    const suggestions = document.createElement("template");
    suggestions.content.append(...itemsOf(kept));
    this.#suggestions = suggestions.content;
    // A card's control that has the focus (another tab changed the guests) has it again in the new card.
    const focused = focusedControl(grid);
    if (this.filtering()) {
      grid.replaceChildren(...itemsOf(shown));
      this.#markMenu();
      this.#root.querySelector("[data-role='panel-empty']")?.toggleAttribute("hidden", grid.children.length > 0);
    } else {
      this.showSuggestions();
    }
    if (focused) {
      const item = grid.querySelector(`.svc-planner__suggestion[data-recipe-id="${CSS.escape(focused.recipeId)}"]`);
      const control = item?.querySelectorAll("button, a[href], input")[focused.index];
      if (control instanceof HTMLElement && !control.matches(":disabled")) control.focus();
    }
  }

  /**
   * The shopper left the catalog (the last chip released, or "Annuler"): the suggestions again, and the page's
   * status says so, with how many (the list changed under a screen reader's cursor without a word).
   */
  backToSuggestions() {
    this.showSuggestions();
    const count = this.#items()?.children.length ?? 0;
    this.#host.status(count ? this.#host.text("SUGGESTIONS_SHOWN", { count }) : this.#host.text("NO_SUGGESTIONS"));
  }

  /**
   * "Annuler": the suggestions again, and the focus, which was on the button that now hides, in the emptied
   * search field (it fell to the host page's <body>).
   */
  cancelSearch() {
    this.backToSuggestions();
    /** @type {HTMLInputElement | null} */ (this.#root.querySelector(".svc-planner__search-input"))?.focus();
  }

  /** The suggestions again: the chips released, the search emptied, the menu's recipes marked. */
  showSuggestions() {
    const root = this.#root;
    for (const chip of root.querySelectorAll("[data-action='filter']")) chip.setAttribute("aria-pressed", "false");
    const input = /** @type {HTMLInputElement | null} */ (root.querySelector(".svc-planner__search-input"));
    if (input) input.value = "";
    const grid = this.#items();
    grid?.replaceChildren(document.importNode(this.#suggestions, true));
    this.#markMenu();
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

  /** The menu's recipes that the panel shows say "in the menu". */
  #markMenu() {
    for (const row of this.#root.querySelectorAll(".svc-planner__menu-item")) this.markAdded(/** @type {HTMLElement} */ (row).dataset.recipeId ?? "");
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

  /**
   * The catalog's query for the pressed chips and the search: the menu's recipes left out, priced at the menu's
   * store for its guests. @param {number} page
   */
  #catalogQuery(page) {
    const root = this.#root;
    const exclude = [...root.querySelectorAll(".svc-planner__menu-item")].map((row) => /** @type {HTMLElement} */ (row).dataset.recipeId);
    return {
      recipe_type_id: this.#types().join(","),
      search: this.#searchText(),
      page,
      store_id: root.getAttribute("store-id"),
      guests: root.getAttribute("guests"),
      exclude_ids: exclude.join(","),
    };
  }

  /** The catalog shows, `pages` of it: its "more", title and "no results" follow. @param {number} pages @param {boolean} hasMore */
  #showedCatalog(pages, hasMore) {
    const moreButton = this.#moreButton();
    if (moreButton) {
      moreButton.dataset.page = String(pages);
      moreButton.hidden = !hasMore;
    }
    this.#setTitle(true);
    const empty = this.#root.querySelector("[data-role='panel-empty']");
    if (empty) {
      empty.textContent = this.#host.text("NO_RESULTS");
      empty.toggleAttribute("hidden", (this.#items()?.children.length ?? 0) > 0);
    }
  }

  /** @returns {HTMLButtonElement | null} */
  #moreButton() {
    return this.#root.querySelector("[data-action='more']");
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

/** The recipes of the panel's items, in order. @param {ParentNode} items @returns {string[]} */
function recipeIds(items) {
  return [...items.querySelectorAll(".svc-planner__suggestion[data-recipe-id]")].map((item) => /** @type {HTMLElement} */ (item).dataset.recipeId ?? "");
}

/**
 * A copy of `nodes` held inert: in a template's content, where no custom element upgrades and nothing loads;
 * `document.importNode` brings it back into the page.
 * @param {Iterable<Node>} nodes @returns {DocumentFragment}
 */
function inertCopy(nodes) {
  const template = document.createElement("template");
  const owner = template.content.ownerDocument;
  template.content.append(...[...nodes].map((node) => owner.importNode(node, true)));
  return template.content;
}

/**
 * The panel's control that has the focus: its item's recipe and its place among the item's controls.
 * @param {Element} grid @returns {{ recipeId: string, index: number } | null}
 */
function focusedControl(grid) {
  const active = document.activeElement;
  const item = active && grid.contains(active) ? active.closest(".svc-planner__suggestion[data-recipe-id]") : null;
  if (!active || !item) return null;
  const index = [...item.querySelectorAll("button, a[href], input")].indexOf(active);
  return index < 0 ? null : { recipeId: item.getAttribute("data-recipe-id") ?? "", index };
}

/** The visible label of a button (its [data-role=label]; the hidden recipe title stays). @param {HTMLElement} button @param {string} text */
function setLabel(button, text) {
  const label = button.querySelector("[data-role='label']");
  if (label) label.textContent = text;
  else button.textContent = text;
}
