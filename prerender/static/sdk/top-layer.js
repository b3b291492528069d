// The browser's top layer for the service's overlays (the drawer, the planner's onboarding, the toaster): above
// everything the retailer's page stacks, whatever its z-index (a chat widget at 2147483647 would otherwise cover
// the drawer's header and its close button). Each overlay is a manual popover (`popover="manual"`): shown and
// hidden by its component only, so no light dismiss, and the component keeps its own Escape, focus trap and
// scroll lock. The last one raised is on top; the ones kept above (the toaster) stay above it. A browser without
// the Popover API keeps the stacking of the components' sheets (`--svc-z-drawer`, docs/styles.md).
// `covering$` says whether a modal overlay of ours (one raised, not a status kept above) covers the page now:
// a card behind it is not shown to the shopper (sdk/show-tracking.js). A bar at the viewport's edge (the
// publisher's fixed button) is lifted there only where the page would otherwise misplace it, and covers nothing.
import { State } from "./observable.js";

export class TopLayer {
  /** @type {Set<HTMLElement>} overlays kept above those raised after them */
  #above = new Set();
  /** @type {Set<HTMLElement>} the modal overlays raised and not lowered yet */
  #raised = new Set();
  /** @type {State<boolean>} whether a modal overlay of ours covers the retailer's page */
  covering$ = new State(false);

  /**
   * Puts `element` in the top layer, above what is there already (the overlays kept above stay above it); one
   * there already stays where it is. A disconnected element, or a browser without popovers: nothing.
   * @param {HTMLElement} element
   */
  raise(element) {
    if (!this.#above.has(element)) this.#raised.add(element);
    this.#followCovering();
    this.#place(element);
  }

  /**
   * Puts `element` in the top layer as a bar at the viewport's edge, not a modal overlay: below the overlays kept
   * above, not counted in `covering$` (the publisher's fixed button, when the page's markup keeps its
   * `position: fixed` from the viewport: components/no-supplier-cta.js). `drop` takes it out.
   * @param {HTMLElement} element
   */
  lift(element) {
    if (!isShown(element)) this.#place(element); // one there already stays where it is
  }

  /**
   * Takes a lifted element out of the top layer, an ordinary element again: without its `popover` attribute, which
   * would keep it out of sight once not shown as a popover. @param {HTMLElement} element
   */
  drop(element) {
    if (isShown(element)) element.hidePopover();
    element.removeAttribute("popover");
  }

  /** Shows `element` as a popover, the overlays kept above shown again above it. @param {HTMLElement} element */
  #place(element) {
    if (!show(element)) return;
    for (const above of this.#above) {
      if (!above.isConnected) this.#above.delete(above); // a single-page app replaced the body: made again
      if (above === element || !isShown(above)) continue;
      above.hidePopover(); // shown again: the last shown is on top
      above.showPopover();
    }
  }

  /**
   * Takes `element` out of the top layer (its sheet's stacking applies again).
   * @param {HTMLElement} element
   */
  lower(element) {
    this.#raised.delete(element);
    this.#followCovering();
    if (isShown(element) && element.isConnected) element.hidePopover();
  }

  /**
   * Puts `element` in the top layer for good, above every overlay raised later (the toaster: a status region that
   * never takes a click).
   * @param {HTMLElement} element
   */
  keepAbove(element) {
    this.#above.add(element);
    this.raise(element);
  }

  /** `covering$` follows the raised overlays still in the document (a page may remove one without closing it). */
  #followCovering() {
    for (const element of this.#raised) if (!element.isConnected) this.#raised.delete(element);
    const covering = this.#raised.size > 0;
    if (this.covering$.value !== covering) this.covering$.next(covering);
  }
}

/** Whether the element is shown as a popover now. @param {HTMLElement} element */
function isShown(element) {
  return typeof element.showPopover === "function" && element.matches(":popover-open");
}

/**
 * Shows `element` as a manual popover (left as it is when shown already); false when it cannot be (no Popover
 * API, not in the document, refused by the browser), and the sheet's stacking then applies.
 * @param {HTMLElement} element
 */
function show(element) {
  if (typeof element.showPopover !== "function" || !element.isConnected) return false;
  const before = element.getAttribute("popover");
  try {
    if (before !== "manual") element.setAttribute("popover", "manual");
    if (!element.matches(":popover-open")) element.showPopover();
    return true;
  } catch {
    // Refused: the attribute as it was, since a popover not shown is never displayed (the sheet's stacking then).
    if (before === null) element.removeAttribute("popover");
    else if (before !== "manual") element.setAttribute("popover", before);
    return false;
  }
}
