// <svc-planner-entry>: upgrades the server-rendered planner entry (templates/planner/entry.html). Idempotent:
// defined once whatever the number of fragments loading this module. The markup is never re-rendered.
//
// - the guest stepper: min-guests..max-guests (the attributes; 1 to 12), starting from the count an earlier visit
//   stored in localStorage `_<prefix>/planner/guests` when the shopper chose it under the preference it has now,
//   else from the `preferred-guests` attribute (the number of people of the shopper's preferences, which the
//   server renders when there is one), else from the stored count, else from the `guests` attribute (4): a
//   preference is where a new choice starts, and a count chosen since stays; buttons disabled at the bounds, the
//   new count announced politely;
// - a mode ([data-action="open-planner"]): stores the guests under `_<prefix>/planner/guests` and the preference
//   they were chosen under under `_<prefix>/supplier-<id>/planner/guests-preferred` ("" for none), marks the mode busy
//   (aria-busy, the others disabled), tracks `planner.open` {mode, guests} and goes to the mode's data-href (the
//   customer's current-menu page with ?mode=, computed by the server);
// - the planner requires localStorage: where it is unusable (blocked site data, some private modes), the
//   modes are disabled and the entry's notice says so;
// - the help button opens the onboarding modal it controls (components/planner-onboarding.js). That module is
//   loaded on the first click, not with the entry (a page showing the entry pays for the modal only when a
//   shopper asks for it), unless the page holds the modal's id twice (two entries): then at once, to make
//   the ids unique before anything points at them.
import { sdk, services, formatText, atBound, writableLocalStorage } from "./ui.js";

/** The onboarding module, loaded once, when first needed. */
function onboardingModule() {
  return import("./planner-onboarding.js");
}

const tagName = `${sdk.prefix}-planner-entry`;
/** Storage name (under `_<prefix>/`) of the guest count the current-menu page reads. */
export const GUESTS_KEY = "planner/guests";
/** Storage name of the preferred count in force when the stored count was chosen ("" for none). */
const PREFERRED_KEY = "planner/guests-preferred";
const GUESTS_MIN = 1;
const GUESTS_MAX = 12;
const GUESTS_DEFAULT = 4;

/** The page's localStorage when it can be written, else null: the guests must reach the current-menu page. */
const usableLocalStorage = () => writableLocalStorage(services.session.key("planner/probe"));

/** An integer attribute or stored value, or null. @param {string | null | undefined} value */
function integer(value) {
  const text = String(value ?? "").trim();
  return /^\d{1,3}$/.test(text) ? Number(text) : null;
}

export class PlannerEntryElement extends HTMLElement {
  /** @type {AbortController | null} */ #listeners = null;
  /** @type {Storage | null} */ #storage = null;
  /** @type {import("./planner-onboarding.js").PlannerOnboardingElement | null} */ #onboarding = null;
  #guests = GUESTS_DEFAULT;
  #busy = false;

  get minGuests() {
    const value = integer(this.getAttribute("min-guests"));
    return value !== null && value >= 1 ? value : GUESTS_MIN;
  }

  get maxGuests() {
    const value = integer(this.getAttribute("max-guests"));
    return value !== null && value >= this.minGuests ? value : Math.max(GUESTS_MAX, this.minGuests);
  }

  /** The guest count shown. */
  get guests() {
    return this.#guests;
  }

