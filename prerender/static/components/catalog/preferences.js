// The catalog's preferences panel (templates/catalog/preferences.html, `dialog.svc-preferences`): a modal dialog
// holding the page's scroll lock while open; saving (PUT /{v}/preferences) or clearing (DELETE) keeps the SDK's
// copy (`_<prefix>/supplier-<id>/preferences`) and reloads the customer's page, whose lists then follow the new preferences;
// its ingredient filter; and, with `features.enableUserPreferences()`, the panel opening by itself once for a
// shopper without preferences. A part of components/catalog.js (bundled into it in the release tree).
import { sdk, services, logFailure, jsonText } from "../ui.js";

/** The SDK's copy of the shopper's preferences, under the session's prefix. */
const PREFERENCES_KEY = "preferences";
/** The saved (or cleared) preferences' message, kept across the reload that follows (sessionStorage, this tab). */
const SAVED_KEY = "preferences-saved";

/** A text for comparisons: lower case, without accents. @param {string} text */
function folded(text) {
  return text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase().trim();
}

export class PreferencesPanel {
  #root;
  #text;
  #apiVersion;
  /** Whether the open dialog holds the page's scroll lock. */
  #holdsScroll = false;

  /**
   * @param {HTMLElement} root the catalog page, which holds the panel's button and dialog
   * @param {object} options
   * @param {(key: string, params?: Record<string, string | number>) => string} options.text the page's texts
   * @param {"v1" | "v2"} options.apiVersion the version of the page's routes
   */
  constructor(root, { text, apiVersion }) {
    this.#root = root;
    this.#text = text;
    this.#apiVersion = apiVersion;
  }

  /**
   * `features.enableUserPreferences()`: a shopper without preferences is asked for theirs once, by the panel
   * opening by itself on the first catalog page that has it (`_<prefix>/supplier-<id>/preferences-asked` remembers it).
   * @returns {{ unsubscribe(): void }} to end when the page goes
   */
  askOnce() {
    const { customization, session } = services;
    return customization.userPreferences$.subscribe((enabled) => {
      const button = this.#root.querySelector(".svc-catalog__preferences-button");
      if (!enabled || !(button instanceof HTMLElement) || button.closest("[hidden]")) return;
      const asked = session.supplierKey("preferences-asked");
      const hasPreferences = Boolean(button.querySelector(".svc-catalog__preferences-count"))
        || Boolean(session.local.get(session.supplierKey(PREFERENCES_KEY)));
      if (hasPreferences || session.local.get(asked)) return;
      session.local.set(asked, new Date().toISOString());
      this.open(button);
    });
  }

  /**
   * The page the save reloaded says so: the message kept across the reload is announced (the toaster) and the focus
   * is given back to the panel's button, where it was before the dialog (the reload had put it at the page's top,
   * and the message written before it was never heard).
   */
  sayWhatWasSaved() {
    const { session } = services;
    const key = session.key(SAVED_KEY);
    const text = session.perTab.get(key);
    if (!text) return;
    session.perTab.remove(key);
    services.notices.show(text);
    const button = this.#root.querySelector(".svc-catalog__preferences-button");
    if (button instanceof HTMLElement && !button.closest("[hidden]")) button.focus();
  }

  /** Drops the SDK's copy of the shopper's preferences (a page with `personalization="off"`). */
  forgetSaved() {
    services.session.local.remove(services.session.supplierKey(PREFERENCES_KEY));
  }

