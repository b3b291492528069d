// The recipe details' ingredient rows (templates/recipe_details/details.html, `.svc-recipe-details__ingredient`):
// each shows a product (the basket's, the one chosen here, or the server's), its price and its control ("add", or
// a stepper with the quantity in the basket); its alternatives open and close; the unavailable ones can be
// collapsed behind a toggle. The view only: the basket writes are components/recipe-details.js's. A part of
// components/recipe-details.js (bundled into it in the release tree).
import { h, isolated, money } from "../ui.js";

export const ROW = ".svc-recipe-details__ingredient[data-ingredient-id]";
const UNAVAILABLE = ".svc-recipe-details__ingredient--unavailable";

/**
 * The line of an ingredient in a recipe's basket entry (the SDK's `basket.entry(recipeId)`), or null.
 * @param {any} entry @param {string | undefined} ingredientId
 */
export function lineOf(entry, ingredientId) {
  return entry?.lines?.find((/** @type {any} */ line) => String(line.ingredient_id) === ingredientId) ?? null;
}

/**
 * A candidate product in the fragment's JSON (`products` of an ingredient). The fragment gives `id`,
 * `packages` and `available`; the descriptive fields are used when present.
 * @typedef {object} Product
 * @property {string} id
 * @property {number} [packages] packages needed for the guests shown
 * @property {boolean | null} [available]
 * @property {string} [name]
 * @property {string} [brand]
 * @property {string} [size]
 * @property {string} [picture_url]
 * @property {number | null} [unit_price]
 */

/**
 * @typedef {object} Ingredient
 * @property {string} id
 * @property {string | null} [chosen] the product the server shows (first available)
 * @property {Product[]} [products] candidates, the chosen one first
 */

/**
 * @typedef {object} RowOrigin what the server rendered in a row
 * @property {string} productId "" when the ingredient has no product at the store
 * @property {number} packages
 * @property {string} priceText
 * @property {string} name product name
 * @property {string} meta brand · size
 * @property {string | null} picture
 * @property {string} addLabel text of the server's "add" button
 */

/**
 * What a row shows of a product.
 * @typedef {object} ProductInfo
 * @property {string} name
 * @property {string} meta
 * @property {string | null} picture
 * @property {number | null} unitPrice
 */

export class IngredientRows {
  #root;
  #recipeId;
  /** @type {Ingredient[]} */
  #ingredients;
  #t;
  /** @type {Map<string, string>} ingredient id -> product chosen while the recipe is not in the basket */
  #choices;
  /** @type {Map<HTMLElement, RowOrigin>} */
  #origins = new Map();
  /** The toggle of the collapsed unavailable ingredients, when they are collapsed. @type {HTMLButtonElement | null} */
  #unavailableToggle = null;
  /**
   * The server's markup of each row it drew without a product (nothing sold for the ingredient at the store), to
   * draw it again once a basket line of it, made at another store, is taken out. @type {Map<HTMLElement, Node[]>}
   */
  #unsold = new Map();

