// <svc-planner-onboarding>: the planner's onboarding modal (docs/styles.md, "planner-onboarding.css";
// templates/planner/onboarding.html). Generic: the entry block opens it from its help button, the current-menu
// page will from its help icon and on a first visit. The server renders every step, hidden but the first;
// this module only shows, hides and moves between them. Idempotent: defined once whatever the number of
// fragments loading it.
//
// Accessible modal: role="dialog", aria-modal, labelled by the current step's title and described by its
// text; on open the element moves to <body> (a fixed dialog inside a size container would be laid out in the
// container), focus moves into the dialog, Tab is trapped, Escape / the close button / the backdrop close
// it, and focus returns to the opener. Previous / next change the step (the dots and a polite status follow);
// the last step's button ("J'ai compris", "Got it") closes it and records `_<prefix>/planner/onboarded` in
// localStorage. The page's scroll is locked while open (the SDK's scroll lock: `svc-scroll-lock` on <html> by
// default), and it sits in the browser's top layer (sdk/top-layer.js). Events (bubbling from the element):
// `open`, and `close` with `detail: {done}` (true when closed with the last step's button).
import { sdk, services, isFocusable, tabbables, trapTab } from "./ui.js";

const tagName = `${sdk.prefix}-planner-onboarding`;
/** Storage name (under `_<prefix>/`) of the record that the shopper went through it to the end. */
export const ONBOARDED_KEY = "planner/onboarded";

export class PlannerOnboardingElement extends HTMLElement {
  /** @type {AbortController | null} */ #listeners = null;
  /** @type {AbortController | null} */ #whileOpen = null;
  /** @type {HTMLElement | null} */ #opener = null;
  #step = 1;
  // Moving the element to <body> disconnects and reconnects it: not a removal.
  #moving = false;

