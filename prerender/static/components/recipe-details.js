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
//
// Its parts, in components/recipe-details/ (bundled into this module in the release tree): the tabs (tabs.js),
// the guest stepper (guests.js) and the ingredient rows' view (rows.js); the basket writes stay here.
import { services, money, linesPrice, prepareMoney, bindLikeButton, translator, jsonText } from "./ui.js";
import { Tabs } from "./recipe-details/tabs.js";
import { GuestStepper, clampGuests } from "./recipe-details/guests.js";
import { IngredientRows, ROW, lineOf } from "./recipe-details/rows.js";

/**
 * @typedef {object} Snapshot what survives a re-fetch of the details (new guests)
 * @property {number} tab
 * @property {{ action: string | null, ingredient: string | null } | null} focus
 * @property {Map<string, string>} choices
 * @property {boolean} [unavailableShown] the collapsed unavailable ingredients were shown
 * @property {string | null} [alternatives] the ingredient whose alternatives list was open
 * @property {number | null} [guests] a count the stepper showed and had not settled yet (a step taken while the
 *   details of the previous one were on their way): the next details take it up
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
  /** @type {{ ingredients?: import("./recipe-details/rows.js").Ingredient[], texts?: Record<string, string> }} */
  #data;
  #t;
  /** @type {GuestStepper} */
  #guests;
  /** The recipe's guests in the basket when the drawer last followed it (null: not in the basket). */
  /** @type {number | null} */
  #entryGuests = null;
  /** A check of the basket's count waits for the basket's calls (`#followGuests`). */
  #following = false;
  /** @type {Map<string, string>} ingredient id -> product chosen while the recipe is not in the basket */
  #choices;
  /** @type {IngredientRows} */
  #rows;
  /** @type {Tabs} */
  #tabs;
  #totalText = "";
  #destroyed = false;

  /**
   * @param {object} options
   * @param {HTMLElement} options.root the `.svc-recipe-details` element, in the document
   * @param {HTMLElement | null} options.footer its `__footer`, moved into the drawer's footer
   * @param {string} options.recipeId
   * @param {{ reload(options: { guests: number, from?: { recipeId: string, guests: number } }): Promise<unknown>, whileSlow<T>(work: Promise<T>): Promise<T> }} options.drawer
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
    this.#rows = new IngredientRows(root, {
      recipeId: this.#recipeId, ingredients: this.#data.ingredients ?? [], t: this.#t, choices: this.#choices,
    });
    this.#totalText = footer?.querySelector(".svc-recipe-details__total-amount")?.textContent ?? "";
    if (services.customization.collapseUnavailable$.value) this.#rows.collapseUnavailable(restore?.unavailableShown ?? false);

    this.#entryGuests = basket.entry(this.#recipeId)?.guests ?? null;
    this.#render();
    this.#subscriptions.push(basket.basket$.subscribe(() => this.#render()));
    const open = restore?.alternatives ? this.#rows.rowOf(restore.alternatives) : null;
    if (open) this.#rows.openAlternatives(open, false);
    if (restore?.focus) this.#restoreFocus(restore.focus);
    if (restore?.guests) this.#guests.show(restore.guests);
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
      unavailableShown: this.#rows.unavailableShown,
      alternatives: this.#rows.openIngredient,
      guests: this.#guests.pending,
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
      case "replace": if (row) this.#rows.toggleAlternatives(row); break;
      case "choose-product": if (row) void this.#choose(row, control.dataset.productId ?? ""); break;
      case "add-all": void this.#addAll(control); break;
      case "toggle-unavailable": this.#rows.toggleUnavailable(); break;
      default: break;
    }
  }

  /** @param {KeyboardEvent} event */
  #onKeydown(event) {
    const target = event.target instanceof HTMLElement ? event.target : null;
    if (!target) return;
    if (event.key === "Escape") {
      const row = /** @type {HTMLElement | null} */ (target.closest(ROW));
      if (row && this.#rows.alternativesOpen(row)) {
        event.preventDefault(); // the drawer stays open: only the list closes
        this.#rows.closeAlternatives(row, true);
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
    // Tracked once the change holds: for a recipe in the basket, once the basket took it (not when the service
    // or the page's hook refused it, the drawer back at the basket's count), as the basket's other events are.
    const changed = () => track("recipe.change-guests", { recipe_id: this.#recipeId, guests });
    // The page's other controls of this recipe (a publisher's CTA) follow once the basket has the new count.
    const share = () => services.guests.set(this.#recipeId, guests);
    if (basket.entry(this.#recipeId)) {
      this.#drawer.whileSlow(basket.setGuests(this.#recipeId, guests)).then(() => {
        changed();
        share();
      }, (/** @type {unknown} */ error) => {
        notices.error(error);
        // Refused (by the page's hook, the service or the network): the recipe stays in the basket for its guests,
        // and the drawer shows those again once the basket's calls are done (a 404 or 409 reloads the basket),
        // unless it has moved on since (another count, another recipe, closed). This instance may be gone by then
        // (the refused count's details replaced it): the drawer decides.
        const recipeId = this.#recipeId;
        void basket.whenIdle().then(() => {
          const held = Number(basket.entry(recipeId)?.guests ?? 0);
          if (held > 0 && held !== guests) this.#drawer.reload({ guests: held, from: { recipeId, guests } }).catch(() => {});
        });
      });
    } else {
      changed();
      share();
    }
    this.#drawer.reload({ guests }).catch(() => {}); // the drawer shows the failure
  }

  // --- rendering --------------------------------------------------------------------------------

  /**
   * Every row, the footer and the root follow the basket (its State holds the new value when it emits). The
   * recipe's guests changed by another tab (or device) bring the details for those guests, unless the shopper is
   * stepping here: the stepper, the rows' packages and "add all" are then the basket's again.
   */
  #render() {
    if (this.#destroyed) return;
    const entry = services.basket.entry(this.#recipeId) ?? null;
    const guests = entry ? Number(entry.guests) : null;
    const changedElsewhere = guests !== null && guests !== this.#entryGuests && guests !== this.#guests.value;
    this.#entryGuests = guests;
    if (changedElsewhere && this.#guests.pending === null) this.#followGuests();
    this.#root.setAttribute("in-basket", String(Boolean(entry)));
    for (const row of this.#rows.all()) this.#rows.render(row, entry);
    this.#renderFooter(entry);
  }

  /**
   * The basket's count changed, by another tab or by an answer of this drawer's own earlier step: once the basket
   * calls queued here are done, the details follow the count the basket then holds, when it is neither the one
   * the stepper shows nor one the shopper is stepping to.
   */
  #followGuests() {
    if (this.#following) return;
    this.#following = true;
    void services.basket.whenIdle().then(() => {
      this.#following = false;
      if (this.#destroyed || this.#guests.pending !== null) return;
      const guests = Number(services.basket.entry(this.#recipeId)?.guests ?? 0);
      if (guests > 0 && guests !== this.#guests.value) this.#drawer.reload({ guests }).catch(() => {});
    });
  }

  /** @param {any} entry */
  #renderFooter(entry) {
    if (!this.#footer) return;
    const amount = this.#footer.querySelector(".svc-recipe-details__total-amount");
    if (amount && entry) {
      amount.textContent = money(linesPrice(entry.lines));
    } else if (amount) {
      const chosen = this.#rows.chosenTotal(); // a product swapped before "add all", else the server's total
      amount.textContent = chosen === null ? this.#totalText : money(chosen);
    }
    const addAll = /** @type {HTMLElement | null} */ (this.#footer.querySelector(".svc-recipe-details__add-all"));
    const label = entry ? addAll?.dataset.inBasketLabel : addAll?.dataset.notInBasketLabel;
    if (addAll && label && addAll.textContent !== label) addAll.textContent = label;
  }

  // --- basket actions ----------------------------------------------------------------------------

  /** @param {HTMLElement} row */
  #addProduct(row) {
    const productId = row.dataset.productId ?? "";
    return this.#setLine(row, productId, this.#rows.packagesFor(row, productId), "entry.add");
  }

  /** @param {HTMLElement} row @param {number} delta */
  #changeQuantity(row, delta) {
    const { basket } = services;
    const line = lineOf(basket.entry(this.#recipeId), row.dataset.ingredientId);
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
    this.#rows.setBusy(row, true);
    try {
      // The drawer's guests, for the entry the line makes when the recipe is not in the basket yet.
      await this.#drawer.whileSlow(
        basket.setIngredient(this.#recipeId, ingredientId, productId, quantity, this.#guests.value));
      if (this.#choices.get(ingredientId) === productId) this.#choices.delete(ingredientId);
      track(eventName, { recipe_id: this.#recipeId, ingredient_id: ingredientId, product_id: productId, quantity, ...props });
      // Taken out: the row's stepper became its "add" button, which says nothing of what went.
      if (quantity === 0) notices.show(notices.t("details.removed", { name: this.#rows.productName(row) }));
    } catch (error) {
      notices.error(error);
    } finally {
      this.#rows.setBusy(row, false);
    }
  }

  /**
   * "Add all": the recipe for the guests shown with the products chosen here, in one basket write. Pressed when
   * the recipe is in the basket already ("Recette dans le panier"), the write changes nothing unless the guests
   * or a chosen product differ (the service scales an entry; it does not add back a line taken out): a press
   * that changed nothing says so in the drawer, whatever the host's choice of confirmations.
   */
  async #addAll(/** @type {HTMLElement} */ control) {
    if (control.getAttribute("aria-busy") === "true") return;
    const { basket, notices, track } = services;
    const before = entrySnapshot(basket.entry(this.#recipeId));
    control.setAttribute("aria-busy", "true");
    control.setAttribute("aria-disabled", "true");
    try {
      /** @type {import("../sdk/basket.js").ChosenLine[]} */
      const lines = [];
      for (const [ingredientId, productId] of this.#choices) {
        const row = this.#rows.all().find((r) => r.dataset.ingredientId === ingredientId);
        if (row && productId !== this.#rows.originalProduct(row)) {
          lines.push({ ingredient_id: ingredientId, product_id: productId, quantity: this.#rows.packagesFor(row, productId) });
        }
      }
      await this.#drawer.whileSlow(basket.addRecipe(this.#recipeId, this.#guests.value, lines));
      this.#choices.clear();
      track("entry.add-all", { recipe_id: this.#recipeId, guests: this.#guests.value });
      this.#reportAddAll();
      if (before !== null && before === entrySnapshot(basket.entry(this.#recipeId))) {
        notices.show(notices.t("details.nothing-added"));
      }
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
    const rows = this.#rows.all();
    recipeEvents.addAllClicked.next({
      ingredientsAdded: rows.filter((row) => inBasket.has(row.dataset.ingredientId ?? "")).length,
      ingredientsTotal: rows.length,
    });
  }

  // --- replace -----------------------------------------------------------------------------------

  /**
   * Another product for an ingredient: replaced in the basket when the line is there, else remembered
   * for the row's next "add" (or "add all").
   * @param {HTMLElement} row @param {string} productId
   */
  async #choose(row, productId) {
    this.#rows.closeAlternatives(row, true);
    if (!productId) return;
    const { basket } = services;
    const ingredientId = row.dataset.ingredientId ?? "";
    const line = lineOf(basket.entry(this.#recipeId), ingredientId);
    if (line) {
      if (String(line.product_id) === productId) return;
      await this.#setLine(row, productId, this.#rows.packagesFor(row, productId), "entry.replace",
        { previous_product_id: String(line.product_id) });
      return;
    }
    if (productId === this.#rows.originalProduct(row)) this.#choices.delete(ingredientId);
    else this.#choices.set(ingredientId, productId);
    // Only this row changed: the others are not rendered again (the click answers sooner: docs/decisions.md); the
    // footer's total follows the chosen product.
    const entry = basket.entry(this.#recipeId) ?? null;
    this.#rows.render(row, entry);
    this.#renderFooter(entry);
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

/**
 * What a basket entry holds, as one comparable string (its guests, and each line's ingredient, product and
 * packages); null for a recipe not in the basket. @param {any} entry
 */
function entrySnapshot(entry) {
  if (!entry) return null;
  const lines = (entry.lines ?? []).map((/** @type {any} */ line) => `${line.ingredient_id}:${line.product_id}:${line.quantity}`);
  return jsonText([String(entry.guests), lines.sort()]);
}