  /**
   * Reads what the server rendered in each row.
   * @param {HTMLElement} root the `.svc-recipe-details` element
   * @param {object} options
   * @param {string} options.recipeId
   * @param {Ingredient[]} options.ingredients the fragment's JSON
   * @param {(key: string, params?: Record<string, string | number>) => string} options.t the fragment's texts
   * @param {Map<string, string>} options.choices the products chosen here (read at each render; the controller
   *   writes them)
   */
  constructor(root, { recipeId, ingredients, t, choices }) {
    this.#root = root;
    this.#recipeId = recipeId;
    this.#ingredients = ingredients;
    this.#t = t;
    this.#choices = choices;
    for (const row of this.all()) {
      const ingredientId = row.dataset.ingredientId ?? "";
      const productId = row.dataset.productId ?? "";
      this.#origins.set(row, {
        productId,
        packages: positiveInt(row.dataset.packages) ?? positiveInt(this.#product(ingredientId, productId)?.packages) ?? 1,
        priceText: row.querySelector(".svc-recipe-details__product-price")?.textContent ?? "",
        name: row.querySelector(".svc-recipe-details__product-name")?.textContent?.trim() ?? "",
        meta: row.querySelector(".svc-recipe-details__product-meta")?.textContent?.trim() ?? "",
        picture: row.querySelector(".svc-recipe-details__product-picture")?.getAttribute("src") ?? null,
        addLabel: row.querySelector(".svc-recipe-details__product-action button")?.textContent?.trim() ?? "",
      });
      row.querySelector(".svc-recipe-details__replace")?.setAttribute("aria-expanded", "false");
      if (!productId) this.#unsold.set(row, [...row.childNodes].map((node) => node.cloneNode(true)));
    }
  }

  /** Every ingredient row, the collapsed ones included. @returns {HTMLElement[]} */
  all() {
    return /** @type {HTMLElement[]} */ ([...this.#root.querySelectorAll(ROW)]);
  }

  /** The product the server showed in a row ("" when nothing is sold for it). @param {HTMLElement} row */
  originalProduct(row) {
    return this.#origins.get(row)?.productId ?? "";
  }

  /** The name of the product a row shows now (a replacement's once chosen). @param {HTMLElement} row */
  productName(row) {
    return row.querySelector(".svc-recipe-details__product-name")?.textContent?.trim() ?? "";
  }

  /**
   * The packs of a product in a row as the server writes them (RECIPE_DETAILS.PACKAGES, "× 2"), "" for one.
   * @param {HTMLElement} row @param {string} productId
   */
  #packagesText(row, productId) {
    const packages = this.packagesFor(row, productId);
    return packages > 1 ? this.#t("details.packages", { count: packages }) : "";
  }

  /** Packages to add of a product in a row, for the guests shown. @param {HTMLElement} row @param {string} productId */
  packagesFor(row, productId) {
    const origin = this.#origins.get(row);
    return positiveInt(this.#product(row.dataset.ingredientId ?? "", productId)?.packages)
      ?? positiveInt(this.#alternative(row, productId)?.dataset.packages)
      ?? (origin && origin.productId === productId ? origin.packages : null) ?? 1;
  }

  /**
   * One ingredient row against the recipe's basket entry (null: not in the basket): the product, its price, and
   * its control. A row whose recipe is in the basket without that ingredient is marked removed.
   * @param {HTMLElement} row @param {any} entry
   */
  render(row, entry) {
    const origin = this.#origins.get(row);
    const ingredientId = row.dataset.ingredientId ?? "";
    if (!origin) return;
    const line = lineOf(entry, ingredientId);
    const productId = line ? String(line.product_id) : this.#choices.get(ingredientId) ?? origin.productId;
    if (!productId) {
      this.#showUnsold(row); // nothing sold for it at this store, and none of it in the basket
      return;
    }
    if (!origin.productId) this.#addProductParts(row); // nothing sold for it here, a product of it in the basket
    const state = line ? "in" : entry ? "removed" : "out";
    if (productId !== (row.dataset.productId ?? "")) {
      this.#showProduct(row, this.#productInfo(row, productId, line));
      row.dataset.productId = productId;
    }
    row.classList.toggle("svc-recipe-details__ingredient--removed", state === "removed");
    this.#markLineUnavailable(row, line?.available === false);
    const price = row.querySelector(".svc-recipe-details__product-price");
    if (price) {
      if (line && line.price !== null && line.price !== undefined) price.textContent = money(line.price);
      else if (productId === origin.productId) price.textContent = origin.priceText;
      else {
        const amount = this.#priceOf(row, productId, line);
        price.textContent = amount === null ? "" : money(amount);
      }
    }
    this.#syncAlternatives(row);
    this.#renderAction(row, state === "in" ? "stepper" : "add", line ? Number(line.quantity) : 0);
    // A product the store no longer sells: none more of it (the basket would hold packages nobody can buy); "−"
    // takes it out, "replace" offers the ones it sells.
    const increase = row.querySelector(".svc-recipe-details__product-action [data-action='increase-product']");
    if (increase instanceof HTMLButtonElement) increase.disabled = line?.available === false;
  }

  /**
   * A row the server drew without a product (nothing sold for the ingredient at the store) whose ingredient the
   * basket holds a product of (a line made at another store): the parts a product row has, for that line to show
   * in (its name, price and stepper: "one fewer" takes it out).
   * @param {HTMLElement} row
   */
  #addProductParts(row) {
    if (row.querySelector(".svc-recipe-details__product-action")) return;
    row.querySelector(".svc-recipe-details__product-meta")?.before(h("span", { class: "svc-recipe-details__product-name", dir: "auto" }));
    row.append(h("span", { class: "svc-recipe-details__product-price" }), h("div", { class: "svc-recipe-details__product-action" }));
  }

  /** The row as the server drew it without a product, once no basket line shows in it. @param {HTMLElement} row */
  #showUnsold(row) {
    const markup = this.#unsold.get(row);
    if (!markup || row.dataset.productId === undefined) return;
    const hadFocus = row.contains(document.activeElement);
    row.replaceChildren(...markup.map((node) => node.cloneNode(true)));
    delete row.dataset.productId;
    row.classList.remove("svc-recipe-details__ingredient--removed", "svc-recipe-details__ingredient--line-unavailable");
    if (hadFocus) {
      // Its stepper is gone: the focus stays in the row rather than falling to the page.
      row.setAttribute("tabindex", "-1");
      row.focus();
    }
  }

  /**
   * Says in a row that the basket's product of it is no longer sold at the store (the line is `available: false`:
   * unpriced, left out of the totals), or takes that note away.
   * @param {HTMLElement} row @param {boolean} unavailable
   */
  #markLineUnavailable(row, unavailable) {
    row.classList.toggle("svc-recipe-details__ingredient--line-unavailable", unavailable);
    const note = row.querySelector(".svc-recipe-details__line-unavailable");
    if (!unavailable) {
      note?.remove();
      return;
    }
    if (note) return;
    row.querySelector(".svc-recipe-details__product-meta")?.after(h("span", {
      class: "svc-recipe-details__product-meta svc-recipe-details__line-unavailable",
    }, this.#t("details.line-unavailable")));
  }

  /**
   * For a recipe not in the basket, the price of the products the rows show once one of them is a product chosen
   * here: each at its unit price times its packages, as the server makes the total it rendered (unpriced ones left
   * out). Null while every row shows the server's product (its total stands), or when a price is not known.
   * @returns {number | null}
   */
  chosenTotal() {
    let total = 0;
    let chosen = false;
    for (const row of this.all()) {
      const origin = this.#origins.get(row);
      const productId = this.#choices.get(row.dataset.ingredientId ?? "") ?? origin?.productId;
      if (!origin || !productId) continue; // nothing sold for it at this store
      chosen ||= productId !== origin.productId;
      const amount = this.#priceOf(row, productId);
      if (amount === null) {
        if (productId !== origin.productId || origin.priceText) return null; // a price not known here
        continue; // unpriced, and left out of the server's total too
      }
      total += amount;
    }
    return chosen && Number.isFinite(total) ? total : null;
  }

  /** A row's controls are busy (a write of its line is under way) or not. @param {HTMLElement} row @param {boolean} busy */
  setBusy(row, busy) {
    if (busy) row.setAttribute("aria-busy", "true");
    else row.removeAttribute("aria-busy");
    for (const button of row.querySelectorAll(".svc-recipe-details__product-action button")) {
      if (busy) button.setAttribute("aria-disabled", "true");
      else button.removeAttribute("aria-disabled");
    }
  }

  // --- alternatives ------------------------------------------------------------------------------

  /** Shows or hides a row's alternatives (the server's `__alternatives` list). @param {HTMLElement} row */
  toggleAlternatives(row) {
    const list = /** @type {HTMLElement | null} */ (row.querySelector(".svc-recipe-details__alternatives"));
    if (!list) return;
    if (!list.hidden) {
      this.closeAlternatives(row, false);
      return;
    }
    this.openAlternatives(row, true);
  }

  /**
   * Shows a row's alternatives (the others close), the focus on its first product if asked (not when the details
   * are drawn again with the list the shopper had open: the focus goes back where it was).
   * @param {HTMLElement} row @param {boolean} focusFirst
   */
  openAlternatives(row, focusFirst) {
    const list = /** @type {HTMLElement | null} */ (row.querySelector(".svc-recipe-details__alternatives"));
    if (!list) return;
    for (const other of this.all()) if (other !== row) this.closeAlternatives(other, false);
    this.#syncAlternatives(row);
    list.hidden = false;
    row.querySelector(".svc-recipe-details__replace")?.setAttribute("aria-expanded", "true");
    if (!focusFirst) return;
    /** @type {HTMLElement[]} */ ([...list.querySelectorAll("button")]).find((button) => !button.closest("[hidden]"))?.focus();
  }

  /** Hides a row's alternatives, the focus back on its "replace" button if asked. @param {HTMLElement} row @param {boolean} focusTrigger */
  closeAlternatives(row, focusTrigger) {
    const list = /** @type {HTMLElement | null} */ (row.querySelector(".svc-recipe-details__alternatives"));
    if (!list || list.hidden) return;
    list.hidden = true;
    const trigger = /** @type {HTMLElement | null} */ (row.querySelector(".svc-recipe-details__replace"));
    trigger?.setAttribute("aria-expanded", "false");
    if (focusTrigger) trigger?.focus();
  }

  /** Whether a row's alternatives are open. @param {HTMLElement} row */
  alternativesOpen(row) {
    return Boolean(row.querySelector(".svc-recipe-details__alternatives:not([hidden])"));
  }

  /** The ingredient whose alternatives are open, or null. @returns {string | null} */
  get openIngredient() {
    return this.all().find((row) => this.alternativesOpen(row))?.getAttribute("data-ingredient-id") ?? null;
  }

  /** The row of an ingredient, or null. @param {string} ingredientId @returns {HTMLElement | null} */
  rowOf(ingredientId) {
    return this.all().find((row) => row.getAttribute("data-ingredient-id") === ingredientId) ?? null;
  }

  // --- unavailable ingredients -------------------------------------------------------------------

  /**
   * The shopping list's unavailable ingredients move to a list of their own after it, hidden behind a toggle
   * button (`features.collapseUnavailableProductsByDefault()`).
   * @param {boolean} shown the list starts shown (the shopper had opened it before a re-fetch)
   */
  collapseUnavailable(shown) {
    const rows = /** @type {HTMLElement[]} */ ([...this.#root.querySelectorAll(`${ROW}${UNAVAILABLE}`)]);
    const list = rows[0]?.closest("ul");
    if (!list) return;
    const id = `${list.closest("[id]")?.id || `svc-recipe-details-${this.#recipeId}`}-unavailable`;
    const hidden = /** @type {HTMLElement} */ (h("ul", {
      class: "svc-recipe-details__ingredients svc-recipe-details__ingredients--unavailable", id,
    }));
    hidden.append(...rows);
    hidden.hidden = !shown;
    this.#unavailableToggle = /** @type {HTMLButtonElement} */ (h("button", {
      type: "button", class: "svc-recipe-details__unavailable-toggle svc-ds-link", "data-action": "toggle-unavailable",
      "aria-controls": id, "aria-expanded": String(shown),
    }));
    list.after(this.#unavailableToggle, hidden);
    this.#labelUnavailableToggle();
  }

  /** Whether the collapsed unavailable ingredients are shown. */
  get unavailableShown() {
    return this.#unavailableToggle?.getAttribute("aria-expanded") === "true";
  }

  /** Shows or hides the collapsed unavailable ingredients. */
  toggleUnavailable() {
    const toggle = this.#unavailableToggle;
    const list = toggle ? this.#root.querySelector(`#${CSS.escape(toggle.getAttribute("aria-controls") ?? "")}`) : null;
    if (!toggle || !(list instanceof HTMLElement)) return;
    const shown = toggle.getAttribute("aria-expanded") !== "true";
    toggle.setAttribute("aria-expanded", String(shown));
    list.hidden = !shown;
    this.#labelUnavailableToggle();
  }

  #labelUnavailableToggle() {
    const toggle = this.#unavailableToggle;
    if (!toggle) return;
    const count = this.#root.querySelectorAll(`${ROW}${UNAVAILABLE}`).length;
    toggle.textContent = toggle.getAttribute("aria-expanded") === "true"
      ? this.#t("details.unavailable-hide")
      : this.#t("details.unavailable-show", { count });
  }

  // --- what a row shows --------------------------------------------------------------------------

  /** @param {string} ingredientId @param {string} productId @returns {Product | undefined} */
  #product(ingredientId, productId) {
    const ingredient = this.#ingredients.find((candidate) => String(candidate.id) === ingredientId);
    return ingredient?.products?.find((product) => String(product.id) === productId);
  }

  /** The "choose" button of a product in a row's alternatives. @param {HTMLElement} row @param {string} productId */
  #alternative(row, productId) {
    return /** @type {HTMLElement | null} */ (row.querySelector(`[data-action="choose-product"][data-product-id="${CSS.escape(productId)}"]`));
  }

  /** The ingredient's name as the row shows it. @param {HTMLElement} row */
  #name(row) {
    const name = row.querySelector(".svc-recipe-details__ingredient-name");
    return (name?.firstChild?.textContent ?? name?.textContent ?? "").trim();
  }

  /**
   * What to show of a product: from the basket line, else the fragment's JSON, else what the server
   * rendered (the row itself, or the label "name · brand · size · price" of its alternative button).
   * @param {HTMLElement} row @param {string} productId @param {any} [line]
   * @returns {ProductInfo}
   */
  #productInfo(row, productId, line) {
    if (line && String(line.product_id) === productId && line.name) {
      return { name: line.name, meta: productMeta(line, this.#packagesText(row, productId)), picture: line.picture_url ?? null,
        unitPrice: line.unit_price ?? null };
    }
    const product = this.#product(row.dataset.ingredientId ?? "", productId);
    if (product?.name) {
      return { name: product.name, meta: productMeta(product, this.#packagesText(row, productId)),
        picture: product.picture_url ?? null, unitPrice: product.unit_price ?? null };
    }
    const origin = this.#origins.get(row);
    if (origin && origin.productId === productId) return { name: origin.name, meta: origin.meta, picture: origin.picture, unitPrice: null };
    const parts = (this.#alternative(row, productId)?.textContent ?? "").split(" · ").map((part) => part.trim());
    const [brand, size] = parts.slice(1, 3);
    return { name: parts[0] ?? "", meta: productMeta({ brand, size }, this.#packagesText(row, productId)), picture: null,
      unitPrice: null };
  }

  /**
   * A product's price in a row: its unit price times the packages the guests need, as the server prices it; null
   * when its unit price is not known. @param {HTMLElement} row @param {string} productId @param {any} [line]
   * @returns {number | null}
   */
  #priceOf(row, productId, line) {
    const unit = this.#productInfo(row, productId, line).unitPrice;
    return unit === null || unit === undefined ? null : Number(unit) * this.packagesFor(row, productId);
  }

  /** @param {HTMLElement} row @param {ProductInfo} info */
  #showProduct(row, info) {
    const picture = row.querySelector(".svc-recipe-details__product-picture");
    const url = info.picture && /^https?:/i.test(info.picture) ? info.picture : null;
    if (picture instanceof HTMLImageElement) {
      if (url) {
        picture.src = url;
        picture.hidden = false;
      } else {
        picture.hidden = true; // better no picture than the previous product's
      }
    } else if (picture && url) {
      // The server's fallback box (`--fallback`: the first product had no picture): the new product's picture replaces it.
      picture.replaceWith(h("img", {
        class: "svc-recipe-details__product-picture", src: url, alt: "", width: "64", height: "64",
        loading: "lazy", decoding: "async", "data-svc-picture": "ingredient",
      }));
    }
    const name = row.querySelector(".svc-recipe-details__product-name");
    if (name) name.textContent = info.name;
    const meta = row.querySelector(".svc-recipe-details__product-meta");
    if (meta) meta.textContent = info.meta;
  }

  /**
   * The alternatives offered are the ingredient's other products: the one shown is hidden, and the
   * server's first choice is added back once another product replaced it.
   * @param {HTMLElement} row
   */
  #syncAlternatives(row) {
    const list = row.querySelector(".svc-recipe-details__alternatives");
    const origin = this.#origins.get(row);
    if (!list || !origin?.productId) return;
    if (!this.#alternative(row, origin.productId) && row.dataset.productId !== origin.productId) {
      list.prepend(h("li", {}, h("button", {
        type: "button", class: "svc-ds-link", "data-action": "choose-product",
        "data-product-id": origin.productId, "data-packages": String(origin.packages),
      }, [origin.name, origin.meta].filter(Boolean).join(" · "))));
    }
    for (const button of list.querySelectorAll("[data-action='choose-product']")) {
      const item = button.closest("li") ?? button;
      /** @type {HTMLElement} */ (item).hidden = button.getAttribute("data-product-id") === row.dataset.productId;
    }
  }

  /**
   * The row's control: an "add" button, or a stepper with the quantity in the basket. Rebuilt only when
   * its kind changes; the keyboard focus moves to the equivalent control of the new kind.
   * @param {HTMLElement} row @param {"add" | "stepper"} kind @param {number} quantity
   */
  #renderAction(row, kind, quantity) {
    const area = /** @type {HTMLElement | null} */ (row.querySelector(".svc-recipe-details__product-action"));
    if (!area) return;
    const name = this.#name(row);
    if (area.dataset.kind !== kind) {
      const hadFocus = area.contains(document.activeElement);
      if (kind === "stepper") {
        area.replaceChildren(quantityStepper(name, quantity, {
          decrease: this.#t("details.decrease", { name }), increase: this.#t("details.increase", { name }),
        }));
      } else {
        area.replaceChildren(h("button", {
          type: "button", class: "svc-ds-button svc-ds-button--secondary svc-ds-button--small",
          "data-action": "add-product", "aria-label": this.#t("details.add-aria", { name }),
        }, this.#origins.get(row)?.addLabel || this.#t("details.add")));
      }
      area.dataset.kind = kind;
      if (hadFocus) {
        /** @type {HTMLElement | null} */ (area.querySelector(kind === "stepper" ? "[data-action='increase-product']" : "[data-action='add-product']"))?.focus();
      }
    }
    if (kind === "stepper") {
      const value = area.querySelector(".svc-ds-stepper__value");
      if (value && value.textContent !== String(quantity)) value.textContent = String(quantity);
    }
  }
}

