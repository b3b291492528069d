// <svc-planner>: the planner's current-menu page (templates/planner/current_menu.html), made interactive.
// Idempotent: defined once whatever the number of fragments loading this module.
//
// The server renders the whole page; this module never draws a menu itself. Each action calls a menu route
// (docs/browser-api.md, "Menus"), then takes the menu's parts ([data-part]: the budget, the menu panel, the
// quick menu) again from the page's own route (`GET /v2/planner/current-menu?panel=false`, with the shopper's
// credential) and puts them in place, focus kept where it was. Actions run one at a time.
//
// - the left panel (components/planner-panel.js): suggestions as rendered; a type chip or a search loads the
//   catalog (`GET /v2/planner/recipes`, the menu's recipes left out), "more" its next page, "suggestions"
//   restores them; "add" puts a recipe in the menu, "see the recipe" opens the drawer (svc.recipes.openDetails);
// - the menu: guests (every recipe's), swap (for the shopper's first suggestion of the same type), remove,
//   select / unselect a product, the budget;
// - finalize (components/planner/finalize.js): the host asked for a store or a login, else the menu to the
//   basket and the browser to the retailer cart (`cart-url`);
// - phone views: `view` (recipe | menu) follows the buttons, in the class and the URL's ?view= (no reload);
// - the onboarding modal opens on a first visit (localStorage `_<prefix>/planner/onboarded`) and from help;
// - coming from the entry (`mode` present), the guests it stored (`_<prefix>/planner/guests`) apply to the
//   menu; without usable localStorage the page says the planner needs it;
// - analytics: a pageview (path `analytics-path`) unless the host's page has its meta path, `planner.open`
//   once, then `planner.add`, `planner.remove`, `planner.swap`, `planner.finalize`;
// - the try-again state (`retry`: the upstream failed while the server rendered the page), in
//   components/planner-retry.js: the page asked again a few times, then on the button.
//
// Its private parts (components/planner/, bundled into it in the release tree): messages.js (what the page
// says), parts.js (the menu's parts drawn again), finalize.js.
import { sdk, services, formsFromHolders, scriptedForms, keepSubmitsInside, isOutcomeUnknown, revealFocusInRows, validGuestCount, writableLocalStorage, GUESTS_MIN, GUESTS_MAX } from "./ui.js";
import { findOnboarding, ONBOARDED_KEY } from "./planner-onboarding.js";
import { PlannerPanel } from "./planner-panel.js";
import { PlannerRetry } from "./planner-retry.js";
import { PlannerMessages } from "./planner/messages.js";
import { PlannerParts } from "./planner/parts.js";
import { finalizeMenu, problemOf, takeFinalizedNotice } from "./planner/finalize.js";
// The panel's recipe cards are <svc-recipe-card>: their title and picture open the drawer (see-recipe, below).
import "./recipe-card.js";

const tagName = `${sdk.prefix}-planner`;
const GUESTS_KEY = "planner/guests";
const VIEWS = ["recipe", "menu"];
/** The suggestions a swap chooses among (GET menu/current/suggestions' limit): the first the shopper did not just
 * take out of the menu. */
const SWAP_CHOICES = 6;

// The page's text for a 409's reason (coreapi/services/menus.py): the first three say the menu is not as the page
// shows it (changed on another tab or device); a reason not listed gets the page's "try again".
const CONFLICT_TEXTS = new Map([
  ["menu-full", "CHANGED_ELSEWHERE"],
  ["already-in-menu", "CHANGED_ELSEWHERE"],
  ["empty", "CHANGED_ELSEWHERE"],
  ["unavailable-at-store", "NOT_AT_STORE"],
  ["no-store", "CHOOSE_STORE"],
]);

