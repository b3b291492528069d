// The confirmation toaster (`recipes.showConfirmationToaster()`): once the page asked for it, each basket change
// that added products to the shopper's cart says so in a short message at the top of the viewport. A status
// message (role="status", announced politely), never focused, gone after a few seconds; the newest replaces
// the previous one. Styled by base.css (`.svc-toaster`).

const SHOWN_MS = 4000;

export class Toaster {
  /** @type {HTMLElement | null} */
  #element = null;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  #timer;
  /** @type {number | undefined} */
  #frame;
  #prefix;

  /** @param {{ prefix: string }} options */
  constructor({ prefix }) {
    this.#prefix = prefix;
  }

  /** Creates the (empty) live region ahead of its first message: a region filled as it appears may not be read. */
  prepare() {
    if (this.#element?.isConnected) return this.#element;
    const element = document.createElement("div");
    element.className = "svc-ds-scope svc-toaster";
    element.setAttribute("role", "status");
    element.setAttribute(`data-${this.#prefix}-toaster`, "");
    (document.body ?? document.documentElement).append(element);
    this.#element = element;
    return element;
  }

  /**
   * Shows `text` (replacing what is shown), for `shownMs` (4 s by default).
   * @param {string} text @param {number} [shownMs]
   */
  show(text, shownMs = SHOWN_MS) {
    const element = this.prepare();
    clearTimeout(this.#timer);
    if (this.#frame !== undefined) cancelAnimationFrame(this.#frame);
    element.classList.remove("svc-toaster--visible");
    element.textContent = "";
    // A new text node after the clear: assistive technology announces a repeated message again. The time it
    // stays counts from when it shows (a background tab runs no frame until it is visible again).
    this.#frame = requestAnimationFrame(() => {
      this.#frame = undefined;
      element.textContent = text;
      element.classList.add("svc-toaster--visible");
      this.#timer = setTimeout(() => {
        element.classList.remove("svc-toaster--visible");
        element.textContent = "";
      }, shownMs);
    });
  }
}
