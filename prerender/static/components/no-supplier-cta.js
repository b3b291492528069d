// <svc-no-supplier-add-to-cart-cta>: a recipe publisher's add-to-cart button (templates/cta/fragment.html,
// README.md "a recipe publisher's add-to-cart button"). Idempotent: defined once whatever the number of fragments
// loading it. The server rendered both buttons and the in-basket state; this module only keeps them in step:
//
// - a click on either button opens the drawer on the recipe's ingredients, with the publisher's affiliated
//   retailer's store picker and the transfer to that retailer (components/basket-transfer.js);
// - the basket state: attribute in-basket="true|false", class in-basket, the buttons' look, label and icon
//   text, and the event inBasketStatus (detail: boolean) on each change;
// - the fixed twin shows (animated) while the static button is scrolled out of view above the viewport; with
//   several buttons on the page (a round-up of recipes), only the twin of the last one scrolled past shows;
// - guests: the attribute is settable at any time (a non-numeric value is ignored); the count is shared with
//   the page's other controls (the drawer's stepper, `recipes.setGuests`), and re-scales the recipe in the
//   basket when it is there;
// - picture-url: the publisher's own picture of the dish (an http(s) URL, or a path of the page's site), shown by
//   the drawer in place of the service's; settable at any time, read when the drawer opens;
// - the page's store, when the page did not choose one: the store the user's basket is priced at (the
//   store-id attribute), else the one the user picked in an earlier drawer.
import { sdk, services, validGuestCount } from "./ui.js";

const tagName = `${sdk.prefix}-no-supplier-add-to-cart-cta`;
const HIDE_AFTER_MS = 400; // the twin's slide-out (no-supplier-cta.css), then it leaves the layout
const PASSED_BELOW_PX = 1_000_000; // how far below the viewport the twins' observer looks (#watchScroll)
const RESCALE_DEBOUNCE_MS = 400;
/** localStorage (`_<prefix>/supplier-<id>/publisher-store`): the store the user picked in a publisher's drawer. */
export const PUBLISHER_STORE_KEY = "publisher-store";

/**
 * @typedef {object} CtaData what the server put in the fragment (rendering/cta.py, CtaView.browser_data)
 * @property {string} recipe_id
 * @property {string} title
 * @property {Record<string, string>} texts
 * @property {import("./basket-transfer.js").TransferOffer | null} transfer
 */

export class NoSupplierCtaElement extends HTMLElement {
  static observedAttributes = ["guests"];

  /**
   * The page's buttons whose static button is scrolled out of view above the viewport. Their twins would all sit
   * at the same place, the last one taking the clicks whichever recipe the reader meant: only the twin of the
   * last of them in the page's order shows, the recipe the reader passed last.
   * @type {Set<NoSupplierCtaElement>}
   */
  static #passed = new Set();

  /** @type {AbortController | null} */
  #listeners = null;
  /** @type {{ unsubscribe(): void }[]} */
  #subscriptions = [];
  /** @type {IntersectionObserver | null} */
  #observer = null;
  /** @type {boolean | null} the state shown (the server's until the basket loads) */
  #inBasket = null;
  /** @type {CtaData | null} */
  #data = null;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  #hideTimer;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  #rescaleTimer;

  get recipeId() {
    return (this.getAttribute("recipe-id") ?? "").trim();
  }

  get externalId() {
    return (this.getAttribute("external-id") ?? "").trim();
  }

  /** The publisher's picture (`picture-url` resolved against the page), or null when absent or not http(s). */
  get pictureUrl() {
    const value = (this.getAttribute("picture-url") ?? "").trim();
    if (!value) return null;
    try {
      const url = new URL(value, document.baseURI);
      return url.protocol === "https:" || url.protocol === "http:" ? url.href : null;
    } catch {
      return null;
    }
  }

  /** The guest count, or null when the attribute is not 1 to 50. */
  get guests() {
    return validGuestCount(this.getAttribute("guests"));
  }