export class PlannerElement extends HTMLElement {
  /** @type {AbortController | null} */ #listeners = null;
  /** @type {Promise<unknown>} */ #queue = Promise.resolve();
  #busy = 0;
  /** The recipes the shopper took out of the menu in this page (removed, or swapped for another): a swap offers
   * another suggestion before one of them, which the shopper just did not want. */
  #leftTheMenu = new Set();
  /** What the page says: its texts, status and messages. */
  #messages = new PlannerMessages(this);
  /** The menu's parts, drawn again after each action. */
  #parts = new PlannerParts(this, {
    fetchPage: () => this.#fetchHtml("/planner/current-menu", {
      store_id: this.storeId, panel: "false", view: this.view,
    }),
  });
  /** The left panel: the suggestions, or the catalog. */
  #panel = new PlannerPanel(this, {
    fetchHtml: (path, query) => this.#fetchHtml(path, query),
    text: (key, params) => this.#messages.text(key, params),
    status: (text) => this.#messages.status(text),
  });
  /** The try-again state, when the server rendered it. */
  #retry = new PlannerRetry(this, {
    fetchHtml: (path, query) => this.#fetchHtml(path, query),
    failed: () => this.#messages.show("RETRY_FAILED"),
  });

  connectedCallback() {
    if (this.#listeners) return;
    this.#listeners = new AbortController();
    const { signal } = this.#listeners;
    this.#messages.start();
    // The filters' and the views' forms, and the budget's (templates/planner/current_menu.html, budget.html).
    formsFromHolders(this);
    scriptedForms(this);
    this.addEventListener("click", (event) => this.#onClick(event), { signal });
    this.addEventListener("change", (event) => this.#onChange(event), { signal });
    this.addEventListener("submit", (event) => this.#onSubmit(/** @type {SubmitEvent} */ (event)), { signal });
    keepSubmitsInside(this, signal);
    this.addEventListener("input", (event) => this.#onInput(event), { signal });
    revealFocusInRows(this, signal);
    if (this.hasAttribute("unavailable")) return;
    if (this.hasAttribute("retry")) {
      this.#retry.schedule();
      this.setAttribute("hydrated", "");
      return;
    }
    this.#panel.remember();
    this.#parts.stepperBounds();
    // The page's own ?view= wins over the rendered one (a host that did not forward it).
    const asked = new URL(window.location.href).searchParams.get("view");
    this.#setView((asked ?? this.getAttribute("view")) === "menu" ? "menu" : "recipe", { history: false });
    // Back and Forward between the views' entries (#setView's `push`): the view of the entry reached.
    window.addEventListener("popstate", () => {
      const view = new URL(window.location.href).searchParams.get("view") === "menu" ? "menu" : "recipe";
      if (view !== this.getAttribute("view")) this.#setView(view, { history: false, focus: true });
    }, { signal });
    // Back from the retailer cart right after a finalize (components/planner/finalize.js): this menu is a new one,
    // the one sent is in the basket. Said on the page shown again from the back/forward cache too, whose menu, the
    // one sent, is drawn again as it is now.
    if (takeFinalizedNotice()) this.#messages.show("FINALIZED", { alert: false, persistent: true });
    window.addEventListener("pageshow", (event) => {
      if (!event.persisted || !takeFinalizedNotice()) return;
      this.#messages.show("FINALIZED", { alert: false, persistent: true });
      this.#run(() => this.#drawAgain(), { quiet: true });
    }, { signal });
    const storage = writableLocalStorage(services.session.key("planner/probe"));
    if (!storage) this.querySelector("[data-role='storage-required']")?.removeAttribute("hidden");
    this.#startAnalytics();
    services.planner.clearFinalizeUrl();
    // Another tab of the shopper changed the menu at this page's store: drawn again, after this page's own actions
    // (at another store, drawing it here would move the menu to this page's store: docs/upstream.md).
    const followed = services.planner.changedElsewhere$.subscribe(({ store }) => {
      if (store !== null && store === this.storeId) this.#run(() => this.#drawAgain(), { quiet: true });
    });
    // Another shopper now (a login or a logout in another tab, whose credential this tab took): their menu.
    let shopper = services.session.shopperKey;
    const switched = services.session.identity$.subscribe(() => {
      const now = services.session.shopperKey;
      if (!now || now === shopper) return;
      shopper = now;
      this.#run(() => this.#drawAgain(), { quiet: true });
    });
    signal.addEventListener("abort", () => {
      followed.unsubscribe();
      switched.unsubscribe();
    });
    if (storage) {
      this.#applyEntryGuests();
      this.#firstVisitOnboarding();
    }
    this.setAttribute("hydrated", "");
  }

  disconnectedCallback() {
    this.#listeners?.abort();
    this.#listeners = null;
    this.#messages.stop();
    this.#retry.stop();
  }

  /** @returns {"v1" | "v2"} */
  get apiVersion() {
    return this.getAttribute("api-version") === "v1" ? "v1" : "v2";
  }

  get storeId() {
    return this.getAttribute("store-id");
  }

  get view() {
    return this.getAttribute("view") === "menu" ? "menu" : "recipe";
  }

  // --- events ----------------------------------------------------------------------------------------

  /** @param {MouseEvent} event */
  #onClick(event) {
    const target = /** @type {Element | null} */ (event.target);
    const control = /** @type {HTMLElement | null} */ (target?.closest("[data-action]"));
    if (!control || !this.contains(control) || control.matches("input, [type='submit']")) return;
    const action = control.dataset.action;
    const row = /** @type {HTMLElement | null} */ (control.closest("[data-recipe-id]"));
    const recipeId = row?.dataset.recipeId ?? "";
    switch (action) {
      case "see-recipe": {
        if (control.closest(".svc-recipe-card")) return; // the card's own title opens the drawer (recipe-card.js)
        event.preventDefault();
        const guests = Number(row?.dataset.guests ?? this.getAttribute("guests")) || undefined;
        void sdk.recipes.openDetails(recipeId, guests, { opener: control }).catch(() => {});
        break;
      }
      case "add": this.#run(() => this.#add(recipeId, control)); break;
      case "remove": this.#run(() => this.#remove(recipeId, row)); break;
      case "swap": this.#run(() => this.#swap(recipeId, row?.dataset.recipeType ?? "")); break;
      case "guests-decrease": this.#run(() => this.#setGuests(-1)); break;
      case "guests-increase": this.#run(() => this.#setGuests(+1)); break;
      case "add-recipe":
        this.#setView("recipe", { push: true });
        /** @type {HTMLInputElement | null} */ (this.querySelector(".svc-planner__search-input"))?.focus();
        break;
      case "more": this.#run(() => this.#panel.load({ more: true })); break;
      case "suggestions": this.#run(async () => this.#panel.cancelSearch()); break;
      case "help": this.#openOnboarding(control); break;
      case "finalize": this.#run(() => finalizeMenu(/** @type {HTMLButtonElement} */ (control), {
        storeId: this.storeId,
        cartUrl: this.getAttribute("cart-url"),
        recipeCount: this.querySelectorAll(".svc-planner__menu-item").length,
        messages: this.#messages,
        refresh: () => this.#parts.refresh(),
      })); break;
      case "retry": void this.#retry.now({ manual: true }); break;
      default: break;
    }
  }

  /** @param {Event} event */
  #onChange(event) {
    const input = /** @type {HTMLInputElement} */ (event.target);
    if (input.dataset?.action !== "toggle-product") return;
    const recipeId = /** @type {HTMLElement | null} */ (input.closest("[data-recipe-id]"))?.dataset.recipeId ?? "";
    const productId = input.dataset.productId ?? "";
    const selected = input.checked;
    const product = (input.labels?.[0]?.querySelector(".svc-planner__product-name")?.textContent ?? "").trim();
    this.#run(async () => {
      try {
        await this.#write((menu) => menu.selectProduct(recipeId, productId, selected));
      } catch (error) {
        input.checked = !selected;
        throw error;
      }
      await this.#parts.refresh();
      this.#messages.say(selected ? "PRODUCT_SELECTED" : "PRODUCT_UNSELECTED", { product });
    });
  }

  /** Typing again in a refused budget field takes its error away. @param {Event} event */
  #onInput(event) {
    const input = event.target;
    if (input instanceof HTMLInputElement && input.name === "budget" && input.getAttribute("aria-invalid") === "true") {
      this.#budgetError(input, false);
    }
  }

  /**
   * The budget field refused (`shown`), or no longer: its error paragraph (templates/planner/budget.html) under it
   * and as its description, `aria-invalid`, the words heard in the page's status and the focus in the field.
   * @param {HTMLInputElement} input @param {boolean} shown
   */
  #budgetError(input, shown) {
    const error = /** @type {HTMLElement | null} */ (this.querySelector("[data-role='budget-error']"));
    if (error) error.hidden = !shown;
    if (shown) {
      input.setAttribute("aria-invalid", "true");
      if (error) input.setAttribute("aria-describedby", error.id);
      input.focus();
      this.#messages.status(error?.textContent?.trim() ?? "");
    } else {
      input.removeAttribute("aria-invalid");
      input.removeAttribute("aria-describedby");
    }
  }

  /** @param {SubmitEvent} event */
  #onSubmit(event) {
    const form = /** @type {HTMLFormElement} */ (event.target);
    if (form.dataset.role === "budget-form") {
      event.preventDefault();
      const input = /** @type {HTMLInputElement | null} */ (form.elements.namedItem("budget"));
      if (!input) return;
      if (!input.checkValidity()) {
        this.#budgetError(input, true);
        return;
      }
      // The field is text in the page's decimals (templates/planner/budget.html): "40,00" or "40.00".
      const written = input.value.replace(/\s/g, "").replace(",", ".");
      const value = written === "" ? null : Number(written);
      this.#run(async () => {
        await this.#write((menu) => menu.update({ budget: value }));
        await this.#parts.refresh();
        this.#messages.say("BUDGET_SAVED");
      });
    } else if (form.dataset.role === "views-form") {
      // The phone's views (templates/planner/current_menu.html): in place, the URL following without a reload.
      event.preventDefault();
      const submitter = /** @type {HTMLButtonElement | null} */ (event.submitter);
      this.#setView(submitter?.value === "menu" ? "menu" : "recipe", { push: true, focus: true });
    } else if (form.dataset.role === "catalog-form") {
      event.preventDefault();
      const submitter = /** @type {HTMLElement | null} */ (event.submitter);
      if (submitter?.dataset.action === "filter") {
        submitter.setAttribute("aria-pressed", submitter.getAttribute("aria-pressed") === "true" ? "false" : "true");
      }
      this.#run(() => this.#panel.load({ more: false }));
    }
  }

  // --- the menu's actions --------------------------------------------------------------------------------

  /** @param {string} recipeId @param {HTMLElement} button */
  async #add(recipeId, button) {
    // A second press queued behind the first (a double click) finds the recipe in the menu: not added twice.
    if (button.matches(":disabled")) return;
    const item = button.closest(".svc-planner__suggestion");
    const title = item?.querySelector(".svc-recipe-card__title-text")?.textContent?.trim() ?? "";
    await this.#write((menu) => menu.addRecipe(recipeId));
    services.track("planner.add", { recipe_id: recipeId, source: this.#panel.filtering() ? "catalog" : "suggestions" });
    const hadFocus = document.activeElement === button;
    this.#panel.markAdded(recipeId);  // its button is disabled ("in the menu"): the focus would fall to the page
    if (hadFocus) nextToAdd(this, item)?.focus();
    await this.#parts.refresh();
    this.#messages.say("ADDED", { title });
  }

  /** @param {string} recipeId @param {HTMLElement | null} row */
  async #remove(recipeId, row) {
    const title = row?.querySelector(".svc-planner__menu-item-title")?.textContent?.trim() ?? "";
    const next = /** @type {HTMLElement | null} */ (row?.nextElementSibling ?? null)?.dataset?.recipeId ?? null;
    await this.#write((menu) => menu.removeRecipe(recipeId));
    this.#leftTheMenu.add(recipeId);
    services.track("planner.remove", { recipe_id: recipeId });
    this.#panel.unmarkAdded(recipeId);
    await this.#parts.refresh({ focus: next ? `[data-recipe-id="${CSS.escape(next)}"] [data-action='remove']` : ".svc-planner__menu-slot-button" });
    this.#messages.say("REMOVED", { title });
  }

  /**
   * The menu recipe for the shopper's first suggestion of its type, one the shopper took out of the menu in this
   * page only when no other is left. @param {string} recipeId @param {string} type
   */
  async #swap(recipeId, type) {
    const query = { limit: SWAP_CHOICES, store_id: this.storeId, ...(type ? { type } : {}) };
    const answer = await services.menuRoutes.suggestions(query);
    const offered = (answer?.data ?? []).filter((recipe) => recipe?.id);
    const next = offered.find((recipe) => !this.#leftTheMenu.has(String(recipe.id))) ?? offered[0];
    if (!next?.id) {
      this.#messages.show("NO_SWAP");
      return;
    }
    const row = this.querySelector(`.svc-planner__menu-item[data-recipe-id="${CSS.escape(recipeId)}"]`);
    const title = row?.querySelector(".svc-planner__menu-item-title")?.textContent?.trim() ?? "";
    await this.#write((menu) => menu.swapRecipe(recipeId, String(next.id)));
    this.#leftTheMenu.add(recipeId);
    services.track("planner.swap", { recipe_id: recipeId, new_recipe_id: String(next.id) });
    this.#panel.unmarkAdded(recipeId);  // left the menu, even if the menu cannot be drawn again below
    await this.#parts.refresh({ focus: `[data-recipe-id="${CSS.escape(String(next.id))}"] [data-action='swap']` });
    // The recipe that came in is often a card of the panel (the first suggestion of its type): "in the menu" now,
    // as after an add; the one that left offers its "add" again.
    this.#followMenuInPanel();
    this.#messages.say("SWAPPED", { title, other: String(next.title ?? "") });
  }

  /** @param {number} delta */
  async #setGuests(delta) {
    const guests = Math.min(GUESTS_MAX, Math.max(GUESTS_MIN, this.#parts.guests() + delta));
    if (String(guests) === this.getAttribute("guests")) return;
    await this.#changeGuests(guests);
    // What the stepper's press did, heard (its value is no live region: the menu's parts are drawn again).
    this.#messages.say("GUESTS_CHANGED", { count: guests });
  }

  /** The menu for `guests`: written, its parts drawn again, the panel's cards following. @param {number} guests */
  async #changeGuests(guests) {
    await this.#write((menu) => menu.update({ guests }));
    await this.#parts.refresh();
    await this.#panelFollowsGuests();
  }

  /**
   * The panel's cards follow the menu's new guests (planner-panel.js). The menu changed whatever the panel
   * does: a failure is logged and the cards stay as they were (the page's next read draws them again).
   */
  async #panelFollowsGuests() {
    try {
      await this.#panel.followGuests();
    } catch (error) {
      console.warn(`[${sdk.prefix}] planner: could not draw the suggestions again for the new guests`, error);
    }
  }

  // --- the page's parts ----------------------------------------------------------------------------------

  /**
   * Another tab changed the menu, or the page acts for another shopper now: the menu's parts drawn again, the
   * panel's "in the menu" marks following them. A failure is logged and left (the page's next action shows the
   * menu as it is).
   */
  async #drawAgain() {
    const guests = this.getAttribute("guests");
    try {
      await this.#parts.refresh({ keepTyped: true });
    } catch (error) {
      console.warn(`[${sdk.prefix}] planner: could not show the menu another tab changed`, error);
      return;
    }
    this.#followMenuInPanel();
    if (this.getAttribute("guests") !== guests) await this.#panelFollowsGuests();
  }

  /** The panel's "in the menu" marks follow the menu's parts as they are now. */
  #followMenuInPanel() {
    const inMenu = new Set([...this.querySelectorAll(".svc-planner__menu-item")]
      .map((row) => /** @type {HTMLElement} */ (row).dataset.recipeId ?? ""));
    for (const item of this.querySelectorAll(".svc-planner__suggestion[data-recipe-id]")) {
      const recipeId = /** @type {HTMLElement} */ (item).dataset.recipeId ?? "";
      if (inMenu.has(recipeId)) this.#panel.markAdded(recipeId);
      else this.#panel.unmarkAdded(recipeId);
    }
  }

  /**
   * One of the page's HTML routes, with the shopper's credential; `hasMore`: its X-Has-More header (the
   * catalog panel has a next page).
   * @param {string} path @param {Record<string, string | number | null | undefined>} query
   * @returns {Promise<{ html: string, hasMore: boolean }>}
   */
  async #fetchHtml(path, query) {
    const { body, headers } = await services.client.request("GET", path, { query, as: "page", version: this.apiVersion });
    return { html: String(body), hasMore: headers.get("x-has-more") === "true" };
  }

  /**
   * A menu write (sdk/menu-routes.js: an idempotency key, retried when its outcome is unknown), told to the
   * shopper's other tabs once the service took it.
   * @param {(menu: import("../sdk/menu-routes.js").MenuRoutes) => Promise<unknown>} call
   */
  async #write(call) {
    const answer = await call(services.menuRoutes);
    services.planner.menuChanged(this.storeId);
    return answer;
  }

  /**
   * Runs actions one at a time; a failure is shown on the page (never thrown to the browser's console only). A
   * shopper's action (not `quiet`: a redraw for another tab is) says "One moment…" while it is slow
   * (planner/messages.js).
   * @param {() => Promise<unknown> | unknown} action @param {{ quiet?: boolean }} [options]
   */
  #run(action, { quiet = false } = {}) {
    this.#busy += 1;
    // Not aria-busy: the page's live regions are inside, and screen readers hold back what changes under it.
    this.setAttribute("busy", "");
    this.#queue = this.#queue.then(() => (quiet ? action() : this.#messages.saidIfSlow(action)))
      .catch((error) => this.#failed(error)).finally(() => {
        this.#busy -= 1;
        if (this.#busy === 0) this.removeAttribute("busy");
      });
  }

  /** @param {unknown} error @returns {Promise<void> | void} */
  #failed(error) {
    const { status, problem } = problemOf(error);
    if (status === 401) {
      // Told in the page's own message only (the notices would show it a second time, in the toaster).
      console.warn(`[${sdk.prefix}] planner: the credential was refused`, problem ?? error);
      this.#messages.message(services.notices.t("error.credential"));
      return;
    }
    console.warn(`[${sdk.prefix}] planner:`, error, problem?.detail ?? "");
    // Still in the queue: the next action's refresh cannot be overwritten by this older one.
    if (isOutcomeUnknown(error)) {
      // Every try went unanswered (the network, or the service's 502, 503 or 504): the change may have been applied
      // (its key made it once at most). "It did not work" would be wrong then: the page says it could not confirm
      // it and shows the menu as it is; when the menu cannot be read either, "try again" (a second try of a change
      // applied meanwhile is told as the menu changed, and shows it).
      return this.#parts.refresh().then(
        () => {
          this.#followMenuInPanel();
          this.#messages.show("UNCONFIRMED");
        },
        () => this.#messages.show("FAILED"),
      );
    }
    // Never the route's own detail: it is written for developers, in English. A 404 (no menu, or not that recipe
    // any more) means the menu changed elsewhere, as some 409s do; the refresh below shows it as it is now.
    const conflict = status === 409 ? CONFLICT_TEXTS.get(String(problem?.reason ?? "")) : undefined;
    this.#messages.show(status === 404 ? "CHANGED_ELSEWHERE" : conflict ?? "FAILED");
    return this.#parts.refresh().then(() => this.#followMenuInPanel()).catch(() => {});
  }

  // --- views, onboarding, analytics -----------------------------------------------------------------

  /**
   * Shows `view`. `history`: the URL follows (`?view=`), in the entry the page is at, or, with `push`, in a new
   * one when the view changes on a screen that shows one view at a time: there the other view is another screen,
   * which Back leaves (the phone's views form, without scripts, is a GET that adds the entry too).
   * @param {"recipe" | "menu"} view
   * @param {{ history?: boolean, push?: boolean, focus?: boolean }} [options]
   */
  #setView(view, { history = true, push = false, focus = false } = {}) {
    const newScreen = push && this.getAttribute("view") !== view && this.#oneViewAtATime();
    for (const name of VIEWS) this.classList.toggle(`svc-planner--view-${name}`, name === view);
    this.setAttribute("view", view);
    if (history) {
      const url = new URL(window.location.href);
      url.searchParams.set("view", view);
      if (newScreen) {
        // The entry left names its view, which Back comes to (a page first shown without ?view may show either).
        const left = new URL(window.location.href);
        left.searchParams.set("view", view === "menu" ? "recipe" : "menu");
        window.history.replaceState(window.history.state, "", left.href);
        window.history.pushState(window.history.state, "", url.href);
      } else {
        window.history.replaceState(window.history.state, "", url.href);
      }
    }
    if (focus) {
      const heading = /** @type {HTMLElement | null} */ (this.querySelector(
        view === "menu" ? ".svc-planner__menu .svc-planner__panel-title" : "[data-role='panel-title']"));
      if (heading) {
        heading.setAttribute("tabindex", "-1");
        heading.focus();
      }
    }
  }

  /** Whether the layout shows one view at a time (a phone's: planner.css), not the menu beside the suggestions. */
  #oneViewAtATime() {
    const shown = (/** @type {string} */ selector) => (this.querySelector(selector)?.getClientRects().length ?? 0) > 0;
    return !(shown(".svc-planner__menu") && shown(".svc-planner__suggestions"));
  }

  /** Coming from the entry: its guest count applies to the menu, once (the mode leaves the URL). */
  #applyEntryGuests() {
    const url = new URL(window.location.href);
    if (!url.searchParams.has("mode")) return;
    const stored = validGuestCount(services.session.local.get(services.session.key(GUESTS_KEY)));
    url.searchParams.delete("mode");
    window.history.replaceState(window.history.state, "", url.href);
    const current = validGuestCount(this.getAttribute("guests"));
    if (stored === null || stored === current) return;
    this.#run(() => this.#changeGuests(stored));
  }

  #firstVisitOnboarding() {
    const session = services.session;
    const key = session.key(ONBOARDED_KEY);
    if (session.local.get(key)) return;
    const onboarding = this.#onboarding();
    if (!onboarding) return;
    session.local.set(key, "shown");
    onboarding.open({ opener: /** @type {HTMLElement | undefined} */ (this.querySelector("[data-action='help']") ?? undefined) });
  }

  /** @param {HTMLElement} help */
  #openOnboarding(help) {
    this.#onboarding()?.open({ opener: help });
  }

  #onboarding() {
    const help = this.querySelector("[data-action='help']");
    const onboarding = findOnboarding({ id: this.getAttribute("onboarding"), near: this });
    if (onboarding && help) help.setAttribute("aria-controls", onboarding.ensureUniqueId());
    return onboarding;
  }

  #startAnalytics() {
    if (!document.querySelector(`meta[name="${sdk.prefix}-analytics-path"]`)) {
      sdk.analytics.pageview(this.getAttribute("analytics-path") ?? "/planner/current-menu");
    }
    services.track("planner.open", {
      menu_id: this.getAttribute("menu-id") ?? "",
      recipe_count: this.querySelectorAll(".svc-planner__menu-item").length,
      view: this.view,
    });
  }
}

if (!customElements.get(tagName)) {
  customElements.define(tagName, PlannerElement);
}

/**
 * Where the keyboard goes once a suggestion is added and its button disabled: the next suggestion that can still
 * be added (the shopper is choosing several), else the first, else the added one's other button.
 * @param {HTMLElement} planner @param {Element | null} item
 * @returns {HTMLElement | null}
 */
function nextToAdd(planner, item) {
  const adds = /** @type {HTMLElement[]} */ ([...planner.querySelectorAll(".svc-planner__suggestion [data-action='add']:not([disabled])")]);
  const after = adds.find((add) => item && item.compareDocumentPosition(add) & Node.DOCUMENT_POSITION_FOLLOWING);
  return after ?? adds[0] ?? /** @type {HTMLElement | null} */ (item?.querySelector("button:not([disabled])") ?? null);
}