  connectedCallback() {
    if (this.#listeners) return;
    this.#listeners = new AbortController();
    const { signal } = this.#listeners;
    this.addEventListener("click", (event) => this.#onClick(event), { signal });
    // Back from the current-menu page through the back-forward cache: the entry is usable again.
    window.addEventListener("pageshow", (event) => {
      if (event.persisted) this.#setBusy(null);
    }, { signal });

    this.#storage = usableLocalStorage();
    this.#setGuests(this.#initialGuests(), { announce: false });
    if (!this.#storage) this.#storageRequired();
    // Hydrated means ready: where the modal's id is shared, only once that id is made unique.
    if (this.#onboardingIdIsShared()) void this.#bindOnboarding().finally(() => this.toggleAttribute("hydrated", true));
    else this.toggleAttribute("hydrated", true);
  }

  /** Where the stepper starts (see the module's comment): a count chosen under the current preference, the
   * preference, a count stored before it, the default. */
  #initialGuests() {
    const preferred = integer(this.getAttribute("preferred-guests"));
    const stored = this.#storage ? integer(this.#storage.getItem(services.session.key(GUESTS_KEY))) : null;
    const chosenUnder = this.#storage ? integer(this.#storage.getItem(services.session.supplierKey(PREFERRED_KEY))) : null;
    if (this.#inBounds(preferred) && !(this.#inBounds(stored) && chosenUnder === preferred)) return /** @type {number} */ (preferred);
    if (this.#inBounds(stored)) return /** @type {number} */ (stored);
    return integer(this.getAttribute("guests")) ?? GUESTS_DEFAULT;
  }

  disconnectedCallback() {
    this.#listeners?.abort();
    this.#listeners = null;
    this.#onboarding = null;
  }

  /** @param {number | null} value */
  #inBounds(value) {
    return value !== null && value >= this.minGuests && value <= this.maxGuests;
  }

  /** @param {MouseEvent} event */
  #onClick(event) {
    const trigger = event.target instanceof Element ? event.target.closest("[data-action]") : null;
    if (!(trigger instanceof HTMLElement) || !this.contains(trigger)) return;
    switch (trigger.getAttribute("data-action")) {
      case "guests-decrease": this.#setGuests(this.#guests - 1); break;
      case "guests-increase": this.#setGuests(this.#guests + 1); break;
      case "help": void this.#openOnboarding(trigger); break;
      case "open-planner": this.#openPlanner(trigger); break;
      default: return;
    }
    event.preventDefault();
  }

  /**
   * Shows a guest count (kept within the bounds), the stepper's buttons at the bounds disabled (`atBound`).
   * @param {number} value
   * @param {{ announce?: boolean }} [options]
   */
  #setGuests(value, { announce = true } = {}) {
    const guests = Math.min(this.maxGuests, Math.max(this.minGuests, value));
    const changed = guests !== this.#guests;
    this.#guests = guests;
    const output = this.querySelector("[data-role='guests']");
    if (output && output.textContent !== String(guests)) output.textContent = String(guests);
    atBound(this.querySelector("button[data-action='guests-decrease']"), guests <= this.minGuests);
    atBound(this.querySelector("button[data-action='guests-increase']"), guests >= this.maxGuests);
    this.setAttribute("guests", String(guests));
    if (announce && changed) {
      const status = this.querySelector("[data-role='guests-status']");
      const template = (guests === 1 ? this.dataset.guestsOne : this.dataset.guestsMany) || "{count}";
      if (status) status.textContent = formatText(template, { count: guests }, services.session.language);
    }
  }

  /** localStorage is unusable: the modes cannot hand the guests to the current-menu page. */
  #storageRequired() {
    this.querySelector("[data-role='storage-required']")?.removeAttribute("hidden");
    this.toggleAttribute("storage-unavailable", true);
    for (const mode of this.#modes()) mode.disabled = true;
  }

  /** @returns {HTMLButtonElement[]} */
  #modes() {
    return /** @type {HTMLButtonElement[]} */ ([...this.querySelectorAll("button[data-action='open-planner']")]);
  }

  /** @param {HTMLElement} mode */
  #openPlanner(mode) {
    if (this.#busy || !(mode instanceof HTMLButtonElement) || mode.disabled) return;
    const href = mode.dataset.href ?? "";
    let url;
    try {
      url = new URL(href, document.baseURI);
    } catch {
      return;
    }
    if (url.protocol !== "https:" && url.protocol !== "http:") return;
    const storage = this.#storage ?? usableLocalStorage();
    if (!storage) {
      this.#storageRequired();
      return;
    }
    try {
      storage.setItem(services.session.key(GUESTS_KEY), String(this.#guests));
      storage.setItem(services.session.supplierKey(PREFERRED_KEY), this.getAttribute("preferred-guests") ?? "");
    } catch {
      this.#storageRequired(); // full, or revoked since the page loaded
      return;
    }
    this.#setBusy(mode);
    services.track("planner.open", { mode: mode.dataset.mode ?? "", guests: this.#guests });
    window.location.assign(url.href);
  }

  /**
   * The chosen mode is busy while the browser leaves, the others disabled; null: everything usable again.
   * @param {HTMLButtonElement | null} chosen
   */
  #setBusy(chosen) {
    this.#busy = chosen !== null;
    for (const mode of this.#modes()) {
      if (chosen === null) {
        mode.removeAttribute("aria-busy");
        mode.removeAttribute("aria-disabled");
        mode.disabled = !mode.dataset.href || !this.#storage;
      } else if (mode === chosen) {
        // Not disabled: it keeps the focus while the next page loads.
        mode.setAttribute("aria-busy", "true");
        mode.setAttribute("aria-disabled", "true");
      } else {
        mode.disabled = true;
      }
    }
  }

  /** Whether another element on the page has the id of this fragment's modal (then it is bound at connection). */
  #onboardingIdIsShared() {
    const id = this.querySelector("[data-action='help']")?.getAttribute("aria-controls");
    return Boolean(id && document.querySelectorAll(`[id="${CSS.escape(id)}"]`).length > 1);
  }

  /** The help button controls the onboarding modal of this fragment (its id made unique on the page). */
  async #bindOnboarding() {
    const help = this.querySelector("[data-action='help']");
    if (!help) return;
    const { findOnboarding } = await onboardingModule();
    const onboarding = findOnboarding({ id: help.getAttribute("aria-controls"), near: this });
    if (!onboarding) return;
    this.#onboarding = onboarding;
    help.setAttribute("aria-controls", onboarding.ensureUniqueId());
  }

  /** @param {HTMLElement} help */
  async #openOnboarding(help) {
    if (!this.#onboarding?.isConnected) await this.#bindOnboarding();
    this.#onboarding?.open({ opener: help });
  }
}

if (!customElements.get(tagName)) {
  customElements.define(tagName, PlannerEntryElement);
}