  connectedCallback() {
    const recipeId = this.recipeId;
    if (!recipeId || this.#listeners) return;
    const { basket, guests, pos, session } = services;
    this.#listeners = new AbortController();
    this.#data = readData(this);
    this.#inBasket = this.getAttribute("in-basket") === "true";
    this.addEventListener("click", (event) => this.#onClick(event), { signal: this.#listeners.signal });

    // The page's count wins when a control set it (under either id) before this element arrived; else this
    // one's is the page's.
    const ids = [...new Set([recipeId, this.externalId].filter(Boolean))];
    const known = ids.map((id) => guests.of(id)).find((state) => state.hasValue);
    const initial = known ? known.value : this.guests;
    if (initial !== null && initial !== undefined) for (const id of ids) guests.set(id, initial);
    for (const id of ids) {
      this.#subscriptions.push(guests.of(id).subscribe((/** @type {number} */ count) => this.#followGuests(id, count)));
    }

    if (!pos.storeId$.hasValue) {
      const remembered = session.local.get(session.supplierKey(PUBLISHER_STORE_KEY));
      void pos.load(this.getAttribute("store-id") || remembered || null);
    }
    // A page without a store takes the one the reader picks in another tab of the site (written there for the next
    // pages): its basket is then read, and the in-basket state follows the recipes added there.
    window.addEventListener("storage", (event) => {
      if (event.key !== session.supplierKey(PUBLISHER_STORE_KEY) || !event.newValue || pos.current !== null) return;
      void pos.load(event.newValue);
    }, { signal: this.#listeners.signal });
    this.#subscriptions.push(basket.inBasket$(recipeId).subscribe((/** @type {boolean} */ inBasket) => this.#reflect(inBasket)));
    basket.initialize().catch(() => {}); // logged by the basket; the CTA keeps the server's state
    this.#watchScroll();
    this.toggleAttribute("hydrated", true);
  }

  disconnectedCallback() {
    this.#listeners?.abort();
    this.#listeners = null;
    for (const subscription of this.#subscriptions.splice(0)) subscription.unsubscribe();
    this.#observer?.disconnect();
    this.#observer = null;
    clearTimeout(this.#hideTimer);
    clearTimeout(this.#rescaleTimer);
    if (NoSupplierCtaElement.#passed.delete(this)) NoSupplierCtaElement.#showOneTwin();
  }

  /** `guests` set by the page: shared with the other controls; a non-numeric value is ignored. */
  attributeChangedCallback(/** @type {string} */ _name, /** @type {string | null} */ before, /** @type {string | null} */ after) {
    if (!this.#listeners || before === after) return;
    const count = this.guests;
    if (count === null) return;
    services.guests.set(this.recipeId, count);
    if (this.externalId) services.guests.set(this.externalId, count);
    this.#rescaleLater(count);
  }

  /** Another control chose a count for this recipe (by either id): show it, and share it under the other id. */
  #followGuests(/** @type {string} */ id, /** @type {number} */ count) {
    const { guests } = services;
    for (const other of [this.recipeId, this.externalId]) if (other && other !== id) guests.set(other, count);
    if (this.guests !== count) this.setAttribute("guests", String(count));
  }

  /** The recipe in the basket follows the count (after a pause: a stepper sends many). */
  #rescaleLater(/** @type {number} */ count) {
    clearTimeout(this.#rescaleTimer);
    this.#rescaleTimer = setTimeout(() => {
      const { basket, notices } = services;
      const entry = basket.entry(this.recipeId);
      if (!entry || entry.guests === count) return;
      basket.setGuests(this.recipeId, count).catch((/** @type {unknown} */ error) => notices.error(error));
    }, RESCALE_DEBOUNCE_MS);
  }

  /** @param {MouseEvent} event */
  #onClick(event) {
    const trigger = event.target instanceof Element ? event.target.closest("[data-action='open-details']") : null;
    if (!trigger || !this.contains(trigger)) return;
    event.preventDefault();
    const staticButton = /** @type {HTMLElement | null} */ (this.querySelector(".svc-no-supplier-cta__static [data-action]"));
    // An ignored (non-numeric) attribute leaves the last valid count in force.
    const count = this.guests ?? services.guests.of(this.recipeId).value;
    sdk.recipes.openDetails(this.recipeId, count ?? undefined, {
      opener: staticButton ?? /** @type {HTMLElement} */ (trigger),
      source: "no-supplier-cta",
      title: this.#data?.title,
      transfer: this.#data?.transfer ? { ...this.#data.transfer, texts: this.#data.texts } : undefined,
      picture: this.pictureUrl ?? undefined,
    }).catch(() => {}); // the drawer shows the failure, or the toaster when the drawer cannot open
  }

  /** @param {boolean} inBasket */
  #reflect(inBasket) {
    const texts = this.#data?.texts ?? {};
    this.setAttribute("in-basket", String(inBasket));
    this.classList.toggle("in-basket", inBasket);
    for (const button of this.querySelectorAll(".svc-no-supplier-cta__button")) {
      button.classList.toggle("svc-ds-button--secondary", inBasket);
      button.classList.toggle("svc-ds-button--primary", !inBasket);
      const label = button.querySelector(".svc-no-supplier-cta__label");
      const text = inBasket ? texts.see_ingredients : texts.buy_ingredients;
      if (label && text && label.textContent !== text) label.textContent = text;
    }
    const changed = this.#inBasket !== inBasket;
    this.#inBasket = inBasket;
    if (changed) this.dispatchEvent(new CustomEvent("inBasketStatus", { detail: inBasket, bubbles: true }));
  }

  /** The fixed twin follows the static button: shown while it is scrolled out of view above the viewport. */
  #watchScroll() {
    const anchor = this.querySelector(".svc-no-supplier-cta__static");
    const twin = /** @type {HTMLElement | null} */ (this.querySelector("[data-role='fixed']"));
    if (!anchor || !twin || typeof IntersectionObserver !== "function") return;
    // The viewport extended far below: a button is out of it only once scrolled past above. A button below the
    // viewport is in it, so a jump from below to above (a link to an anchor, the End key, scrollTo) is a change
    // the observer reports, where a plain viewport would see "out" before and after, and report nothing.
    this.#observer = new IntersectionObserver((entries) => {
      const entry = entries[entries.length - 1];
      const passed = NoSupplierCtaElement.#passed;
      if (!entry.isIntersecting && entry.boundingClientRect.bottom <= 0) passed.add(this);
      else passed.delete(this);
      NoSupplierCtaElement.#showOneTwin();
    }, { rootMargin: `0px 0px ${PASSED_BELOW_PX}px 0px` });
    this.#observer.observe(anchor);
  }

  /** Shows the twin of the last button scrolled past (in the page's order), hides the others'. */
  static #showOneTwin() {
    /** @type {NoSupplierCtaElement | null} */
    let last = null;
    for (const cta of NoSupplierCtaElement.#passed) {
      if (!last || last.compareDocumentPosition(cta) & Node.DOCUMENT_POSITION_FOLLOWING) last = cta;
    }
    for (const cta of document.querySelectorAll(tagName)) {
      if (!(cta instanceof NoSupplierCtaElement)) continue;
      const twin = /** @type {HTMLElement | null} */ (cta.querySelector("[data-role='fixed']"));
      if (twin) cta.#showTwin(twin, cta === last);
    }
  }

