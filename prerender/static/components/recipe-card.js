// <svc-recipe-card>: upgrades the server-rendered card. Idempotent: defined once whatever the number of
// fragments loading this module. The markup is never re-rendered; listeners are attached to what exists.
const query = new URL(import.meta.url).search;
const { sdk } = await import(new URL(`../sdk/svc.js${query}`, import.meta.url).href);
const tagName = `${sdk.prefix}-recipe-card`;

export class RecipeCardElement extends HTMLElement {
  #onClick = (event) => {
    const trigger = event.target.closest("[data-action]");
    if (!trigger || !this.contains(trigger)) return;
    const action = trigger.dataset.action;
    if (action === "open-details" || action === "like") {
      // Consumers (the drawer and like modules of the SDK) listen for these; the card only announces.
      this.dispatchEvent(new CustomEvent(`${sdk.prefix}:${action}`, {
        bubbles: true,
        composed: true,
        detail: { recipeId: this.recipeId, guests: this.guests, storeId: this.getAttribute("store-id") },
      }));
    }
  };

  get recipeId() {
    return this.getAttribute("recipe-id");
  }

  get guests() {
    const value = Number.parseInt(this.getAttribute("guests") ?? "", 10);
    return Number.isFinite(value) && value > 0 ? value : null;
  }

  connectedCallback() {
    this.addEventListener("click", this.#onClick);
    this.toggleAttribute("hydrated", true);
  }

  disconnectedCallback() {
    this.removeEventListener("click", this.#onClick);
  }
}

if (!customElements.get(tagName)) {
  customElements.define(tagName, RecipeCardElement);
}
