// The point of sale (store) of the page. Features that need a store (prices, basket) wait for `pos.load`.
import { State } from "./observable.js";

export class Pos {
  /**
   * The selected store id, `null` for "no store". Emits nothing before the first `load`, so subscribers
   * wait for the page to say which store it is.
   * @type {State<string | null>}
   */
  storeId$ = new State();

  /**
   * Selects the store (or none with null). Loading the same store again changes nothing.
   * @param {string | number | null | undefined} storeId
   * @returns {Promise<string | null>}
   */
  load(storeId) {
    const id = storeId === null || storeId === undefined || String(storeId).trim() === "" ? null : String(storeId).trim();
    if (!this.storeId$.hasValue || this.storeId$.value !== id) this.storeId$.next(id);
    return Promise.resolve(id);
  }

  /** The store the page loaded, null with none or before the first `load` (what a write made now acts at). */
  get current() {
    return this.storeId$.hasValue ? this.storeId$.value ?? null : null;
  }

  /** The store once `load` has been called (at once when it has). */
  whenLoaded() {
    return this.storeId$.first();
  }
}
