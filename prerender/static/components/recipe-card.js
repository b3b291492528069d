// <svc-recipe-card>: upgrades the server-rendered card (templates/recipe_card/card.html). Idempotent:
// defined once whatever the number of fragments loading this module. The markup is never re-rendered;
// listeners are attached to what exists, and everything attached is detached when the card is removed.
//
// - a click on the basket CTA, the picture or the title ([data-action="open-details"]) opens the drawer;
// - the card follows the basket: attribute in-basket="true|false", class in-basket, CTA look and label
//   (data-in-basket-label / data-not-in-basket-label), event inBasketStatus (detail: boolean) on change;
// - the heart toggles the like (optimistic, rolled back on error);
// - personalization="client": the server left out heart and CTA (cacheable fragment); they are made here,
//   the heart only for a logged-in user (the session's credential is a user's);
// - `recipes.shouldDisplayIngredientPicturesOnRecipeCard(true)`: a row of the pictures the server listed in
//   `data-ingredient-pictures` (up to 4) under the title, removed again with `false`;
// - recipe.show is tracked while the card is on the page.
import { sdk, services, icon, h, bindLikeButton, validGuestCount } from "./ui.js";

const tagName = `${sdk.prefix}-recipe-card`;
const CLIENT_MADE = "clientRendered";
const INGREDIENT_PICTURES = 4;

export class RecipeCardElement extends HTMLElement {
  /** @type {AbortController | null} */
  #listeners = null;
  /** @type {{ unsubscribe(): void }[]} */
  #subscriptions = [];
  /** @type {{ disconnect(): void } | null} */
  #tracking = null;
  /** @type {{ destroy(): void } | null} */
  #like = null;
  /** @type {boolean | null} */
  #inBasket = null;

  get recipeId() {
    return (this.getAttribute("recipe-id") ?? "").trim();
  }

  /** The card's guest count, or null when the attribute is not 1 to 50 in digits (ignored, as the CTA's). */
  get guests() {
    return validGuestCount(this.getAttribute("guests"));
  }

