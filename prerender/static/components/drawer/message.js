// The open drawer's message line (components/drawer.js): what an action in it did ("6 produits ajoutés à votre
// panier") or why it failed. Built once with the drawer, so that its two live regions are in the page, empty,
// before their first message (a region inserted with its text may not be read: sdk/toaster.js says the same of
// its own). A message is said by the region of its kind (`role="status"` for news, `role="alert"` for a failure),
// which holds its text only: the dismiss button beside it is not read as part of the message.
// News goes away after MESSAGE_MS, but never while the shopper's pointer or focus is on it (its dismiss button
// focused and the message gone would leave the focus on the page's body, outside the modal); a failure stays until
// dismissed, replaced by the next message or the drawer closed, and so does news shown `lasting` ("One moment…"
// while a write is slow), which its writer withdraws.
import { h } from "../ui.js";

const MESSAGE_MS = 6000;
/** The empty line's classes: its state, and out of sight but in the accessibility tree (base.css). */
const EMPTY = "svc-drawer__message--none svc-ds-visually-hidden";

/** @typedef {"info" | "error"} MessageKind */

export class DrawerMessage {
  /** The line: the two regions and the dismiss button; hidden to the eye (not to assistive technology) while empty. */
  element;
  /** @type {Record<MessageKind, HTMLElement>} */ #regions;
  /** @type {HTMLButtonElement} */ #dismiss;
  /** @type {MessageKind | null} */ #kind = null;
  /** The text shown (or about to be, a frame later), for `withdraw`. @type {string | null} */ #text = null;
  #lasting = false;
  /** @type {ReturnType<typeof setTimeout> | undefined} */ #timer;
  /** @type {number | undefined} */ #frame;
  #held = { pointer: false, focus: false };
  /** Where the focus goes when the message goes from under it. */ #focusAfter;

  /**
   * @param {{ dismissLabel: string, focusAfter: () => void }} options
   */
  constructor({ dismissLabel, focusAfter }) {
    this.#focusAfter = focusAfter;
    this.#regions = {
      info: h("p", { class: "svc-drawer__message-text", role: "status" }),
      error: h("p", { class: "svc-drawer__message-text", role: "alert" }),
    };
    this.#dismiss = /** @type {HTMLButtonElement} */ (h("button", {
      type: "button", class: "svc-drawer__message-dismiss svc-ds-link", "aria-label": dismissLabel, hidden: "",
    }, "×"));
    this.element = h("div", { class: `svc-drawer__message ${EMPTY}` },
      this.#regions.info, this.#regions.error, this.#dismiss);
    this.#dismiss.addEventListener("click", () => this.clear());
    this.element.addEventListener("pointerenter", () => this.#hold("pointer", true));
    this.element.addEventListener("pointerleave", () => this.#hold("pointer", false));
    this.element.addEventListener("focusin", () => this.#hold("focus", true));
    this.element.addEventListener("focusout", (event) => {
      const to = event.relatedTarget;
      if (!(to instanceof Node && this.element.contains(to))) this.#hold("focus", false);
    });
  }

  /**
   * Shows `text` in place of the message shown, if any. The text goes into its region a frame later, after the
   * region was emptied, so that the same message again is said again. `lasting`: not timed away (news that its
   * writer withdraws when it no longer holds).
   * @param {MessageKind} kind @param {string} text @param {{ lasting?: boolean }} [options]
   */
  show(kind, text, { lasting = false } = {}) {
    this.#empty();
    this.#kind = kind;
    this.#text = text;
    this.#lasting = lasting;
    this.element.classList.remove(...EMPTY.split(" "));
    this.element.classList.add(`svc-drawer__message--${kind}`);
    this.#dismiss.hidden = false;
    this.#frame = requestAnimationFrame(() => {
      this.#frame = undefined;
      this.#regions[kind].textContent = text;
    });
    this.#schedule();
  }

  /** Takes `text` away if it is still the message shown (not when another replaced it). @param {string} text */
  withdraw(text) {
    if (this.#text === text) this.clear();
  }

  /** Takes the message away; the focus, if it was on the message, goes to `focusAfter`. */
  clear() {
    const hadFocus = this.element.contains(document.activeElement);
    this.#empty();
    this.#held = { pointer: false, focus: false };
    if (hadFocus) this.#focusAfter();
  }

  #empty() {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#frame !== undefined) cancelAnimationFrame(this.#frame);
    this.#frame = undefined;
    if (this.#kind) this.element.classList.remove(`svc-drawer__message--${this.#kind}`);
    this.element.classList.add(...EMPTY.split(" "));
    this.#kind = null;
    this.#text = null;
    this.#lasting = false;
    this.#regions.info.textContent = "";
    this.#regions.error.textContent = "";
    this.#dismiss.hidden = true;
  }

  /** News goes after MESSAGE_MS from when nothing holds it; a failure and lasting news are never timed. */
  #schedule() {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#kind !== "info" || this.#lasting || this.#held.pointer || this.#held.focus) return;
    this.#timer = setTimeout(() => this.clear(), MESSAGE_MS);
  }

  /** @param {"pointer" | "focus"} what @param {boolean} holding */
  #hold(what, holding) {
    this.#held = { ...this.#held, [what]: holding };
    if (this.#kind) this.#schedule();
  }
}
