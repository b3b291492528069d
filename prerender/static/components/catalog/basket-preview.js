// The basket preview of the catalog (templates/catalog/basket_preview.html, `<svc-catalog page="basket-preview">`):
// it follows the basket (a recipe removed elsewhere leaves, the guests, prices, total and summary follow, and a
// recipe it has no row for, added in another tab or on another device, has the preview asked again from its route
// and drawn anew), and its remove buttons take a recipe out of the basket (the retailer cart follows through the
// basket sync). A part of components/catalog.js (bundled into it in the release tree).
import { sdk, services, logFailure, money, linesPrice } from "../ui.js";
import { soldLines, soldProducts } from "./basket-counts.js";

export class BasketPreview {
  #root;
  #text;
  #notify;
  #askAgain;
  /** The preview is being asked again (`#redraw`), and for which missing recipes it last was. */
  #redrawing = false;
  #redrawnFor = "";

  /**
   * @param {HTMLElement} root the page's `<svc-catalog>`
   * @param {object} deps
   * @param {(key: string, params?: Record<string, string | number>) => string} deps.text the page's texts
   * @param {(text: string, kind?: "info" | "error") => void} deps.notify tells the shopper
   * @param {() => Promise<Document | null>} deps.askAgain the page from its route again (null: it has none)
   */
  constructor(root, { text, notify, askAgain }) {
    this.#root = root;
    this.#text = text;
    this.#notify = notify;
    this.#askAgain = askAgain;
  }

