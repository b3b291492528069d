// <svc-drawer>: the right-side dialog showing a recipe's details, or the shopper's basket preview (docs/styles.md,
// "drawer.css"). Created once, on demand, in document.body. Accessible modal: role="dialog", aria-modal,
// labelled by its title; focus moves in, Tab is trapped, Escape / the close button / the backdrop close it,
// focus returns to the opener; the page's scroll is locked while open (the SDK's scroll lock:
// `svc-scroll-lock` on <html>, or the page's own scroll element), and it sits in the browser's top layer
// (sdk/top-layer.js). Closing it emits `recipes.hidden`. The details come from GET {api}/{v}/recipe-details as
// HTML, the preview from GET {api}/v2/catalog/my-space/basket-preview?embed=true (its <svc-catalog> root wired by
// components/catalog.js).
import { sdk, services, icon, h, parsedFragment, logFailure, tabbables, trapTab, WORKING_AFTER_MS } from "./ui.js";
import { RecipeDetails } from "./recipe-details.js";
import { DrawerMessage } from "./drawer/message.js";
import { previewFragment, previewReady } from "./drawer/preview.js";

const tagName = `${sdk.prefix}-drawer`;
// The folder of this build's sheets, for the basket preview's (components/drawer/preview.js): written here, where
// the drawer's module is at the same place in the readable and the release trees.
const SHEETS = new URL("../css/", import.meta.url);
/**
 * @typedef {object} OpenOptions
 * @property {string} recipeId
 * @property {number} [guests]
 * @property {HTMLElement} [opener] element focused again on close (default: the focused element)
 * @property {string} [source] "card", "api"... (analytics)
 * @property {string} [title] shown while the details load
 * @property {string} [storeId] used when the page has not called pos.load
 * @property {import("./basket-transfer.js").TransferOffer} [transfer] a publisher's CTA: the affiliated
 *   retailer's store picker and the transfer (components/basket-transfer.js)
 * @property {string} [picture] a publisher's own picture of the dish (its CTA's `picture-url`, an http(s) URL),
 *   shown in place of the service's
 */

/**
 * The recipe the open drawer shows.
 * @typedef {{ recipeId: string, guests?: number, storeId: string | null, picture?: string }} Current
 */

export class DrawerElement extends HTMLElement {
  /** @type {HTMLElement} */ #panel;
  /** @type {HTMLElement} */ #title;
  /** @type {HTMLElement} */ #messages;
  /** @type {DrawerMessage} */ #message;
  /** @type {HTMLElement} */ #body;
  /** @type {HTMLElement} */ #footer;
  /** @type {OpenerPlace | null} */ #opener = null;
  /** @type {import("./recipe-details.js").RecipeDetails | null} */ #details = null;
  /** @type {AbortController | null} */ #request = null;
  /** @type {AbortController | null} */ #whileOpen = null;
  /** @type {Current | null} */ #current = null;
  /** @type {import("./basket-transfer.js").TransferPanel | null} */ #transfer = null;
  /** Whether the drawer shows (or loads) the basket preview rather than a recipe. */ #preview = false;
  /** The details' basket writes in flight (`whileSlow`), and whether "One moment…" was said for them. */
  #writes = 0;
  #saidWorking = false;