  /** The page's scroll lock, given back once (the dialog closed, or the page removed us while it was open). */
  releaseScroll() {
    if (!this.#holdsScroll) return;
    this.#holdsScroll = false;
    services.customization.scrollLock.release();
  }

  /** Opens the dialog; closing it gives the focus back to `opener`. @param {HTMLElement} opener */
  open(opener) {
    const dialog = this.#root.querySelector("dialog.svc-preferences");
    // A browser below the support floor (docs/styles.md, "Browsers") without <dialog> (Safari before 15.4): nothing
    // happens, rather than a button that says it opened something (its name is asked before the class, which such a
    // browser does not have).
    if (!dialog || !("showModal" in dialog) || !(dialog instanceof HTMLDialogElement)) return;
    if (dialog.open) return;
    services.track("preferences.display", {});
    opener.setAttribute("aria-expanded", "true");
    dialog.addEventListener("close", () => {
      opener.setAttribute("aria-expanded", "false");
      this.releaseScroll();
      opener.focus();
    }, { once: true });
    dialog.showModal();
    services.customization.scrollLock.acquire();
    this.#holdsScroll = true;
  }

  /** The panel's form submitted: the preferences saved. Other forms are left alone. @param {SubmitEvent} event */
  onSubmit(event) {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || form.dataset.role !== "preferences-form") return;
    event.preventDefault();
    void this.#save(form);
  }

  /** The panel's "reset": the preferences cleared. @param {HTMLButtonElement} button */
  async clear(button) {
    const form = button.form;
    if (!form) return;
    await this.#change(form, "DELETE", undefined);
  }

  /** The panel's ingredient filter. Other inputs are left alone. @param {Event} event */
  onInput(event) {
    const input = event.target;
    if (!(input instanceof HTMLInputElement) || input.dataset.role !== "ingredient-filter") return;
    const wanted = folded(input.value);
    const group = input.closest("fieldset");
    const list = group?.querySelector('[data-role="ingredients"]');
    let shown = 0;
    for (const option of list?.querySelectorAll("label") ?? []) {
      const hidden = wanted !== "" && !folded(option.textContent ?? "").includes(wanted);
      /** @type {HTMLElement} */ (option).hidden = hidden;
      if (!hidden) shown += 1;
    }
    // How many the filter leaves, said and shown ("Aucun ingrédient" rather than an empty box); nothing unfiltered.
    const count = group?.querySelector('[data-role="ingredient-count"]');
    if (count) count.textContent = wanted === "" ? "" : this.#text("CATALOG_PREFERENCES.INGREDIENTS_FOUND", { count: shown });
  }

  /** @param {HTMLFormElement} form */
  async #save(form) {
    const data = new FormData(form);
    const guests = Number.parseInt(String(data.get("guests") ?? ""), 10);
    const preferences = {
      diets: data.getAll("diets").map(String),
      avoided_ingredients: data.getAll("avoided_ingredients").map(String),
      missing_equipment: data.getAll("missing_equipment").map(String),
      guests: Number.isInteger(guests) ? guests : null,
    };
    await this.#change(form, "PUT", preferences);
  }

  /**
   * Saves or clears, keeps the SDK's copy, then reloads the page: the customer's server renders the lists
   * again with the new preferences.
   * @param {HTMLFormElement} form @param {"PUT" | "DELETE"} method @param {unknown} json
   */
  async #change(form, method, json) {
    const status = form.querySelector('[data-role="status"]');
    const buttons = [...form.querySelectorAll("button")];
    for (const button of buttons) button.disabled = true;
    try {
      const saved = await services.client.request(method, "/preferences", { json, write: true, version: this.#apiVersion });
      const session = services.session;
      if (method === "PUT") session.local.set(session.supplierKey(PREFERENCES_KEY), jsonText(saved));
      else session.local.remove(session.supplierKey(PREFERENCES_KEY));
      services.track("preferences.saved", { cleared: method === "DELETE" });
      const text = this.#text("CATALOG_PREFERENCES.SAVED");
      if (status) status.textContent = text;
      session.perTab.set(session.key(SAVED_KEY), text); // said by the reloaded page (none where storage is unusable)
      this.#root.dispatchEvent(new CustomEvent("preferencesChanged", { detail: saved ?? null, bubbles: true }));
      await services.analytics.flush();
      window.location.reload();
    } catch (error) {
      logFailure(sdk.prefix, "catalog: the preferences could not be saved", error);
      if (status) status.textContent = this.#text("CATALOG_PREFERENCES.FAILED");
      status?.classList.add("svc-preferences__status--error");
      for (const button of buttons) button.disabled = false;
    }
  }
}
