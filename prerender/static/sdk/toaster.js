// The toaster: a short message at the top of the viewport. The confirmation of `recipes.showConfirmationToaster()`
// (once the page asked for it, each basket change that added products to the shopper's cart says so), what became
// of a transferred basket (sdk/transfer.js), a drawer slow to open or that cannot (sdk/drawer-loading.js). A status
// message (role="status", announced politely), never focused, gone after a few seconds; the newest replaces
// the previous one. Styled by base.css (`.svc-toaster`); kept in the browser's top layer above the drawer and the
// retailer's page (sdk/top-layer.js).

const SHOWN_MS = 4000;

export class Toaster {
  /** @type {HTMLElement | null} */
  #element = null;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  #timer;
  /** @type {number | undefined} */
  #frame;
  #prefix;
  #topLayer;
  /** The text shown (or about to show), "" when none. */
  #text = "";

  /** @param {{ prefix: string, topLayer: import("./top-layer.js").TopLayer }} options */
  constructor({ prefix, topLayer }) {
    this.#prefix = prefix;
    this.#topLayer = topLayer;
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
    this.#topLayer.keepAbove(element);
    return element;
  }

  /**
   * Shows `text` (replacing what is shown), for `shownMs` (4 s by default).
   * @param {string} text @param {number} [shownMs]
   */
  show(text, shownMs = SHOWN_MS) {
    const element = this.prepare();
    this.#clear();
    this.#text = text;
    // A new text node after the clear: assistive technology announces a repeated message again. The time it
    // stays counts from when it shows (a background tab runs no frame until it is visible again).
    this.#frame = requestAnimationFrame(() => {
      this.#frame = undefined;
      element.textContent = text;
      element.classList.add("svc-toaster--visible");
      this.#timer = setTimeout(() => this.#clear(), shownMs);
    });
  }

  /** Takes `text` away at once if it is the one shown (a newer message stays). @param {string} text */
  hide(text) {
    if (this.#text === text) this.#clear();
  }

  /** Nothing shown nor about to show: the message's frame and time stopped, the element emptied. */
  #clear() {
    clearTimeout(this.#timer);
    if (this.#frame !== undefined) cancelAnimationFrame(this.#frame);
    this.#frame = undefined;
    this.#text = "";
    if (!this.#element) return;
    this.#element.classList.remove("svc-toaster--visible");
    this.#element.textContent = "";
  }
}
