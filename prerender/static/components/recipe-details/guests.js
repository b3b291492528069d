// The recipe details' guest stepper (templates/recipe_details/details.html, `.svc-recipe-details__guests`): the
// count shown at once on each step, within 1 to 50, its buttons marked at a bound; the recipe follows once the
// steps pause (`onSettled`). A part of components/recipe-details.js (bundled into it in the release tree).
import { GUESTS_MIN, GUESTS_MAX } from "../ui.js";

const SETTLE_MS = 400;

/** A count within the stepper's bounds, or null for what is not an integer. @param {number} value */
export function clampGuests(value) {
  return Number.isInteger(value) ? Math.min(GUESTS_MAX, Math.max(GUESTS_MIN, value)) : null;
}

export class GuestStepper {
  #root;
  #guests;
  #onSettled;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  #timer;

  /**
   * @param {HTMLElement} root the recipe details, which hold the stepper
   * @param {object} options
   * @param {number} options.guests the count shown by the server
   * @param {(guests: number) => void} options.onSettled the count, once the steps paused
   */
  constructor(root, { guests, onSettled }) {
    this.#root = root;
    this.#guests = guests;
    this.#onSettled = onSettled;
    this.#updateButtons();
  }

  /** The count shown. */
  get value() {
    return this.#guests;
  }

  /** The count shown while it has not settled yet (a step within the pause), else null. */
  get pending() {
    return this.#timer === undefined ? null : this.#guests;
  }

  /** One step: shown at once, settled after a pause. @param {number} delta */
  step(delta) {
    this.show(this.#guests + delta);
  }

  /**
   * A count shown at once and settled after a pause, if it is not the one shown: a step, or the steps the
   * previous details of the recipe took while these were on their way (`pending`). @param {number} guests
   */
  show(guests) {
    const next = clampGuests(guests);
    if (next === null || next === this.#guests) return;
    this.#guests = next;
    const { value } = this.#parts();
    if (value) value.textContent = String(next);
    this.#updateButtons();
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#onSettled(this.#guests);
    }, SETTLE_MS);
  }

  /** No count settles any more (the details are gone). */
  stop() {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #parts() {
    const stepper = this.#root.querySelector(".svc-recipe-details__guests .svc-ds-stepper");
    const buttons = /** @type {HTMLElement[]} */ ([...(stepper?.querySelectorAll(".svc-ds-stepper__button") ?? [])]);
    return { value: stepper?.querySelector(".svc-ds-stepper__value") ?? null, buttons };
  }

  #updateButtons() {
    this.#parts().buttons.forEach((button, index) => {
      button.removeAttribute("disabled"); // the server's limits; aria-disabled from now on
      // Its data-action, else its place: the first button decreases.
      const decreases = button.dataset.action ? button.dataset.action === "guests-decrease" : index === 0;
      const atLimit = decreases ? this.#guests <= GUESTS_MIN : this.#guests >= GUESTS_MAX;
      // aria-disabled, not disabled: a disabled button would lose the keyboard focus.
      button.setAttribute("aria-disabled", String(atLimit));
    });
  }
}
