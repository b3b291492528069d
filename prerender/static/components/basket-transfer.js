// The drawer's part for a recipe publisher (opened by its CTA, components/no-supplier-cta.js): the store of the
// affiliated retailer the basket is priced at (a picker while there is none), and the transfer that sends the
// visitor to that retailer's site with the basket (docs/browser-api.md, "Basket transfers"). Styles:
// no-supplier-cta.css (.svc-basket-transfer). Texts come from the CTA's fragment, so retailer overrides apply.
// The SDK's `storeLocator$` says whether the store picker is shown (true when it appears, false when the store
// line replaces it or the drawer closes).
//
// The retailer's stores are read when the drawer opens (`GET /{v}/basket/transfers/stores`, once per page while
// it answers, and kept by the browser for 5 minutes), not carried by the CTA's fragment: a retailer's 3 000 stores
// would weigh 500 KB in every button of a page.
import { sdk, services, h, formatText, isolated, logFailure } from "./ui.js";
import { PUBLISHER_STORE_KEY } from "./no-supplier-cta.js";

/**
 * @typedef {{ id: string, name: string, city: string, latitude?: number, longitude?: number }} TransferStore
 *   (coordinates when the service knows them: `user.setLocation` lists the nearest first)
 */

/**
 * @typedef {object} TransferOffer
 * @property {boolean} available false when the publisher has no affiliated retailer with a site to go to
 * @property {string} retailer the affiliated retailer's name
 * @property {TransferStore[]} [stores] the stores, when the caller has them and says so with `stores_loaded`
 *   (else they are read; a fragment of this release sends `[]` and false, for the drawer of the release before)
 * @property {boolean} [stores_loaded]
 * @property {Record<string, string>} [texts]
 */

/** @type {Promise<TransferStore[]> | null} the page's read of the store list (forgotten when it fails) */
let storesRead = null;

/** The affiliated retailer's stores: one read per page while it answers. @returns {Promise<TransferStore[]>} */
function readStores() {
  storesRead ??= services.basket.transferStores()
    .then((/** @type {any} */ answer) => {
      if (!answer || !Array.isArray(answer.stores)) throw new TypeError("the store list has no stores");
      return /** @type {TransferStore[]} */ (answer.stores);
    })
    .catch((/** @type {unknown} */ error) => {
      storesRead = null;
      throw error;
    });
  return storesRead;
}

export class TransferPanel {
  /** The store line or picker, shown above the recipe. */
  top = h("div", { class: "svc-basket-transfer", "data-role": "basket-transfer" });
  /** The transfer button, shown in the drawer's footer. */
  action = h("div", { class: "svc-basket-transfer__action" });
  #offer;
  #texts;
  #onStore;
  /** @type {TransferStore[] | null} the stores, once read */
  #stores = null;
  /** The last read of the stores failed (the picker's place says so, with "try again"). */
  #storesFailed = false;
  #picking = false;
  #sending = false;
  /** Gone (the drawer closed or moved on): a read of the stores that ends later draws nothing. */
  #destroyed = false;
  /** Whether the store picker is shown (what `storeLocator$` was last told). */
  #locating = false;
  /** @type {{ unsubscribe(): void }[]} */
  #subscriptions = [];

