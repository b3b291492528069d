// The planner page's menu parts drawn again (components/planner.js; bundled into it in the release tree): after
// each action the page takes its parts ([data-part]: the budget, the menu panel, the quick menu) again from its
// own route and puts them in place, the focus kept on the same control, the product lists the shopper opened kept
// open; and the guests stepper's buttons marked at the menu's bounds.
import { inertFragment, scriptedForms, atBound, validGuestCount, GUESTS_MIN, GUESTS_MAX } from "../ui.js";

// The guests the page shows when the element's own are not a count (never drawn so by the server).
export const DEFAULT_GUESTS = 4;

/**
 * What the parts ask of their page.
 * @typedef {object} PartsHost
 * @property {() => Promise<{ html: string }>} fetchPage the page's route without its left panel, for the shopper
 */

export class PlannerParts {
  #root;
  #host;

  /** @param {HTMLElement} root the `<svc-planner>` element @param {PartsHost} host */
  constructor(root, host) {
    this.#root = root;
    this.#host = host;
  }

  /**
   * Takes the menu's parts again from the page's route and puts them in place. The focus goes back to the
   * same control of the new markup (by its action and recipe), or to `focus` when given; `keepTyped`: the text
   * field that has the focus keeps what the shopper typed.
   * @param {{ focus?: string, keepTyped?: boolean }} [options]
   */
  async refresh({ focus, keepTyped = false } = {}) {
    const root = this.#root;
    const active = /** @type {HTMLElement | null} */ (document.activeElement);
    const wasInside = active && root.contains(active) && active.closest("[data-part]");
    const again = focus ?? (wasInside ? selectorOf(active) : null);
    // Drawn for another tab, what the shopper was typing (the budget) is still theirs: it stays in the field.
    const typed = keepTyped && wasInside && active instanceof HTMLInputElement && active.type === "text" ? active.value : null;
    const page = inertFragment((await this.#host.fetchPage()).html);
    const fresh = page.querySelector(`.svc-planner`);
    if (!fresh) return;
    // The page could not be read (the upstream failed): nothing to put in place, the action's failure says so.
    if (fresh.hasAttribute("retry")) throw new Error("the planner page is in its try-again state");
    // The product lists the shopper opened stay open.
    const opened = [...root.querySelectorAll(".svc-planner__menu-item .svc-planner__products[open]")]
      .map((details) => /** @type {HTMLElement | null} */ (details.closest("[data-recipe-id]"))?.dataset.recipeId);
    for (const recipeId of opened) {
      if (recipeId) fresh.querySelector(`.svc-planner__menu-item[data-recipe-id="${CSS.escape(recipeId)}"] .svc-planner__products`)?.setAttribute("open", "");
    }
    for (const part of [...root.querySelectorAll("[data-part]")]) {
      const name = /** @type {HTMLElement} */ (part).dataset.part;
      const replacement = fresh.querySelector(`[data-part="${name}"]`);
      if (replacement) part.replaceWith(replacement);
    }
    scriptedForms(root); // the budget's form, in its part (templates/planner/budget.html)
    for (const name of ["guests", "store-id", "menu-id"]) {
      const value = fresh.getAttribute(name);
      if (value === null) root.removeAttribute(name);
      else root.setAttribute(name, value);
    }
    this.stepperBounds();
    if (again) {
      // A stepper's button at its bound keeps the focus (aria-disabled: stepperBounds).
      let target = /** @type {HTMLElement | null} */ (root.querySelector(again));
      target ??= /** @type {HTMLElement | null} */ (root.querySelector(".svc-planner__menu .svc-planner__panel-title"));
      if (target && !target.hasAttribute("tabindex") && !target.matches("button, input, a, summary")) target.setAttribute("tabindex", "-1");
      if (typed !== null && target instanceof HTMLInputElement && target.type === "text") target.value = typed;
      target?.focus({ preventScroll: false });
    }
  }

  /** The menu's guests as drawn. */
  guests() {
    return validGuestCount(this.#root.getAttribute("guests")) ?? DEFAULT_GUESTS;
  }

  /** The guests stepper's buttons at the menu's bounds: aria-disabled, not disabled (they keep the focus). */
  stepperBounds() {
    const guests = this.guests();
    atBound(this.#root.querySelector(".svc-planner__menu [data-action='guests-decrease']"), guests <= GUESTS_MIN);
    atBound(this.#root.querySelector(".svc-planner__menu [data-action='guests-increase']"), guests >= GUESTS_MAX);
  }
}

/** A selector finding the same control in new markup: its action, within its recipe. @param {HTMLElement} element */
function selectorOf(element) {
  const action = element.dataset.action ?? element.closest("[data-action]")?.getAttribute("data-action");
  const recipe = /** @type {HTMLElement | null} */ (element.closest("[data-recipe-id]"))?.dataset.recipeId;
  const product = element.dataset.productId;
  if (element.id) return `#${CSS.escape(element.id)}`;
  if (element.matches(".svc-planner__products-toggle") && recipe) {
    return `[data-recipe-id="${CSS.escape(recipe)}"] .svc-planner__products-toggle`;
  }
  if (!action) return null;
  const own = product ? `[data-action="${action}"][data-product-id="${CSS.escape(product)}"]` : `[data-action="${action}"]`;
  return recipe ? `[data-recipe-id="${CSS.escape(recipe)}"] ${own}` : own;
}
