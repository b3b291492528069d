// The recipe details inside the drawer (fragment of GET /{v}/recipe-details, docs/browser-api.md; classes of
// docs/styles.md, "recipe-details.css"). A controller, not an element: the drawer creates one per fragment
// it inserts and destroys it when the fragment goes, so nothing outlives the markup it serves.
//
// - tabs shopping / cooking (role=tab, arrows, Home / End);
// - guests stepper: the details are fetched again for the new number, and the basket entry re-scaled
//   (PATCH) when the recipe is in the basket;
// - per ingredient row: add, more / fewer (0 removes), replace by another candidate product;
// - "add all" (one POST .../basket/recipes carrying the products chosen here), then
//   `recipes.addAllIngredientsCTAWasClicked` with how many of the recipe's ingredients the basket entry has;
//   every answer updates the basket stream, and the rows follow it;
// - `features.collapseUnavailableProductsByDefault()`: the ingredients unavailable at the store move to a list
//   of their own, hidden behind a toggle button after the shopping list.
import { services, h, money, prepareMoney, bindLikeButton, translator, isStoppedByHook } from "./ui.js";
import { Tabs } from "./recipe-details/tabs.js";
import { GuestStepper, clampGuests } from "./recipe-details/guests.js";

const ROW = ".svc-recipe-details__ingredient[data-ingredient-id]";
const UNAVAILABLE = ".svc-recipe-details__ingredient--unavailable";

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
 * @typedef {object} Snapshot what survives a re-fetch of the details (new guests)
 * @property {number} tab
 * @property {{ action: string | null, ingredient: string | null } | null} focus
 * @property {Map<string, string>} choices
 * @property {boolean} [unavailableShown] the collapsed unavailable ingredients were shown
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

export class RecipeDetails {
  #root;
  #footer;
  #recipeId;
  #drawer;
  #listeners = new AbortController();
  /** @type {{ unsubscribe(): void }[]} */
  #subscriptions = [];
  /** @type {{ destroy(): void }[]} */
  #likeBindings = [];
  /** @type {{ ingredients?: Ingredient[], texts?: Record<string, string> }} */
  #data;
  #t;
  /** @type {GuestStepper} */
  #guests;
  /** @type {Map<string, string>} ingredient id -> product chosen while the recipe is not in the basket */
  #choices;
  /** @type {Map<HTMLElement, RowOrigin>} */
  #origins = new Map();
  /** @type {Tabs} */
  #tabs;
  #totalText = "";
  #destroyed = false;
  /** The toggle of the collapsed unavailable ingredients, when they are collapsed. @type {HTMLButtonElement | null} */
  #unavailableToggle = null;