  /**
   * @param {TransferOffer} offer
   * @param {(storeId: string) => void} onStore called when the user picked a store (the drawer reloads)
   */
  constructor(offer, onStore) {
    this.#offer = offer;
    this.#texts = offer.texts ?? {};
    this.#onStore = onStore;
    if (offer.stores_loaded === true && Array.isArray(offer.stores)) this.#stores = offer.stores;
    else if (offer.available !== false) this.#loadStores();
    const { basket, pos } = services;
    this.#subscriptions.push(pos.storeId$.subscribe(() => this.render()));
    // The shopper's position (`user.setLocation`) orders the picker: drawn again when it arrives, unless the
    // shopper is using it (a select being read must not move).
    let first = true;
    this.#subscriptions.push(services.customization.location$.subscribe(() => {
      if (first) {
        first = false;
        return;
      }
      if (!this.top.contains(document.activeElement)) this.render();
    }));
    this.#subscriptions.push(basket.basket$.subscribe(() => this.#renderAction()));
    // Back from the retailer's site through the back-forward cache: the page is as it was left, mid-transfer,
    // while the basket has moved. The panel starts again; the SDK reads the basket as it is now (a page that comes
    // back is read once, sdk/tabs.js and sdk/basket.js), and the panel follows it (basket$ above).
    window.addEventListener("pageshow", this.#onPageShow);
  }

  #onPageShow = (/** @type {PageTransitionEvent} */ event) => {
    if (!event.persisted) return;
    this.#sending = false;
    this.#renderAction();
  };

  destroy() {
    this.#destroyed = true;
    window.removeEventListener("pageshow", this.#onPageShow);
    for (const subscription of this.#subscriptions.splice(0)) subscription.unsubscribe();
    this.top.remove();
    this.action.remove();
    this.#locator(false);
  }

  /** Reads the stores, then shows the picker (or the store's name); a failure says so, with "try again". The
   * focus, when it was on the panel ("try again" moves it to the loading line), goes to what replaced it. */
  #loadStores() {
    this.#storesFailed = false;
    readStores().then((stores) => {
      this.#stores = stores;
    }, (error) => {
      logFailure(sdk.prefix, "basket transfer: the stores could not be read", error);
      this.#storesFailed = true;
    }).finally(() => {
      if (this.#destroyed) return;
      const hadFocus = this.top.contains(document.activeElement);
      this.render();
      if (!hadFocus) return;
      const next = this.top.querySelector("select, [data-action='retry-stores'], .svc-basket-transfer__current");
      /** @type {HTMLElement | null} */ (next)?.focus({ preventScroll: true });
    });
  }

  /** The sentence that the stores cannot be read, with "try again" (which reads them again). */
  #storesFailure() {
    const retry = h("button", { type: "button", class: "svc-ds-link", "data-action": "retry-stores" }, this.#t("stores_retry"));
    retry.addEventListener("click", () => {
      this.#loadStores();
      this.render();
      /** @type {HTMLElement | null} */ (this.top.querySelector("[data-role='stores-loading']"))?.focus({ preventScroll: true });
    });
    return h("div", { class: "svc-basket-transfer__notice svc-basket-transfer__notice--error", role: "alert" },
      h("span", {}, this.#t("stores_unavailable")), " ", retry);
  }

  /** Tells the SDK when the store picker appears or goes. @param {boolean} shown */
  #locator(shown) {
    if (this.#locating === shown) return;
    this.#locating = shown;
    services.storeLocator$.next(shown);
  }

  /** @param {string} key @param {Record<string, string>} [params] */
  #t(key, params = {}) {
    return formatText(this.#texts[key] ?? "", params, services.session.language);
  }

  render() {
    const storeId = services.pos.current;
    const stores = this.#stores;
    const store = stores?.find((s) => s.id === storeId);
    if (this.#offer.available === false) {
      this.top.replaceChildren(h("p", { class: "svc-basket-transfer__notice" }, this.#t("no_retailer")));
    } else if (!stores && !this.#storesFailed) {
      // Being read (the store's name too, when one is chosen already: its id alone would mean nothing).
      this.top.replaceChildren(h("p", { class: "svc-basket-transfer__notice", role: "status", tabindex: "-1", "data-role": "stores-loading" },
        this.#t("stores_loading")));
    } else if (!stores && (!storeId || this.#picking)) {
      this.top.replaceChildren(this.#storesFailure());
    } else if (storeId && !this.#picking) {
      const change = h("button", { type: "button", class: "svc-ds-link", "data-action": "change-store" }, this.#t("store_change"));
      change.addEventListener("click", () => {
        this.#picking = true;
        this.render();
        /** @type {HTMLElement | null} */ (this.top.querySelector("select"))?.focus();
      });
      // Without the list (it could not be read), the chosen store by its id, and "try again" to name it and offer
      // the others: the transfer to it works all the same.
      this.top.replaceChildren(
        h("p", { class: "svc-basket-transfer__current", tabindex: "-1" },
          h("span", {}, this.#t("store_current", { store: store ? storeLabel(store) : storeId })),
          stores ? change : null),
        stores ? "" : this.#storesFailure(),
      );
    } else {
      this.top.replaceChildren(this.#picker(storeId));
    }
    this.#locator(this.top.querySelector("[data-role='store-form']") !== null);
    this.#renderAction();
  }

  /**
   * The store form: a native select and a submit button (works with the keyboard and screen readers as is). Sent
   * without a store, it says so under the list in the drawer's words (`novalidate`: not the browser's bubble), the
   * list described by the sentence and focused, until a store is chosen.
   */
  #picker(/** @type {string | null} */ current) {
    const id = `svc-basket-transfer-store-${Math.random().toString(36).slice(2, 8)}`;
    const select = /** @type {HTMLSelectElement} */ (h("select", { id, name: "store_id", class: "svc-basket-transfer__select", required: "" },
      h("option", { value: "" }, this.#t("store_placeholder")),
      ...nearestFirst(this.#stores ?? [], services.customization.location$.value ?? null).map((store) => {
        const option = h("option", { value: store.id }, storeLabel(store));
        if (store.id === current) option.setAttribute("selected", "");
        return option;
      })));
    const error = h("p", { class: "svc-basket-transfer__error", id: `${id}-error`, "data-role": "store-error", hidden: "" },
      this.#t("store_required"));
    /** @param {boolean} shown */
    const showError = (shown) => {
      error.hidden = !shown;
      if (shown) {
        select.setAttribute("aria-invalid", "true");
        select.setAttribute("aria-describedby", error.id);
      } else {
        select.removeAttribute("aria-invalid");
        select.removeAttribute("aria-describedby");
      }
    };
    // Once said, the sentence follows the list: gone with a store chosen (never said before a first send).
    select.addEventListener("change", () => {
      if (select.getAttribute("aria-invalid") === "true") showError(select.value === "");
    });
    const form = h("form", { class: "svc-basket-transfer__form", "data-role": "store-form", novalidate: "" },
      h("label", { class: "svc-basket-transfer__field", for: id }, this.#t("store_label"), select),
      h("button", { type: "submit", class: "svc-ds-button svc-ds-button--secondary" }, this.#t("store_submit")),
      error);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const storeId = select.value;
      if (!storeId) {
        showError(true);
        select.focus();
        return;
      }
      const { session } = services;
      session.local.set(session.supplierKey(PUBLISHER_STORE_KEY), storeId);
      this.#picking = false;
      this.#onStore(storeId);
      this.render(); // the same store again changes nothing else: the picker closes all the same
      // The form is gone: focus goes to the store line that replaced it, not to the page behind the dialog.
      /** @type {HTMLElement | null} */ (this.top.querySelector(".svc-basket-transfer__current"))?.focus({ preventScroll: true });
    });
    return h("div", {}, h("h3", { class: "svc-basket-transfer__title" }, this.#t("store_title")), form);
  }

  /**
   * The transfer button, once a store is chosen: disabled (aria-disabled, described by the sentence saying what is
   * missing) while the basket is empty. It is there before the basket fills, and its sentence keeps the room of
   * the longer of its two texts, so that nothing moves in the footer when the first "add all" is answered: a
   * quick second tap (a double tap on a phone) meets "add all" again, not a transfer that would leave the site.
   */
  #renderAction() {
    const { basket } = services;
    const storeId = services.pos.current;
    const current = basket.basket$.value;
    const ready = Boolean(storeId) && (current?.recipes?.length ?? 0) > 0;
    if (!storeId || this.#offer.available === false) {
      this.action.replaceChildren();
      return;
    }
    const hintId = `svc-basket-transfer-hint-${Math.random().toString(36).slice(2, 8)}`;
    const button = h("button", {
      type: "button",
      class: "svc-basket-transfer__submit svc-ds-button svc-ds-button--primary svc-ds-button--large",
      "data-action": "transfer",
      "aria-describedby": hintId,
    }, this.#t(this.#sending ? "transfer_pending" : "transfer"));
    if (this.#sending || !ready) button.setAttribute("aria-disabled", "true");
    // Rebuilt while sending (the basket emitted), the button keeps the focus it had.
    const hadFocus = this.action.contains(document.activeElement);
    button.addEventListener("click", () => {
      if (ready) void this.#send(/** @type {string} */ (storeId));
    });
    // Both sentences take the same cell; the one not meant now is invisible (and so not read).
    const hint = (/** @type {string} */ key, /** @type {boolean} */ shown) => h("p", {
      class: "svc-basket-transfer__hint",
      ...(shown ? { id: hintId } : { "aria-hidden": "true", "data-role": "room" }),
    }, this.#t(key));
    this.action.replaceChildren(button, h("div", { class: "svc-basket-transfer__hints" },
      hint("transfer_hint", ready), hint("transfer_empty", !ready)));
    if (hadFocus) button.focus({ preventScroll: true });
  }

  /** The basket goes to the retailer: the link is made once the basket's pending writes are done, then followed.
   * The button stays in place (focus with it) and says that it is sending. */
  async #send(/** @type {string} */ storeId) {
    if (this.#sending) return;
    const { basket, notices, track } = services;
    this.#sending = true;
    const button = this.action.querySelector("[data-action='transfer']");
    button?.setAttribute("aria-disabled", "true");
    if (button) button.textContent = this.#t("transfer_pending");
    try {
      await basket.whenIdle();
      const link = await basket.transfer(storeId);
      track("basket.transfer", { store_id: storeId, recipe_count: basket.basket$.value?.recipes.length ?? 0 });
      window.location.assign(link.url);
    } catch (error) {
      this.#sending = false;
      button?.removeAttribute("aria-disabled");
      if (button) button.textContent = this.#t("transfer");
      logFailure(sdk.prefix, "basket transfer: failed", error);
      const empty = /** @type {any} */ (error)?.problem?.reason === "empty";
      notices.show(this.#t(empty ? "transfer_empty" : "transfer_failed"), "error");
    }
  }
}

/** @param {{ name: string, city: string }} store */
function storeLabel(store) {
  // Both are the upstream's: each keeps its own direction (texts.js, `isolated`).
  return store.city && !store.name.includes(store.city) ? `${isolated(store.name)} (${isolated(store.city)})` : store.name;
}

/**
 * The stores, nearest to `location` first (great-circle distance) when there is one; stores without
 * coordinates keep their order after the others. Without a location: the service's order.
 * @template {{ latitude?: number, longitude?: number }} S
 * @param {S[]} stores @param {{ latitude: number, longitude: number } | null} location
 * @returns {S[]}
 */
export function nearestFirst(stores, location) {
  if (!location) return stores;
  const distance = (/** @type {S} */ store) => (
    typeof store.latitude === "number" && typeof store.longitude === "number"
      ? haversineKm(location, { latitude: store.latitude, longitude: store.longitude })
      : Number.POSITIVE_INFINITY);
  return stores.map((store, index) => ({ store, index, km: distance(store) }))
    .sort((a, b) => a.km - b.km || a.index - b.index)
    .map(({ store }) => store);
}

/** @param {{ latitude: number, longitude: number }} a @param {{ latitude: number, longitude: number }} b */
function haversineKm(a, b) {
  const rad = (/** @type {number} */ deg) => (deg * Math.PI) / 180;
  const dLat = rad(b.latitude - a.latitude);
  const dLon = rad(b.longitude - a.longitude);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.sin(dLon / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.min(1, Math.sqrt(h)));
}