  connectedCallback() {
    const recipeId = this.recipeId;
    if (!recipeId || this.#listeners) return;
    this.#listeners = new AbortController();
    this.addEventListener("click", (event) => this.#onClick(event), { signal: this.#listeners.signal });

    if (this.getAttribute("personalization") === "client") {
      this.#ensureCta();
      this.#subscriptions.push(services.session.identity$.subscribe(
        (/** @type {{ kind: string } | null} */ identity) => this.#showHeart(identity?.kind === "user"),
      ));
    } else {
      this.#bindHeart();
    }

    const pictures = this.#ingredientPictures();
    if (pictures.length > 0) {
      this.#subscriptions.push(services.customization.ingredientPicturesOnCard$.subscribe(
        (/** @type {boolean} */ shown) => this.#showIngredientPictures(shown ? pictures : []),
      ));
    }
    this.#subscriptions.push(sdk.basket.inBasket$(recipeId).subscribe((/** @type {boolean} */ inBasket) => this.#reflect(inBasket)));
    sdk.basket.initialize().catch(() => {}); // logged by the basket; the card stays as the server made it
    this.#tracking = sdk.analytics.attachRecipeCardShowTracking({ element: this, recipeId });
    this.toggleAttribute("hydrated", true);
  }

  disconnectedCallback() {
    this.#listeners?.abort();
    this.#listeners = null;
    for (const subscription of this.#subscriptions.splice(0)) subscription.unsubscribe();
    this.#tracking?.disconnect();
    this.#tracking = null;
    this.#like?.destroy();
    this.#like = null;
    this.#inBasket = null;
  }

  /** @param {MouseEvent} event */
  #onClick(event) {
    const trigger = /** @type {Element | null} */ (event.target instanceof Element ? event.target.closest("[data-action]") : null);
    if (!trigger || !this.contains(trigger) || trigger.getAttribute("data-action") !== "open-details") return;
    event.preventDefault();
    // Focus comes back to the title when the picture (out of the tab order, aria-hidden) opened it.
    const title = /** @type {HTMLElement | null} */ (this.querySelector(".svc-recipe-card__title-button"));
    const opener = trigger.getAttribute("tabindex") === "-1" && title ? title : /** @type {HTMLElement} */ (trigger);
    sdk.recipes.openDetails(this.recipeId, this.guests ?? undefined, {
      opener,
      source: "card",
      title: title?.textContent?.trim(),
      storeId: this.getAttribute("store-id") ?? undefined,
    }).catch(() => {}); // the drawer shows the failure, or the toaster when the drawer cannot open
  }

  /** @param {boolean} inBasket */
  #reflect(inBasket) {
    this.setAttribute("in-basket", String(inBasket));
    this.classList.toggle("in-basket", inBasket);
    for (const cta of this.querySelectorAll(".svc-recipe-card-cta")) {
      cta.classList.toggle("svc-recipe-card-cta--in-basket", inBasket);
      cta.classList.toggle("svc-ds-button--secondary", inBasket);
      cta.classList.toggle("svc-ds-button--primary", !inBasket);
      const label = this.#ctaLabel(/** @type {HTMLElement} */ (cta), inBasket);
      const text = cta.querySelector(".svc-ds-visually-hidden");
      if (label && text && text.textContent !== label) text.textContent = label;
    }
    const changed = this.#inBasket !== null && this.#inBasket !== inBasket;
    this.#inBasket = inBasket;
    if (changed) this.dispatchEvent(new CustomEvent("inBasketStatus", { detail: inBasket, bubbles: true }));
  }

  /** The CTA text for a state: on the CTA itself, else on the card (personalization="client"). */
  #ctaLabel(/** @type {HTMLElement} */ cta, /** @type {boolean} */ inBasket) {
    const name = inBasket ? "inBasketLabel" : "notInBasketLabel";
    return cta.dataset[name] || this.dataset[name] || "";
  }

  /** The ingredient pictures the server listed (`data-ingredient-pictures`, a JSON array of http(s) URLs). */
  #ingredientPictures() {
    try {
      const urls = JSON.parse(this.dataset.ingredientPictures ?? "[]");
      return Array.isArray(urls)
        ? urls.filter((url) => typeof url === "string" && /^https?:\/\//i.test(url)).slice(0, INGREDIENT_PICTURES)
        : [];
    } catch {
      return [];
    }
  }

  /**
   * The row of ingredient pictures under the title (decorative: the drawer lists the ingredients), or none.
   * @param {string[]} urls
   */
  #showIngredientPictures(urls) {
    const current = this.querySelector(".svc-recipe-card__ingredient-pictures");
    if (urls.length === 0) {
      current?.remove();
      return;
    }
    if (current) return;
    const row = h("ul", { class: "svc-recipe-card__ingredient-pictures", "aria-hidden": "true" },
      ...urls.map((src) => h("li", { class: "svc-recipe-card__ingredient-picture" },
        h("img", { src, alt: "", width: "32", height: "32", loading: "lazy", decoding: "async", "data-svc-picture": "ingredient" }))));
    this.querySelector(".svc-recipe-card__title")?.after(row);
  }

  /** The heart the server rendered, if any. */
  #bindHeart() {
    const button = this.querySelector(".svc-like-button");
    if (button instanceof HTMLButtonElement) this.#like = bindLikeButton(button, this.recipeId);
  }

  /** personalization="client": the basket CTA, as templates/recipe_card/card.html renders it. */
  #ensureCta() {
    const footer = this.querySelector(".svc-recipe-card__footer");
    if (!footer || footer.querySelector(".svc-recipe-card-cta")) return;
    const label = this.dataset.notInBasketLabel ?? "";
    const cta = h("button", {
      type: "button",
      class: "svc-recipe-card-cta svc-ds-button svc-ds-button--primary svc-ds-button--icon",
      "data-action": "open-details",
      "aria-haspopup": "dialog",
      dataset: { [CLIENT_MADE]: "" },
    }, h("span", { class: "svc-ds-visually-hidden" }, label), " ",
    h("span", { class: "svc-ds-visually-hidden", "data-role": "cta-recipe" }, this.dataset.ctaRecipe ?? ""),
    icon("basket", "svc-ds-icon svc-recipe-card-cta__icon"));
    footer.append(cta);
  }

  /**
   * personalization="client": the heart, for connected users only, placed like the template does
   * (over the picture, or after the price in variant 3). The server opts in by giving its texts
   * (data-like-label on the card): without it, no heart.
   * @param {boolean} connected
   */
  #showHeart(connected) {
    let button = this.querySelector(".svc-like-button");
    const show = connected && Boolean(this.dataset.likeLabel);
    if (!show) {
      this.#like?.destroy();
      this.#like = null;
      if (button instanceof HTMLElement && CLIENT_MADE in button.dataset) button.remove();
      return;
    }
    if (!button) {
      const inline = this.getAttribute("display-variant") === "3";
      button = h("button", {
        type: "button",
        class: `svc-like-button svc-recipe-card__like svc-recipe-card__like--${inline ? "inline" : "overlay"}`,
        "data-action": "like",
        "data-recipe-id": this.recipeId,
        "aria-pressed": "false",
        "aria-label": this.dataset.likeLabel,
        // Unknown until the page's batched read (as the server's heart): "unpressed" would tell the page the recipe
        // is not liked (the favorites list takes an unliked card out).
        dataset: {
          [CLIENT_MADE]: "", likeState: "unknown", likeLabel: this.dataset.likeLabel,
        },
      }, icon("heart", "svc-ds-icon svc-like-button__icon"));
      if (inline) {
        const footer = this.querySelector(".svc-recipe-card__footer");
        const cta = footer?.querySelector(".svc-recipe-card-cta");
        if (cta) cta.before(button);
        else footer?.append(button);
      } else {
        this.querySelector(".svc-recipe-card__media")?.append(button);
      }
    }
    if (!this.#like && button instanceof HTMLButtonElement) this.#like = bindLikeButton(button, this.recipeId);
  }
}

if (!customElements.get(tagName)) {
  customElements.define(tagName, RecipeCardElement);
}