  connectedCallback() {
    if (this.#panel) return;
    // Read as HTMLElement's id: the checker takes `this.id = id` below for a declaration of this class's own
    // `id` and would report this read as coming before it.
    const id = /** @type {HTMLElement} */ (this).id || `${tagName}-${Math.random().toString(36).slice(2, 8)}`;
    this.id = id;
    this.classList.add("svc-ds-scope", "svc-drawer");
    this.inert = true;
    const { notices, session } = services;
    // Its own texts (close, loading, the store picker) are the session's language, which may not be the page's (an
    // English fragment on a French blog): a screen reader reads them in it.
    this.lang = session.language.slice(0, 2);
    this.#title = h("h2", { class: "svc-drawer__title", id: `${id}-title`, dir: "auto" });
    // Whether the header cuts the title changes with its text and the drawer's width (a phone turned).
    if (typeof ResizeObserver === "function") new ResizeObserver(() => this.#showWholeTitle()).observe(this.#title);
    const close = h("button", { type: "button", class: "svc-drawer__close", "aria-label": notices.t("drawer.close"), "data-action": "close" },
      icon("close", "svc-ds-icon"));
    this.#body = h("div", { class: "svc-drawer__body", tabindex: "-1" });
    this.#message = new DrawerMessage({
      dismissLabel: notices.t("drawer.dismiss"),
      focusAfter: () => this.#body.focus({ preventScroll: true }),
    });
    this.#messages = h("div", { class: "svc-drawer__messages" }, this.#message.element);
    // Divs, not header and footer: outside sectioning content these would be the page's banner and
    // contentinfo landmarks, which the retailer's page has already (axe: landmark-no-duplicate-*).
    this.#footer = h("div", { class: "svc-drawer__footer" });
    this.#panel = h("div", { class: "svc-drawer__panel", role: "dialog", "aria-modal": "true", "aria-labelledby": `${id}-title`, tabindex: "-1" },
      h("div", { class: "svc-drawer__header" }, this.#title, close), this.#messages, this.#body, this.#footer);
    this.replaceChildren(h("div", { class: "svc-drawer__backdrop", "data-action": "close" }), this.#panel);
    this.addEventListener("click", (event) => {
      const target = event.target instanceof Element ? event.target.closest("[data-action='close']") : null;
      if (target && this.contains(target)) this.close();
    });
  }

  /** Removed while open (a single-page app replacing the body): release the page. */
  disconnectedCallback() {
    this.close();
  }

  get isOpen() {
    return this.hasAttribute("open");
  }

  /**
   * Opens the drawer on a recipe (or switches to it when already open).
   * @param {OpenOptions} options
   */
  async open({ recipeId, guests, opener, source = "api", title, storeId, transfer, picture }) {
    const { analytics, pos, notices } = services;
    if (!this.isOpen) {
      this.#opener = placeOf(opener ?? focusedElement());
      this.#show();
    } else if (this.#current && this.#current.recipeId !== recipeId) {
      analytics.track("recipe.close", { recipe_id: this.#current.recipeId });
    }
    this.#preview = false;
    const store = pos.storeId$.hasValue ? /** @type {string | null} */ (pos.storeId$.value) : (storeId ?? null);
    // A recipe in the basket opens at the basket's guest count, whatever the opener says (a retailer's card keeps
    // the count it was rendered with): else the drawer would show, and its button put back, another count.
    const inBasket = services.basket.entry(recipeId)?.guests;
    guests = inBasket && inBasket > 0 ? inBasket : guests;
    this.#current = { recipeId, guests, storeId: store, ...(picture ? { picture } : {}) };
    await this.#showTransfer(transfer);
    this.#title.textContent = title || notices.t("drawer.loading");
    analytics.track("recipe.display", { recipe_id: recipeId, source, ...(guests ? { guests } : {}) });
    return this.#load({ preserve: false });
  }

  /**
   * The guests changed in the details: fetch them again for that number, keeping tab and focus. `from`: only if
   * the drawer still shows that recipe for that count (a refused change going back to the basket's count, unless
   * the shopper stepped on, opened another recipe or closed the drawer meanwhile).
   * @param {{ guests: number, from?: { recipeId: string, guests: number } }} options
   */
  reload({ guests, from }) {
    const current = this.#current;
    if (!current) return Promise.resolve();
    if (from && (String(current.recipeId) !== from.recipeId || current.guests !== from.guests)) return Promise.resolve();
    this.#current = { ...current, guests };
    return this.#load({ preserve: true });
  }

  /**
   * `work` (a basket write of the details), with "One moment…" in the message line once it has taken
   * WORKING_AFTER_MS, said once however many writes are slow (two rows may write at once), and withdrawn when the
   * last of them settles unless another message replaced it: a slow service was seconds of silence behind a busy
   * control. Settles as `work` does, after the withdrawal (the caller's own message follows).
   * @template T @param {Promise<T>} work @returns {Promise<T>}
   */
  whileSlow(work) {
    const text = services.notices.t("drawer.working");
    this.#writes += 1;
    const timer = setTimeout(() => {
      if (this.#saidWorking) return;
      this.#saidWorking = true;
      this.#message.show("info", text, { lasting: true });
    }, WORKING_AFTER_MS);
    const done = () => {
      clearTimeout(timer);
      this.#writes -= 1;
      if (this.#writes > 0) return;
      this.#saidWorking = false;
      this.#message.withdraw(text);
    };
    work.then(done, done);
    return work;
  }

  /**
   * Opens the drawer on the shopper's basket preview (or switches to it when open). Resolves once it is shown;
   * rejects with the problem when it cannot be loaded (the drawer then shows its error state).
   * @param {{ opener?: HTMLElement }} [options] opener: focused again on close (default: the focused element)
   */
  async openPreview({ opener } = {}) {
    const { analytics, notices } = services;
    if (!this.isOpen) {
      this.#opener = placeOf(opener ?? focusedElement());
      this.#show();
    } else if (this.#current) {
      analytics.track("recipe.close", { recipe_id: this.#current.recipeId });
    }
    this.#leaveRecipe();
    this.#preview = true;
    this.#title.textContent = notices.t("drawer.preview");
    return this.#loadPreview();
  }

  /** The recipe shown goes (closed, or the preview replaces it): its request, controller and publisher's panel. */
  #leaveRecipe() {
    this.#request?.abort();
    this.#request = null;
    this.#details?.destroy();
    this.#details = null;
    this.#current = null;
    this.#transfer?.destroy();
    this.#transfer = null;
  }

  close() {
    if (!this.isOpen) return;
    const { analytics, notices, customization, recipeEvents, topLayer } = services;
    if (this.#current) analytics.track("recipe.close", { recipe_id: this.#current.recipeId });
    this.#leaveRecipe();
    // The preview's <svc-catalog> follows the basket while connected: it goes with the drawer.
    if (this.#preview) this.#body.replaceChildren();
    this.#preview = false;
    this.#whileOpen?.abort();
    this.#whileOpen = null;
    notices.setPresenter(null);
    this.#message.clear();
    this.classList.remove("svc-drawer--open");
    this.removeAttribute("open");
    topLayer.lower(this);
    this.inert = true;
    customization.scrollLock.release();
    const opener = foundAgain(this.#opener);
    this.#opener = null;
    opener?.focus({ preventScroll: true });
    recipeEvents.hidden.next(true);
  }

  #show() {
    const { notices, customization, topLayer } = services;
    this.inert = false;
    this.setAttribute("open", "");
    this.classList.add("svc-drawer--open");
    // Above the retailer's page whatever its z-index (sdk/top-layer.js).
    topLayer.raise(this);
    customization.scrollLock.acquire();
    this.#whileOpen = new AbortController();
    const { signal } = this.#whileOpen;
    document.addEventListener("keydown", (event) => this.#onKeydown(event), { signal });
    document.addEventListener("focusin", (event) => this.#onFocusIn(event), { signal });
    // The page's history moves (Back in a single-page app, a hash link): the view it was opened over is gone.
    window.addEventListener("popstate", () => this.close(), { signal });
    notices.setPresenter((/** @type {{ kind: string, text: string }} */ notice) => this.#present(notice));
    /** @type {HTMLElement | null} */ (this.#panel.querySelector(".svc-drawer__close"))?.focus({ preventScroll: true });
  }

  /**
   * A publisher's drawer: the retailer's store (picked here) and the transfer, above the recipe and in the
   * footer; none for a retailer's card.
   * @param {import("./basket-transfer.js").TransferOffer | undefined} offer
   */
  async #showTransfer(offer) {
    this.#transfer?.destroy();
    this.#transfer = null;
    if (!offer) return;
    const current = this.#current;
    let module;
    try {
      module = await import("./basket-transfer.js");
    } catch (error) {
      logFailure(sdk.prefix, "the store picker could not be loaded", error); // the recipe shows all the same
      return;
    }
    // Closed, or opened on another recipe, while the module loaded: that call shows its own panel.
    if (!this.isOpen || this.#current !== current) return;
    this.#transfer = new module.TransferPanel(offer, (storeId) => {
      const { pos } = services;
      void pos.load(storeId);
      if (!this.#current) return;
      this.#current = { ...this.#current, storeId };
      this.#load({ preserve: false }).catch(() => {}); // the drawer shows the failure
    });
    this.#messages.after(this.#transfer.top);
    this.#transfer.render();
  }

  /** @param {{ preserve: boolean }} options */
  async #load({ preserve }) {
    const { client } = services;
    const current = /** @type {Current} */ (this.#current);
    this.#request?.abort();
    const request = new AbortController();
    this.#request = request;
    if (preserve) {
      this.#body.setAttribute("aria-busy", "true");
    } else {
      this.#details?.destroy();
      this.#details = null;
      this.#showLoading();
    }
    try {
      const html = await client.request("GET", "/recipe-details", {
        query: { recipe_id: current.recipeId, store_id: current.storeId, guests: current.guests },
        as: "text",
        signal: request.signal,
      });
      if (request.signal.aborted || this.#current !== current) return;
      // Taken now, not before the request: a step of the stepper while the details were on their way is kept.
      const restore = preserve ? this.#details?.snapshot() : undefined;
      this.#showDetails(String(html), current, restore);
    } catch (error) {
      if (request.signal.aborted || (error instanceof DOMException && error.name === "AbortError")) return;
      if (this.#current !== current) return;
      this.#showError(error, { preserve, retry: () => this.#load({ preserve: false }) });
      throw error;
    } finally {
      if (this.#request === request) this.#request = null;
      this.#body.removeAttribute("aria-busy");
    }
  }

  /**
   * Inserts the fragment (prerender's own, escaped server-side), moves its footer into the drawer's and
   * hands it to the details controller.
   * @param {string} html @param {Current} current
   * @param {import("./recipe-details.js").Snapshot | undefined} restore
   */
  #showDetails(html, current, restore) {
    const hadFocus = this.#panel.contains(document.activeElement) && document.activeElement !== this.#panel.querySelector(".svc-drawer__close");
    const scrollTop = this.#body.scrollTop;
    this.#details?.destroy();
    this.#details = null;
    const content = parsedFragment(html);
    const root = content.querySelector(".svc-recipe-details");
    const footer = /** @type {HTMLElement | null} */ (root?.querySelector(".svc-recipe-details__footer") ?? null);
    if (root && current.picture) usePicture(root, current.picture);
    this.#body.replaceChildren(content);
    this.#footer.replaceChildren(...(footer ? [footer] : []), ...(this.#transfer ? [this.#transfer.action] : []));
    this.#footer.classList.toggle("svc-drawer__footer--transfer", Boolean(this.#transfer));
    // The recipe's title is the dialog's, in its header (drawer.css hides the fragment's own, shown once, unless the
    // header had to cut it: see #showWholeTitle).
    const own = root?.querySelector(".svc-recipe-details__title");
    const title = own?.textContent?.trim();
    if (title) this.#title.textContent = title;
    own?.setAttribute("aria-hidden", "true"); // the header's names the dialog, whole, for assistive technologies
    this.#showWholeTitle();
    if (restore) this.#body.scrollTop = scrollTop;
    if (root instanceof HTMLElement) {
      this.#details = new RecipeDetails({
        root, footer, recipeId: current.recipeId, drawer: this, restore,
      });
    }
    // The focused control was replaced with the old markup: keep focus inside the dialog.
    if (hadFocus && !this.#panel.contains(document.activeElement)) this.#body.focus({ preventScroll: true });
  }

  /**
   * The header shows three lines of the title at most (a long one would leave the recipe no room on a phone): when
   * it cuts it, the details' own copy shows it whole at the top of the body (drawer.css, `data-title-cut`).
   */
  #showWholeTitle() {
    const cut = this.#title.scrollHeight > this.#title.clientHeight + 1;
    this.#body.toggleAttribute("data-title-cut", cut);
  }

  /** The loading state: the body's content (focus kept in the dialog) and the footer go. */
  #showLoading() {
    const { notices } = services;
    if (this.#body.contains(document.activeElement)) this.#body.focus({ preventScroll: true });
    this.#footer.replaceChildren();
    this.#body.replaceChildren(h("div", { class: "svc-drawer__loading", role: "status" },
      h("span", { class: "svc-ds-visually-hidden" }, notices.t("drawer.loading"))));
  }

  /**
   * The details (or the preview) could not be loaded. A 404 of the details is final; a refused credential (401,
   * or a 400 while the page has no credential at all: the request then lacked an identity) needs a reload or a
   * new sign-in, not a retry; anything else offers "try again".
   * @param {unknown} error
   * @param {{ preserve?: boolean, retry: () => Promise<unknown>, failedKey?: string, finalNotFound?: boolean }} options
   *   preserve: details already shown stay (a message instead); failedKey: the text of any other failure
   */
  #showError(error, { preserve = false, retry, failedKey = "error.details", finalNotFound = true }) {
    const { notices, session } = services;
    const status = /** @type {any} */ (error)?.status;
    const notFound = finalNotFound && status === 404;
    const credential = status === 401 || (status === 400 && !session.credential);
    const key = notFound ? "error.not-found" : credential ? "error.credential" : failedKey;
    const text = notices.t(key);
    if (preserve && this.#details) {
      notices.error(error, key);
      return;
    }
    logFailure(sdk.prefix, "the drawer's content failed", error);
    const button = notFound || credential ? null : h("button", { type: "button", class: "svc-ds-button svc-ds-button--secondary", "data-action": "retry" },
      notices.t("drawer.retry"));
    button?.addEventListener("click", () => {
      retry().catch(() => {});
    });
    this.#body.replaceChildren(h("div", { class: "svc-drawer__error", role: "alert" }, h("p", { class: "svc-ds-text" }, text), button));
    if (this.#title.textContent === notices.t("drawer.loading")) this.#title.textContent = text;
    (button ?? this.#panel.querySelector(".svc-drawer__close"))?.focus({ preventScroll: true });
  }

  // --- the basket preview ----------------------------------------------------------------------------

  async #loadPreview() {
    const { client } = services;
    this.#request?.abort();
    const request = new AbortController();
    this.#request = request;
    this.#showLoading();
    try {
      const [html] = await Promise.all([
        client.request("GET", "/catalog/my-space/basket-preview", {
          query: { embed: "true" }, as: "text", version: "v2", signal: request.signal,
        }),
        previewReady(SHEETS),
      ]);
      if (request.signal.aborted || !this.#preview) return;
      this.#showPreview(String(html));
    } catch (error) {
      if (request.signal.aborted || (error instanceof DOMException && error.name === "AbortError")) return;
      if (!this.#preview) return;
      this.#showError(error, { retry: () => this.#loadPreview(), failedKey: "error.generic", finalNotFound: false });
      throw error;
    } finally {
      if (this.#request === request) this.#request = null;
    }
  }

  /** Shows the preview fragment (components/drawer/preview.js), its heading as the drawer's title. @param {string} html */
  #showPreview(html) {
    const { notices } = services;
    const { content, title } = previewFragment(html, `-${this.id}`);
    this.#footer.replaceChildren();
    this.#body.replaceChildren(content);
    this.#body.scrollTop = 0;
    this.#title.textContent = title || notices.t("drawer.preview");
  }

  /**
   * Shows a message at the top of the open drawer (components/drawer/message.js).
   * @param {{ kind: string, text: string }} notice
   * @returns {boolean}
   */
  #present(notice) {
    this.#message.show(notice.kind === "error" ? "error" : "info", notice.text);
    return true;
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
    trapTab(event, focusables, this.#panel, (active) => {
      // Focus is on the panel, the scrolling body or outside: the nearest focusable in document order.
      const inside = active !== null && this.#panel.contains(active);
      const after = (/** @type {HTMLElement} */ el) =>
        Boolean(active && active.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING);
      return event.shiftKey
        ? (inside && focusables.filter((el) => !after(el)).pop()) || focusables[focusables.length - 1]
        : (inside && focusables.find(after)) || focusables[0];
    });
  }

  /** Focus that leaves the open dialog (a script, a click through) is brought back. */
  #onFocusIn(/** @type {FocusEvent} */ event) {
    if (event.target instanceof Node && !this.contains(event.target)) {
      (this.#focusables()[0] ?? this.#panel).focus({ preventScroll: true });
    }
  }

  /** @returns {HTMLElement[]} */
  #focusables() {
    return tabbables(this.#panel);
  }
}

/**
 * The publisher's picture of the dish in place of the service's (or of its placeholder), in the details' hero.
 * @param {Element} root the details fragment @param {string} url an http(s) URL
 */
function usePicture(root, url) {
  const current = root.querySelector(".svc-recipe-details__hero > .svc-recipe-details__hero-img, .svc-recipe-details__hero > .svc-recipe-details__hero-fallback");
  current?.replaceWith(h("img", {
    class: "svc-recipe-details__hero-img", src: url, alt: "", width: "480", height: "300", fetchpriority: "high", decoding: "async",
    "data-svc-picture": "recipe", "data-picture-source": "publisher",
  }));
}

/** The focused element, to focus again on close (none: the body). */
function focusedElement() {
  const active = document.activeElement;
  return active instanceof HTMLElement && active !== document.body ? active : null;
}

/**
 * The element focused again on close, and where to find it again if the page replaced it meanwhile (a list the
 * page drew again, a card swapped for a copy): its own id, else the nearest element with an id around it (a card's
 * is `<prefix>-recipe-card-<recipe>`) and its first class, when no other element of that class is in there.
 * @typedef {{ element: HTMLElement, id: string, holderId: string, className: string }} OpenerPlace
 * @param {unknown} element what the page gave as `opener` (not always an element: a jQuery object is none)
 * @returns {OpenerPlace | null}
 */
function placeOf(element) {
  if (!(element instanceof HTMLElement)) return null;
  const holder = element.parentElement?.closest("[id]");
  const className = element.classList.item(0) ?? "";
  const unique = holder && className && holder.getElementsByClassName(className).length === 1;
  return { element, id: element.id, holderId: unique ? holder.id : "", className: unique ? className : "" };
}

/**
 * The opener if still in the page, else the element that took its place: by its id, or the one element of its
 * class in the element that now has its holder's id. Nothing when neither is found, or more than one would be.
 * @param {OpenerPlace | null} place
 * @returns {HTMLElement | null}
 */
function foundAgain(place) {
  if (!place) return null;
  if (place.element.isConnected) return place.element;
  const byId = place.id ? document.getElementById(place.id) : null;
  if (byId) return byId;
  if (!place.holderId) return null;
  const matches = document.getElementById(place.holderId)?.getElementsByClassName(place.className);
  const again = matches?.length === 1 ? matches.item(0) : null;
  return again instanceof HTMLElement ? again : null;
}

if (!customElements.get(tagName)) {
  customElements.define(tagName, DrawerElement);
}

/** The page's drawer, created in document.body the first time. */
export function drawer() {
  // The class registered for the tag may come from another build of this module: use it, not ours.
  const Drawer = /** @type {typeof DrawerElement} */ (customElements.get(tagName));
  const existing = document.querySelector(tagName);
  if (existing instanceof Drawer) return existing;
  const element = /** @type {DrawerElement} */ (document.createElement(tagName));
  document.body.append(element);
  return element;
}

/** @param {OpenOptions} options */
export function openRecipeDetails(options) {
  return drawer().open(options);
}

/** Closes the page's drawer, when open (`svc.recipes.closeDetails()`: a single-page app's route change). */
export function closeDrawer() {
  const Drawer = /** @type {typeof DrawerElement} */ (customElements.get(tagName));
  const existing = document.querySelector(tagName);
  if (existing instanceof Drawer) existing.close();
}

/**
 * Opens the drawer on the shopper's basket preview (`basket.openPreview()`, sdk/basket.js).
 * @param {{ opener?: HTMLElement }} [options]
 */
export function openBasketPreview({ opener } = {}) {
  return drawer().openPreview({ opener });
}