  /** @param {HTMLElement} twin @param {boolean} show */
  #showTwin(twin, show) {
    if (show && this.hasAttribute("twin-shown")) return; // shown already: each report of the page's scroll asks again
    clearTimeout(this.#hideTimer);
    const visible = "svc-no-supplier-cta__fixed--visible";
    if (show) {
      twin.hidden = false;
      this.#anchorTwin(twin);
      // One frame in the layout before the class, so that the slide-in transition runs.
      requestAnimationFrame(() => requestAnimationFrame(() => {
        if (this.hasAttribute("twin-shown")) twin.classList.add(visible); // not hidden again meanwhile
      }));
      this.toggleAttribute("twin-shown", true);
    } else if (!twin.hidden) {
      twin.classList.remove(visible);
      this.toggleAttribute("twin-shown", false);
      this.#hideTimer = setTimeout(() => {
        twin.hidden = true;
        services.topLayer.drop(twin);
      }, HIDE_AFTER_MS);
    }
  }

  /**
   * The twin's `position: fixed` places it at the bottom of the viewport, unless an ancestor in the page (a
   * `transform`, a `filter`, `contain: paint`, `will-change: transform`...) is its containing block: it would then
   * sit at that ancestor's bottom, out of sight. There the twin goes to the top layer, whose containing block is
   * the viewport (sdk/top-layer.js). Elsewhere it stays in the page, under what the page stacks above it (a cookie
   * banner). Asked each time it shows: a page may change around it.
   * @param {HTMLElement} twin
   */
  #anchorTwin(twin) {
    const { topLayer } = services;
    if (fixedToViewport(twin)) topLayer.drop(twin);
    else topLayer.lift(twin);
  }
}

/** fixedToViewport's probes: boxes as large as their containing block, never seen; every property reset first,
 * so that a page's rules for elements inside ours (`span { width: ... }`) change none of it. */
const PROBE_STYLE = {
  all: "initial", display: "block", position: "fixed", inset: "0", visibility: "hidden", "pointer-events": "none",
};

/**
 * Whether a `position: fixed` box beside `element` is placed as one at the document's root: whether the viewport,
 * not an ancestor in the page, is its containing block. Compared with a box at the root rather than with the
 * viewport's measures: a phone's browser that hides its address bar as the reader scrolls makes fixed boxes
 * taller than `clientHeight`, and quirks mode measures the viewport on `<body>`. Probes measured and removed in
 * the same task (never painted); their style set through the CSSOM, which a page's Content-Security-Policy allows.
 * @param {HTMLElement} element
 */
function fixedToViewport(element) {
  const beside = probe();
  const atRoot = probe();
  element.before(beside);
  document.documentElement.append(atRoot);
  const [box, root] = [beside.getBoundingClientRect(), atRoot.getBoundingClientRect()];
  beside.remove();
  atRoot.remove();
  return /** @type {const} */ (["left", "top", "width", "height"]).every((side) => Math.abs(box[side] - root[side]) < 1);
}

function probe() {
  const span = document.createElement("span");
  for (const [property, value] of Object.entries(PROBE_STYLE)) span.style.setProperty(property, value, "important");
  return span;
}

/** The fragment's data (an empty one when absent or unreadable: the CTA still opens the drawer). */
function readData(/** @type {HTMLElement} */ element) {
  const script = element.querySelector("script.svc-no-supplier-cta__data");
  try {
    return /** @type {CtaData} */ (JSON.parse(script?.textContent || "null"));
  } catch (error) {
    console.error(`[${sdk.prefix}] unreadable CTA data`, error);
    return null;
  }
}

if (!customElements.get(tagName)) {
  customElements.define(tagName, NoSupplierCtaElement);
}