  connectedCallback() {
    if (this.#listeners) return;
    this.#listeners = new AbortController();
    this.addEventListener("click", (event) => this.#onClick(event), { signal: this.#listeners.signal });
    this.toggleAttribute("hydrated", true);
  }

  disconnectedCallback() {
    if (this.#moving) return;
    this.close();
    this.#listeners?.abort();
    this.#listeners = null;
  }

  get isOpen() {
    return this.hasAttribute("open");
  }

  /** The number of steps the server rendered. */
  get steps() {
    return this.#stepElements().length;
  }

  /** The step shown, 1 to `steps`. */
  get step() {
    return this.#step;
  }

  /**
   * Gives the element an id no other element of the page has (a page may hold two fragments that each
   * carry one), with the ids of its steps' titles and texts to match; returns it.
   * @returns {string}
   */
  ensureUniqueId() {
    const current = /** @type {HTMLElement} */ (this).id;
    if (current && document.getElementById(current) === this) return current;
    const id = `${tagName}-${Math.random().toString(36).slice(2, 10)}`;
    this.id = id;
    this.#stepElements().forEach((step, index) => {
      step.querySelector(".svc-planner-onboarding__title")?.setAttribute("id", `${id}-title-${index + 1}`);
      step.querySelector(".svc-planner-onboarding__text")?.setAttribute("id", `${id}-text-${index + 1}`);
    });
    this.#show(this.#step, { announce: false });
    return id;
  }

  /**
   * Opens the modal on its first step.
   * @param {{ opener?: HTMLElement | null }} [options] focused again on close (default: the focused element)
   */
  open({ opener } = {}) {
    if (this.isOpen) return;
    const active = document.activeElement;
    this.#opener = opener ?? (active instanceof HTMLElement && active !== document.body ? active : null);
    if (this.parentElement !== document.body) {
      this.#moving = true;
      try {
        document.body.append(this);
      } finally {
        this.#moving = false;
      }
    }
    this.#show(1, { announce: false });
    this.removeAttribute("hidden");
    this.setAttribute("open", "");
    this.classList.add("svc-planner-onboarding--open");
    services.topLayer.raise(this); // above the retailer's page whatever its z-index (sdk/top-layer.js)
    services.customization.scrollLock.acquire();
    if (this.#opener?.hasAttribute("aria-expanded")) this.#opener.setAttribute("aria-expanded", "true");
    this.#whileOpen = new AbortController();
    const { signal } = this.#whileOpen;
    document.addEventListener("keydown", (event) => this.#onKeydown(event), { signal });
    document.addEventListener("focusin", (event) => this.#onFocusIn(event), { signal });
    this.#dialog()?.focus({ preventScroll: true });
    this.dispatchEvent(new CustomEvent("open", { bubbles: true }));
  }

  /**
   * Closes the modal; focus returns to the opener.
   * @param {{ done?: boolean }} [options] done: closed with the last step's button
   */
  close({ done = false } = {}) {
    if (!this.isOpen) return;
    this.#whileOpen?.abort();
    this.#whileOpen = null;
    this.classList.remove("svc-planner-onboarding--open");
    this.removeAttribute("open");
    this.setAttribute("hidden", "");
    services.topLayer.lower(this);
    services.customization.scrollLock.release();
    if (done) services.session.local.set(services.session.key(ONBOARDED_KEY), "true");
    const opener = this.#opener;
    this.#opener = null;
    if (opener?.hasAttribute("aria-expanded")) opener.setAttribute("aria-expanded", "false");
    if (opener?.isConnected) opener.focus({ preventScroll: true });
    this.dispatchEvent(new CustomEvent("close", { bubbles: true, detail: { done } }));
  }

  next() {
    if (this.#step < this.steps) this.#show(this.#step + 1);
  }

  previous() {
    if (this.#step > 1) this.#show(this.#step - 1);
  }

  /** @param {MouseEvent} event */
  #onClick(event) {
    const target = event.target instanceof Element ? event.target.closest("[data-action]") : null;
    if (!target || !this.contains(target)) return;
    switch (target.getAttribute("data-action")) {
      case "close": this.close(); break;
      case "previous": this.previous(); break;
      case "next": this.next(); break;
      case "done": this.close({ done: true }); break;
      default: return;
    }
    event.preventDefault();
  }

  /**
   * Shows one step: its block, the dots, previous / next / done, the dialog's name and description.
   * @param {number} step
   * @param {{ announce?: boolean }} [options] announce the step politely (not on open: the dialog's name is)
   */
  #show(step, { announce = true } = {}) {
    const steps = this.#stepElements();
    if (steps.length === 0) return;
    const previousFocus = document.activeElement;
    this.#step = Math.min(Math.max(1, step), steps.length);
    const index = this.#step - 1;
    steps.forEach((element, i) => element.toggleAttribute("hidden", i !== index));
    this.querySelectorAll(".svc-planner-onboarding__dot").forEach((dot, i) => {
      dot.classList.toggle("svc-planner-onboarding__dot--active", i === index);
      if (i === index) dot.setAttribute("aria-current", "step");
      else dot.removeAttribute("aria-current");
    });
    const dialog = this.#dialog();
    const title = steps[index].querySelector(".svc-planner-onboarding__title");
    const text = steps[index].querySelector(".svc-planner-onboarding__text");
    if (dialog && title?.id) dialog.setAttribute("aria-labelledby", title.id);
    if (dialog && text?.id) dialog.setAttribute("aria-describedby", text.id);
    const previous = this.#control("previous");
    const next = this.#control("next");
    const done = this.#control("done");
    const last = this.#step === steps.length;
    if (previous instanceof HTMLButtonElement) previous.disabled = this.#step === 1;
    next?.toggleAttribute("hidden", last);
    done?.toggleAttribute("hidden", !last);
    // A control that just went away (previous on the first step, next on the last) hands focus on.
    if (previousFocus instanceof HTMLElement && this.contains(previousFocus) && !isFocusable(previousFocus)) {
      (last ? done : next)?.focus({ preventScroll: true });
    }
    const status = this.querySelector("[data-role='step-status']");
    if (status && announce) {
      const template = status.getAttribute("data-template") ?? "{number} / {count}";
      const position = template.replace("{number}", String(this.#step)).replace("{count}", String(steps.length));
      status.textContent = `${position}. ${title?.textContent?.trim() ?? ""}`;
    } else if (status) {
      status.textContent = "";
    }
  }

  /** @param {KeyboardEvent} event */
  #onKeydown(event) {
    if (event.key === "Escape" && !event.defaultPrevented) {
      event.preventDefault();
      this.close();
      return;
    }
    if (event.key !== "Tab") return;
    const focusables = this.#focusables();
    trapTab(event, focusables, this.#dialog(),
      () => (event.shiftKey ? focusables[focusables.length - 1] : focusables[0]));
  }

  /** Focus that leaves the open dialog (a script, a click through) is brought back. */
  #onFocusIn(/** @type {FocusEvent} */ event) {
    if (event.target instanceof Node && !this.contains(event.target)) {
      (this.#dialog() ?? this.#focusables()[0])?.focus({ preventScroll: true });
    }
  }

  /** @returns {HTMLElement | null} */
  #dialog() {
    return this.querySelector(".svc-planner-onboarding__dialog");
  }

  /** @param {string} action @returns {HTMLElement | null} */
  #control(action) {
    return this.querySelector(`.svc-planner-onboarding__nav [data-action='${action}']`);
  }

  /** @returns {HTMLElement[]} */
  #stepElements() {
    return /** @type {HTMLElement[]} */ ([...this.querySelectorAll(".svc-planner-onboarding__step")]);
  }

  /** @returns {HTMLElement[]} */
  #focusables() {
    const dialog = this.#dialog();
    if (!dialog) return [];
    return tabbables(dialog);
  }
}

if (!customElements.get(tagName)) {
  customElements.define(tagName, PlannerOnboardingElement);
}

/**
 * The onboarding modal an opener controls (its aria-controls), or the one right after `near` (the fragment
 * renders it after the entry), or the page's first.
 * @param {{ id?: string | null, near?: Element | null }} [where]
 * @returns {PlannerOnboardingElement | null}
 */
export function findOnboarding({ id, near } = {}) {
  // The class registered for the tag may come from another build of this module: use it, not ours.
  const Onboarding = /** @type {typeof PlannerOnboardingElement} */ (customElements.get(tagName));
  /** @param {Element | null | undefined} element */
  const upgraded = (element) => {
    if (!element || element.localName !== tagName) return null;
    // Elements are upgraded in document order: the entry's own modal, after it, may not be yet.
    customElements.upgrade(element);
    return element instanceof Onboarding ? element : null;
  };
  return upgraded(near?.nextElementSibling)
    ?? upgraded(id ? document.getElementById(id) : null)
    ?? upgraded(document.querySelector(tagName));
}