  /** Follows the basket from now on; the subscription to end when the page leaves. */
  follow() {
    sdk.basket.initialize().catch(() => {}); // the page stays as the server made it
    return sdk.basket.basket$.subscribe((/** @type {any} */ basket) => {
      if (!basket || !Array.isArray(basket.recipes)) return;
      this.#show(basket);
      const rows = new Set([...this.#rows()].map((item) => item.getAttribute("data-recipe-id")));
      const missing = basket.recipes.map((/** @type {any} */ entry) => String(entry.recipe_id)).filter((/** @type {string} */ id) => !rows.has(id));
      if (missing.length > 0) void this.#redraw(missing.sort().join(" "));
    });
  }

  /** Takes a recipe out of the basket from its row's button. @param {string} recipeId @param {HTMLButtonElement} button */
  async remove(recipeId, button) {
    if (!recipeId || button.disabled) return;
    const item = button.closest("li");
    const title = item?.querySelector(".svc-basket-preview__recipe-title")?.textContent?.trim() ?? "";
    button.disabled = true;
    item?.setAttribute("aria-busy", "true");
    try {
      await services.basket.removeRecipe(recipeId);
      const next = /** @type {HTMLElement | null} */ (item?.nextElementSibling ?? item?.previousElementSibling ?? null);
      item?.remove();
      const status = this.#root.querySelector('[data-role="status"]');
      if (status) status.textContent = this.#text("CATALOG_BASKET_PREVIEW.REMOVED", { title });
      const heading = /** @type {HTMLElement | null} */ (this.#root.querySelector("h2"));
      heading?.setAttribute("tabindex", "-1");
      (/** @type {HTMLElement | null} */ (next?.querySelector('[data-action="remove-recipe"]')) ?? heading)?.focus();
    } catch (error) {
      logFailure(sdk.prefix, "catalog: the recipe could not be removed from the basket", error);
      button.disabled = false;
      item?.removeAttribute("aria-busy");
      this.#notify(this.#text("CATALOG_BASKET_PREVIEW.REMOVE_FAILED"), "error");
    }
  }

  #rows() {
    return this.#root.querySelectorAll('[data-role="results"] > li[data-recipe-id]');
  }

  /** The preview's rows, total and summary as `basket` is now. @param {any} basket */
  #show(basket) {
    const entries = new Map(basket.recipes.map((/** @type {any} */ r) => [String(r.recipe_id), r]));
    for (const item of this.#rows()) {
      const entry = entries.get(item.getAttribute("data-recipe-id") ?? "");
      if (entry) this.#showEntry(item, entry, basket.currency ?? "EUR");
      else item.remove();
    }
    const root = this.#root;
    const total = root.querySelector('[data-role="total"]');
    if (total && typeof basket.total === "number") total.textContent = money(basket.total, basket.currency ?? "EUR");
    const remaining = root.querySelectorAll('[data-role="results"] > li').length;
    const summary = root.querySelector('[data-role="summary"]');
    const products = soldProducts(basket.recipes);
    if (summary && remaining > 0) summary.textContent = this.#text("CATALOG_BASKET_PREVIEW.SUMMARY", { recipes: remaining, products });
    if (remaining === 0) {
      for (const part of root.querySelectorAll('[data-role="results"], [data-role="footer"], [data-role="summary"]')) {
        /** @type {HTMLElement} */ (part).hidden = true;
      }
      const empty = root.querySelector('[data-role="empty"]');
      if (empty instanceof HTMLElement) empty.hidden = false;
    }
  }

  /**
   * The basket holds recipes the preview has no row for (`missing`, their ids): the preview is asked again from
   * its route (the shopper's credential) and its content replaced by the answer's, drawn by the server as the
   * first was. The keyboard's focus stays on the same control when the new content has it, else goes to the
   * preview's title. Asked once for the same missing recipes (an answer still without them is not asked again);
   * a failure is logged and the preview stays as it is.
   * @param {string} missing
   */
  async #redraw(missing) {
    if (this.#redrawing || this.#redrawnFor === missing) return;
    this.#redrawing = true;
    this.#redrawnFor = missing;
    const root = this.#root;
    try {
      const drawn = (await this.#askAgain())?.querySelector(root.localName);
      if (!drawn || !root.isConnected) return;
      const focused = document.activeElement instanceof HTMLElement && root.contains(document.activeElement)
        ? document.activeElement : null;
      const action = focused?.dataset.action;
      const recipeId = focused?.dataset.recipeId;
      root.replaceChildren(...[...drawn.childNodes].map((node) => document.importNode(node, true)));
      if (focused) {
        const same = action && recipeId
          ? root.querySelector(`[data-action="${CSS.escape(action)}"][data-recipe-id="${CSS.escape(recipeId)}"]`)
          : null;
        const title = root.querySelector(".svc-basket-preview__title");
        if (same instanceof HTMLElement) same.focus();
        else if (title instanceof HTMLElement) {
          title.tabIndex = -1;
          title.focus();
        }
      }
      const basket = sdk.basket.basket$.value;
      if (basket && Array.isArray(basket.recipes)) this.#show(basket);
    } catch (error) {
      logFailure(sdk.prefix, "catalog: the basket preview could not be drawn again", error);
    } finally {
      this.#redrawing = false;
    }
  }

  /**
   * A recipe's row of the basket preview as its basket entry is now (its guests or products changed in the
   * drawer): the guests, the products the store sells and their price, as the server writes them
   * (prerender/rendering/my_space.py, `_preview_recipe`).
   * @param {Element} item @param {any} entry @param {string} currency
   */
  #showEntry(item, entry, currency) {
    const lines = soldLines(entry);
    const meta = item.querySelector(".svc-basket-preview__meta");
    const guests = Number(entry.guests);
    if (meta && Number.isInteger(guests) && guests > 0) {
      meta.textContent = `${this.#text("RECIPE_CARD.GUESTS", { count: guests })} · ${
        this.#text("CATALOG_BASKET_PREVIEW.PRODUCTS", { count: lines.length })}`;
    }
    const price = item.querySelector(".svc-basket-preview__price");
    if (price instanceof HTMLElement) {
      price.textContent = lines.length > 0 ? money(linesPrice(lines), currency) : "";
      price.hidden = lines.length === 0;
    }
  }
}
