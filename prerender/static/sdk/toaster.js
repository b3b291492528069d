// The confirmation toaster (`recipes.showConfirmationToaster()`): once the page asked for it, each basket change
// that added products to the shopper's cart says so in a short message at the bottom of the viewport. A status
// message (role="status", announced politely), never focused, gone after a few seconds; the newest replaces
// the previous one. Styled by base.css (`.svc-toaster`).

const SHOWN_MS = 4000;

export class Toaster {
  /** @type {HTMLElement | null} */
  #element = null;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  #timer;
  #prefix;

  /** @param {{ prefix: string }} options */
  constructor({ prefix }) {
    this.#prefix = prefix;
  }

  /** Shows `text` (replacing what is shown). @param {string} text */
  show(text) {
    if (!this.#element?.isConnected) {
      this.#element = document.createElement("div");
      this.#element.className = "svc-ds-scope svc-toaster";
      this.#element.setAttribute("role", "status");
      this.#element.setAttribute(`data-${this.#prefix}-toaster`, "");
      document.body.append(this.#element);
    }
    const element = this.#element;
    clearTimeout(this.#timer);
    element.classList.remove("svc-toaster--visible");
    element.textContent = "";
    // A new text node after the clear: assistive technology announces a repeated message again.
    requestAnimationFrame(() => {
      element.textContent = text;
      element.classList.add("svc-toaster--visible");
    });
    this.#timer = setTimeout(() => {
      element.classList.remove("svc-toaster--visible");
      element.textContent = "";
    }, SHOWN_MS);
  }
}
