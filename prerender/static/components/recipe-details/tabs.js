// The recipe details' tabs (templates/recipe_details/details.html: "Courses" and "Cuisine"), as the ARIA tabs
// pattern has them: one tab selected and in the tab order, its panel shown; the arrow keys, Home and End move
// between tabs. A part of components/recipe-details.js (bundled into it in the release tree).

export class Tabs {
  #root;
  /** @type {HTMLElement[]} */
  #tabs;

  /**
   * @param {HTMLElement} root the element holding the tabs (`[role='tab']`) and their panels
   * @param {number} [restoreIndex] the tab to select, from the previous fragment of the same recipe
   */
  constructor(root, restoreIndex) {
    this.#root = root;
    this.#tabs = /** @type {HTMLElement[]} */ ([...root.querySelectorAll("[role='tab']")]);
    if (this.#tabs.length === 0) return;
    const selected = this.#tabs[restoreIndex ?? -1]
      ?? this.#tabs.find((tab) => tab.getAttribute("aria-selected") === "true") ?? this.#tabs[0];
    this.select(selected, false);
  }

  /** The index of the selected tab (-1 without tabs). */
  get selectedIndex() {
    return this.#tabs.findIndex((tab) => tab.getAttribute("aria-selected") === "true");
  }

  /** Selects `tab` and shows its panel. @param {HTMLElement} tab @param {boolean} focus */
  select(tab, focus) {
    this.#tabs.forEach((other, index) => {
      const selected = other === tab;
      other.setAttribute("aria-selected", String(selected));
      other.tabIndex = selected ? 0 : -1;
      const panel = this.#panelOf(other, index);
      if (panel) panel.hidden = !selected;
    });
    if (focus) tab.focus();
  }

  /**
   * A key pressed on a tab: the arrows, Home and End select (and focus) another. Whether it was one of them.
   * @param {KeyboardEvent} event
   */
  onKeydown(event) {
    const target = event.target instanceof HTMLElement ? event.target : null;
    const index = target ? this.#tabs.indexOf(target) : -1;
    if (index === -1) return false;
    const last = this.#tabs.length - 1;
    const next = { ArrowRight: index === last ? 0 : index + 1, ArrowLeft: index === 0 ? last : index - 1, Home: 0, End: last }[event.key];
    if (next === undefined) return false;
    event.preventDefault();
    this.select(this.#tabs[next], true);
    return true;
  }

  /** @param {HTMLElement} tab @param {number} index */
  #panelOf(tab, index) {
    const id = tab.getAttribute("aria-controls");
    const byId = id ? this.#root.querySelector(`#${CSS.escape(id)}`) : null;
    return /** @type {HTMLElement | null} */ (byId ?? this.#root.querySelectorAll("[role='tabpanel']")[index] ?? null);
  }
}
