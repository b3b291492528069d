// The guest count the page shows for a recipe, shared by every control of the page: a publisher's CTA (its
// `guests` attribute), the drawer's stepper and the host page's own control (`recipes.setGuests`). Keyed by
// the id a control knows the recipe by: the CTA listens to its recipe id and to the publisher's own id.
import { State } from "./observable.js";

export const GUESTS_MIN = 1;
export const GUESTS_MAX = 50;

/** A guest count of 1 to 50, or null (a value to ignore). @param {unknown} value */
export function validGuestCount(value) {
  const text = typeof value === "number" ? String(value) : String(value ?? "").trim();
  if (!/^[0-9]{1,2}$/.test(text)) return null;
  const count = Number(text);
  return count >= GUESTS_MIN && count <= GUESTS_MAX ? count : null;
}

export class GuestCounts {
  /** @type {Map<string, State<number>>} */
  #states = new Map();

  /**
   * The count chosen for a recipe, as a stream (emits the current one at once when there is one).
   * @param {string | number} recipeId
   * @returns {State<number>}
   */
  of(recipeId) {
    const id = String(recipeId ?? "").trim();
    let state = this.#states.get(id);
    if (!state) {
      state = new State();
      this.#states.set(id, state);
    }
    return state;
  }

  /**
   * Sets the count of a recipe for every control that follows it. Not 1 to 50 in digits: ignored (false).
   * @param {string | number} recipeId @param {unknown} guests
   */
  set(recipeId, guests) {
    const count = validGuestCount(guests);
    if (count === null || !String(recipeId ?? "").trim()) return false;
    const state = this.of(recipeId);
    if (!state.hasValue || state.value !== count) state.next(count);
    return true;
  }
}