/**
 * A product's quantity stepper. Its value says the new quantity only while the shopper uses this stepper (the focus
 * in it, or the last press on a stepper: Safari gives a clicked button no focus): "add all", a swap or the cart's
 * report change many rows at once, and each row's value, a live region (an `output` is one by default), would be
 * announced in turn.
 * @param {string} name the product's name @param {number} quantity
 * @param {{ decrease: string, increase: string }} labels the buttons' names
 */
function quantityStepper(name, quantity, labels) {
  const value = h("output", { class: "svc-ds-stepper__value", "aria-live": "off" }, String(quantity));
  const group = h("div", { class: "svc-ds-stepper svc-ds-stepper--small", role: "group", "aria-label": name },
    h("button", { type: "button", class: "svc-ds-stepper__button", "data-action": "decrease-product", "aria-label": labels.decrease }, "−"),
    value,
    h("button", { type: "button", class: "svc-ds-stepper__button", "data-action": "increase-product", "aria-label": labels.increase }, "+"));
  // One stepper speaks at a time, the last one used: a press gives no focus in Safari, so no focusout either.
  const speak = () => {
    const details = group.closest(".svc-recipe-details") ?? group;
    for (const other of details.querySelectorAll(".svc-recipe-details__product-action .svc-ds-stepper__value")) {
      if (other !== value) other.setAttribute("aria-live", "off");
    }
    value.setAttribute("aria-live", "polite");
  };
  group.addEventListener("focusin", speak);
  group.addEventListener("pointerdown", speak);
  group.addEventListener("focusout", (event) => {
    if (!(event.relatedTarget instanceof Node && group.contains(event.relatedTarget))) value.setAttribute("aria-live", "off");
  });
  return group;
}

/** @param {unknown} value */
function positiveInt(value) {
  const number = Number(value);
  return Number.isInteger(number) && number > 0 ? number : null;
}

/**
 * A product's "brand · size · × packages" line as the server writes it (prerender/templates/recipe_details/
 * details.html), the brand and the size isolated (a brand in Arabic must not move the size to its other side).
 * @param {{ brand?: string, size?: string }} product @param {string} packages the packs' text, "" for one pack
 */
function productMeta({ brand, size }, packages) {
  const parts = [brand, size].filter(Boolean).map((part) => isolated(String(part)));
  return [...parts, ...(packages ? [packages] : [])].join(" · ");
}