  /**
   * @param {object} options
   * @param {HTMLElement} options.root the `.svc-recipe-details` element, in the document
   * @param {HTMLElement | null} options.footer its `__footer`, moved into the drawer's footer
   * @param {string} options.recipeId
   * @param {{ reload(options: { guests: number }): Promise<unknown> }} options.drawer
   * @param {Snapshot} [options.restore]
   */
  constructor({ root, footer, recipeId, drawer, restore }) {
    this.#root = root;
    this.#footer = footer;
    this.#recipeId = String(root.getAttribute("recipe-id") || recipeId);
    this.#drawer = drawer;
    this.#data = readData(root);
    const { session, basket } = services;
    this.#t = translator(session.language, this.#data.texts ?? {});
    this.#choices = new Map(restore?.choices ?? []);

    const { signal } = this.#listeners;
    root.addEventListener("click", (event) => this.#onClick(event), { signal });
    root.addEventListener("keydown", (event) => this.#onKeydown(event), { signal });
    footer?.addEventListener("click", (event) => this.#onClick(event), { signal });

    this.#tabs = new Tabs(root, restore?.tab);
    this.#guests = new GuestStepper(root, {
      guests: clampGuests(Number.parseInt(root.getAttribute("guests") ?? "", 10)) ?? 1,
      onSettled: (guests) => this.#applyGuests(guests),
    });
    for (const button of root.querySelectorAll(".svc-like-button")) {
      if (button instanceof HTMLButtonElement) this.#likeBindings.push(bindLikeButton(button, this.#recipeId));
    }
    for (const row of this.#rows()) {
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
    }
    this.#totalText = footer?.querySelector(".svc-recipe-details__total-amount")?.textContent ?? "";
    this.#collapseUnavailable(restore?.unavailableShown ?? false);

    this.#render(basket.basket$.value ?? null);
    this.#subscriptions.push(basket.basket$.subscribe((/** @type {any} */ value) => this.#render(value)));
    if (restore?.focus) this.#restoreFocus(restore.focus);
    prepareMoney(); // the prices shown are the server's until a swap or a basket change: ready for that click
  }

  /** State to carry into the next fragment of the same recipe. @returns {Snapshot} */
  snapshot() {
    const active = document.activeElement;
    let focus = null;
    if (active instanceof HTMLElement && (this.#root.contains(active) || this.#footer?.contains(active))) {
      focus = { action: this.#actionOf(active), ingredient: active.closest("[data-ingredient-id]")?.getAttribute("data-ingredient-id") ?? null };
    }
    return {
      tab: this.#tabs.selectedIndex,
      focus,
      choices: new Map(this.#choices),
      unavailableShown: this.#unavailableToggle?.getAttribute("aria-expanded") === "true",
    };
  }

  destroy() {
    this.#destroyed = true;
    this.#guests.stop();
    this.#listeners.abort();
    for (const subscription of this.#subscriptions.splice(0)) subscription.unsubscribe();
    for (const binding of this.#likeBindings.splice(0)) binding.destroy();
  }

  // --- events ------------------------------------------------------------------------------------

  /** @param {MouseEvent} event */
  #onClick(event) {
    const control = event.target instanceof Element ? event.target.closest("button, [data-action]") : null;
    if (!(control instanceof HTMLElement)) return;
    const action = this.#actionOf(control);
    if (!action) return;
    event.preventDefault();
    if (control.getAttribute("aria-disabled") === "true") return;
    const row = /** @type {HTMLElement | null} */ (control.closest(ROW));
    switch (action) {
      case "tab": this.#tabs.select(control, false); break;
      case "guests-decrease": this.#guests.step(-1); break;
      case "guests-increase": this.#guests.step(1); break;
      case "add-product": if (row) void this.#addProduct(row); break;
      case "increase-product": if (row) void this.#changeQuantity(row, 1); break;
      case "decrease-product": if (row) void this.#changeQuantity(row, -1); break;
      case "replace": if (row) this.#toggleAlternatives(row); break;
      case "choose-product": if (row) void this.#choose(row, control.dataset.productId ?? ""); break;
      case "add-all": void this.#addAll(control); break;
      case "toggle-unavailable": this.#toggleUnavailable(); break;
      default: break;
    }
  }

  /** @param {KeyboardEvent} event */
  #onKeydown(event) {
    const target = event.target instanceof HTMLElement ? event.target : null;
    if (!target) return;
    if (event.key === "Escape") {
      const row = /** @type {HTMLElement | null} */ (target.closest(ROW));
      if (row?.querySelector(".svc-recipe-details__alternatives:not([hidden])")) {
        event.preventDefault(); // the drawer stays open: only the list closes
        this.#closeAlternatives(row, true);
      }
      return;
    }
    if (target.getAttribute("role") === "tab") this.#tabs.onKeydown(event);
  }

  /**
   * What a control does: its data-action, else what its class says in the styles contract.
   * @param {HTMLElement} control
   * @returns {string | null}
   */
  #actionOf(control) {
    if (control.dataset.action) return control.dataset.action;
    if (control.getAttribute("role") === "tab") return "tab";
    if (control.matches(".svc-recipe-details__guests .svc-ds-stepper__button")) {
      const buttons = [...(control.parentElement?.querySelectorAll(".svc-ds-stepper__button") ?? [])];
      return buttons.indexOf(control) === 0 ? "guests-decrease" : "guests-increase";
    }
    if (control.matches(".svc-recipe-details__replace")) return "replace";
    if (control.matches(".svc-recipe-details__add-all")) return "add-all";
    return null;
  }

  // --- guests ------------------------------------------------------------------------------------

  /** The count the stepper settled on: the basket's recipe and the drawer follow. @param {number} guests */
  #applyGuests(guests) {
    if (this.#destroyed) return;
    const { basket, notices, track } = services;
    track("recipe.change-guests", { recipe_id: this.#recipeId, guests });
    // The page's other controls of this recipe (a publisher's CTA) follow once the basket has the new count.
    const share = () => services.guests.set(this.#recipeId, guests);
    if (basket.entry(this.#recipeId)) {
      basket.setGuests(this.#recipeId, guests).then(share, (/** @type {unknown} */ error) => {
        notices.error(error);
        // The page's hook said no: the recipe stays in the basket for its guests, and the drawer shows those.
        const before = basket.entry(this.#recipeId)?.guests;
        if (isStoppedByHook(error) && before) this.#drawer.reload({ guests: before }).catch(() => {});
      });
    } else {
      share();
    }
    this.#drawer.reload({ guests }).catch(() => {}); // the drawer shows the failure
  }

  // --- rows --------------------------------------------------------------------------------------

  /** @returns {HTMLElement[]} */
  #rows() {
    return /** @type {HTMLElement[]} */ ([...this.#root.querySelectorAll(ROW)]);
  }

  /** @param {string} ingredientId @returns {Ingredient | undefined} */
  #ingredient(ingredientId) {
    return this.#data.ingredients?.find((ingredient) => String(ingredient.id) === ingredientId);
  }

  /** @param {string} ingredientId @param {string} productId @returns {Product | undefined} */
  #product(ingredientId, productId) {
    return this.#ingredient(ingredientId)?.products?.find((product) => String(product.id) === productId);
  }

  /** The ingredient's name as the row shows it. @param {HTMLElement} row */
  #name(row) {
    const name = row.querySelector(".svc-recipe-details__ingredient-name");
    return (name?.firstChild?.textContent ?? name?.textContent ?? "").trim();
  }

  /** The "choose" button of a product in a row's alternatives. @param {HTMLElement} row @param {string} productId */
  #alternative(row, productId) {
    return /** @type {HTMLElement | null} */ (row.querySelector(`[data-action="choose-product"][data-product-id="${CSS.escape(productId)}"]`));
  }

  /** The basket entry of this recipe in a basket. @param {any} basket */
  #entryIn(basket) {
    return basket?.recipes?.find((/** @type {any} */ entry) => entry.recipe_id === this.#recipeId) ?? null;
  }

  /** Packages to add of a product in a row, for the guests shown. @param {HTMLElement} row @param {string} productId */
  #packagesFor(row, productId) {
    const origin = this.#origins.get(row);
    return positiveInt(this.#product(row.dataset.ingredientId ?? "", productId)?.packages)
      ?? positiveInt(this.#alternative(row, productId)?.dataset.packages)
      ?? (origin && origin.productId === productId ? origin.packages : null) ?? 1;
  }

  /**
   * What to show of a product: from the basket line, else the fragment's JSON, else what the server
   * rendered (the row itself, or the label "name · brand · size · price" of its alternative button).
   * @param {HTMLElement} row @param {string} productId @param {any} [line]
   * @returns {ProductInfo}
   */
  #productInfo(row, productId, line) {
    if (line && String(line.product_id) === productId && line.name) {
      return { name: line.name, meta: [line.brand, line.size].filter(Boolean).join(" · "), picture: line.picture_url ?? null,
        unitPrice: line.unit_price ?? null };
    }
    const product = this.#product(row.dataset.ingredientId ?? "", productId);
    if (product?.name) {
      return { name: product.name, meta: [product.brand, product.size].filter(Boolean).join(" · "),
        picture: product.picture_url ?? null, unitPrice: product.unit_price ?? null };
    }
    const origin = this.#origins.get(row);
    if (origin && origin.productId === productId) return { name: origin.name, meta: origin.meta, picture: origin.picture, unitPrice: null };
    const parts = (this.#alternative(row, productId)?.textContent ?? "").split(" · ").map((part) => part.trim());
    return { name: parts[0] ?? "", meta: parts.slice(1, 3).join(" · "), picture: null, unitPrice: null };
  }

  /** Every row, the footer and the root follow the basket. @param {any} basket */
  #render(basket) {
    if (this.#destroyed) return;
    const entry = this.#entryIn(basket);
    this.#root.setAttribute("in-basket", String(Boolean(entry)));
    for (const row of this.#rows()) this.#renderRow(row, entry);
    this.#renderFooter(entry);
  }

  /**
   * One ingredient row: the product (the basket's, the one chosen here, or the server's), its price, and
   * its control ("add", or a stepper with the quantity in the basket). A row whose recipe is in the
   * basket without that ingredient is marked removed.
   * @param {HTMLElement} row @param {any} entry
   */
  #renderRow(row, entry) {
    const origin = this.#origins.get(row);
    const ingredientId = row.dataset.ingredientId ?? "";
    if (!origin) return;
    const line = entry?.lines?.find((/** @type {any} */ l) => String(l.ingredient_id) === ingredientId) ?? null;
    const productId = line ? String(line.product_id) : this.#choices.get(ingredientId) ?? origin.productId;
    if (!productId) return; // nothing sold for it at this store
    const state = line ? "in" : entry ? "removed" : "out";
    if (productId !== (row.dataset.productId ?? "")) {
      this.#showProduct(row, this.#productInfo(row, productId, line));
      row.dataset.productId = productId;
    }
    row.classList.toggle("svc-recipe-details__ingredient--removed", state === "removed");
    const price = row.querySelector(".svc-recipe-details__product-price");
    if (price) {
      if (line && line.price !== null && line.price !== undefined) price.textContent = money(line.price);
      else if (productId === origin.productId) price.textContent = origin.priceText;
      else {
        const unit = this.#productInfo(row, productId, line).unitPrice;
        price.textContent = unit === null ? "" : money(unit * this.#packagesFor(row, productId));
      }
    }
    this.#syncAlternatives(row);
    this.#renderAction(row, state === "in" ? "stepper" : "add", line ? Number(line.quantity) : 0);
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
      // The server's placeholder (the first product had no picture): the new product's takes its place.
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
        area.replaceChildren(h("div", { class: "svc-ds-stepper svc-ds-stepper--small", role: "group", "aria-label": name },
          h("button", { type: "button", class: "svc-ds-stepper__button", "data-action": "decrease-product", "aria-label": this.#t("details.decrease", { name }) }, "−"),
          h("output", { class: "svc-ds-stepper__value", "aria-live": "polite" }, String(quantity)),
          h("button", { type: "button", class: "svc-ds-stepper__button", "data-action": "increase-product", "aria-label": this.#t("details.increase", { name }) }, "+")));
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

  /** @param {any} entry */
  #renderFooter(entry) {
    if (!this.#footer) return;
    const amount = this.#footer.querySelector(".svc-recipe-details__total-amount");
    if (amount) {
      const total = entry?.lines?.reduce((/** @type {number} */ sum, /** @type {any} */ line) => sum + (Number(line.price) || 0), 0);
      amount.textContent = entry ? money(total) : this.#totalText;
    }
    const addAll = /** @type {HTMLElement | null} */ (this.#footer.querySelector(".svc-recipe-details__add-all"));
    const label = entry ? addAll?.dataset.inBasketLabel : addAll?.dataset.notInBasketLabel;
    if (addAll && label && addAll.textContent !== label) addAll.textContent = label;
  }

  // --- basket actions ----------------------------------------------------------------------------

  /** @param {HTMLElement} row */
  #addProduct(row) {
    const productId = row.dataset.productId ?? "";
    return this.#setLine(row, productId, this.#packagesFor(row, productId), "entry.add");
  }

  /** @param {HTMLElement} row @param {number} delta */
  #changeQuantity(row, delta) {
    const { basket } = services;
    const line = basket.entry(this.#recipeId)?.lines.find((/** @type {any} */ l) => String(l.ingredient_id) === row.dataset.ingredientId);
    if (!line) return this.#addProduct(row);
    const quantity = Math.max(0, Number(line.quantity) + delta);
    return this.#setLine(row, String(line.product_id), quantity, delta > 0 ? "entry.add" : "entry.delete");
  }

  /**
   * PUT one line; the row is busy meanwhile (further clicks on it are ignored).
   * @param {HTMLElement} row @param {string} productId @param {number} quantity @param {string} eventName
   * @param {Record<string, string>} [props]
   */
  async #setLine(row, productId, quantity, eventName, props = {}) {
    if (row.getAttribute("aria-busy") === "true" || !productId) return;
    const { basket, notices, track } = services;
    const ingredientId = row.dataset.ingredientId ?? "";
    this.#setBusy(row, true);
    try {
      await basket.setIngredient(this.#recipeId, ingredientId, productId, quantity);
      if (this.#choices.get(ingredientId) === productId) this.#choices.delete(ingredientId);
      track(eventName, { recipe_id: this.#recipeId, ingredient_id: ingredientId, product_id: productId, quantity, ...props });
    } catch (error) {
      notices.error(error);
    } finally {
      this.#setBusy(row, false);
    }
  }

  /** "Add all": the recipe for the guests shown with the products chosen here, in one basket write. */
  async #addAll(/** @type {HTMLElement} */ control) {
    if (control.getAttribute("aria-busy") === "true") return;
    const { basket, notices, track } = services;
    control.setAttribute("aria-busy", "true");
    control.setAttribute("aria-disabled", "true");
    try {
      /** @type {import("../sdk/basket.js").ChosenLine[]} */
      const lines = [];
      for (const [ingredientId, productId] of this.#choices) {
        const row = this.#rows().find((r) => r.dataset.ingredientId === ingredientId);
        if (row && productId !== this.#origins.get(row)?.productId) {
          lines.push({ ingredient_id: ingredientId, product_id: productId, quantity: this.#packagesFor(row, productId) });
        }
      }
      await basket.addRecipe(this.#recipeId, this.#guests.value, lines);
      this.#choices.clear();
      track("entry.add-all", { recipe_id: this.#recipeId, guests: this.#guests.value });
      this.#reportAddAll();
    } catch (error) {
      notices.error(error);
    } finally {
      control.removeAttribute("aria-busy");
      control.removeAttribute("aria-disabled");
    }
  }

  /** After "add all": how many of the shopping list's ingredients (unavailable ones included) the entry has. */
  #reportAddAll() {
    const { basket, recipeEvents } = services;
    const lines = basket.entry(this.#recipeId)?.lines ?? [];
    const inBasket = new Set(lines.map((/** @type {any} */ line) => String(line.ingredient_id)));
    const rows = this.#rows();
    recipeEvents.addAllClicked.next({
      ingredientsAdded: rows.filter((row) => inBasket.has(row.dataset.ingredientId ?? "")).length,
      ingredientsTotal: rows.length,
    });
  }

  /** @param {HTMLElement} row @param {boolean} busy */
  #setBusy(row, busy) {
    if (busy) row.setAttribute("aria-busy", "true");
    else row.removeAttribute("aria-busy");
    for (const button of row.querySelectorAll(".svc-recipe-details__product-action button")) {
      if (busy) button.setAttribute("aria-disabled", "true");
      else button.removeAttribute("aria-disabled");
    }
  }

  // --- unavailable ingredients -------------------------------------------------------------------

  /**
   * When the page asked for it (`features.collapseUnavailableProductsByDefault()`), the shopping list's
   * unavailable ingredients move to a list of their own after it, hidden behind a toggle button.
   * @param {boolean} shown the list starts shown (the shopper had opened it before a re-fetch)
   */
  #collapseUnavailable(shown) {
    if (!services.customization.collapseUnavailable$.value) return;
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

  #labelUnavailableToggle() {
    const toggle = this.#unavailableToggle;
    if (!toggle) return;
    const count = this.#root.querySelectorAll(`${ROW}${UNAVAILABLE}`).length;
    toggle.textContent = toggle.getAttribute("aria-expanded") === "true"
      ? this.#t("details.unavailable-hide")
      : this.#t("details.unavailable-show", { count });
  }

  #toggleUnavailable() {
    const toggle = this.#unavailableToggle;
    const list = toggle ? this.#root.querySelector(`#${CSS.escape(toggle.getAttribute("aria-controls") ?? "")}`) : null;
    if (!toggle || !(list instanceof HTMLElement)) return;
    const shown = toggle.getAttribute("aria-expanded") !== "true";
    toggle.setAttribute("aria-expanded", String(shown));
    list.hidden = !shown;
    this.#labelUnavailableToggle();
  }

  // --- replace -----------------------------------------------------------------------------------

  /** Shows or hides a row's alternatives (the server's `__alternatives` list). @param {HTMLElement} row */
  #toggleAlternatives(row) {
    const list = /** @type {HTMLElement | null} */ (row.querySelector(".svc-recipe-details__alternatives"));
    if (!list) return;
    if (!list.hidden) {
      this.#closeAlternatives(row, false);
      return;
    }
    for (const other of this.#rows()) if (other !== row) this.#closeAlternatives(other, false);
    this.#syncAlternatives(row);
    list.hidden = false;
    row.querySelector(".svc-recipe-details__replace")?.setAttribute("aria-expanded", "true");
    /** @type {HTMLElement[]} */ ([...list.querySelectorAll("button")]).find((button) => !button.closest("[hidden]"))?.focus();
  }

  /** @param {HTMLElement} row @param {boolean} focusTrigger */
  #closeAlternatives(row, focusTrigger) {
    const list = /** @type {HTMLElement | null} */ (row.querySelector(".svc-recipe-details__alternatives"));
    if (!list || list.hidden) return;
    list.hidden = true;
    const trigger = /** @type {HTMLElement | null} */ (row.querySelector(".svc-recipe-details__replace"));
    trigger?.setAttribute("aria-expanded", "false");
    if (focusTrigger) trigger?.focus();
  }

  /**
   * Another product for an ingredient: replaced in the basket when the line is there, else remembered
   * for the row's next "add" (or "add all").
   * @param {HTMLElement} row @param {string} productId
   */
  async #choose(row, productId) {
    this.#closeAlternatives(row, true);
    if (!productId) return;
    const { basket } = services;
    const ingredientId = row.dataset.ingredientId ?? "";
    const line = basket.entry(this.#recipeId)?.lines.find((/** @type {any} */ l) => String(l.ingredient_id) === ingredientId);
    if (line) {
      if (String(line.product_id) === productId) return;
      await this.#setLine(row, productId, this.#packagesFor(row, productId), "entry.replace",
        { previous_product_id: String(line.product_id) });
      return;
    }
    if (productId === this.#origins.get(row)?.productId) this.#choices.delete(ingredientId);
    else this.#choices.set(ingredientId, productId);
    // Only this row changed: the others are not rendered again (the click answers sooner: docs/decisions.md).
    this.#renderRow(row, this.#entryIn(basket.basket$.value ?? null));
  }

  /** @param {{ action: string | null, ingredient: string | null }} focus */
  #restoreFocus(focus) {
    const scope = [...this.#root.querySelectorAll("button, [role='tab']"), ...(this.#footer?.querySelectorAll("button") ?? [])];
    const target = /** @type {HTMLElement[]} */ (scope).find((element) => this.#actionOf(element) === focus.action
      && (element.closest("[data-ingredient-id]")?.getAttribute("data-ingredient-id") ?? null) === focus.ingredient);
    target?.focus({ preventScroll: true });
  }
}

/** The JSON child of the fragment (`<script type="application/json" class="svc-recipe-details__data">`). */
function readData(/** @type {HTMLElement} */ root) {
  const script = root.querySelector("script.svc-recipe-details__data");
  if (!script?.textContent) return {};
  try {
    const data = JSON.parse(script.textContent);
    return data && typeof data === "object" ? data : {};
  } catch (error) {
    console.error("recipe details: unreadable JSON", error);
    return {};
  }
}

/** @param {unknown} value */
function positiveInt(value) {
  const number = Number(value);
  return Number.isInteger(number) && number > 0 ? number : null;
}
