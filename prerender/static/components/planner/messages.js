// What the planner page says (components/planner.js; bundled into it in the release tree): its texts
// (`data-texts`, filled in by sdk/texts.js), the polite status that follows the budget's overrun, the visible
// message its alert region says, and "One moment…" while a shopper's action is slow. The regions are those of
// templates/planner/current_menu.html: `[data-role='status']`, `[data-role='message']`, `[data-role='alert']`.
import { services, formatText, WORKING_AFTER_MS } from "../ui.js";

// How long a message that is not persistent stays up.
const MESSAGE_MS = 8000;

export class PlannerMessages {
  #root;
  /** @type {Record<string, string>} */ #texts = {};
  /** The "over budget by" words last heard (templates/planner/budget.html): announced again when they change. */
  #overBudget = "";
  /** @type {number | undefined} */ #timer;

  /** @param {HTMLElement} root the `<svc-planner>` element */
  constructor(root) {
    this.#root = root;
  }

  /** Reads the page's texts and the budget's overrun as rendered (the element joined the page). */
  start() {
    try {
      this.#texts = JSON.parse(this.#root.dataset.texts ?? "{}");
    } catch {
      this.#texts = {};
    }
    this.#overBudget = this.#overBudgetText();
  }

  /** The message's timer stops (the element left the page). */
  stop() {
    clearTimeout(this.#timer);
  }

  /**
   * One of the page's texts, its parameters and plurals filled in (sdk/texts.js).
   * @param {string} key @param {Record<string, string | number>} [params]
   */
  text(key, params = {}) {
    return formatText(this.#texts[key] ?? key, params, services.session.language);
  }

  /**
   * A polite announcement, followed by the budget's overrun when the action changed it (not by colour alone),
   * or by "within budget" when the action brought the total back under it.
   * @param {string} text
   */
  status(text) {
    const status = this.#root.querySelector("[data-role='status']");
    const over = this.#overBudgetText();
    const gauge = this.#root.querySelector("[data-role='budget-gauge']") !== null;
    const budget = over !== "" && over !== this.#overBudget ? over
      : over === "" && this.#overBudget !== "" && gauge ? this.text("BUDGET_WITHIN") : "";
    this.#overBudget = over;
    if (status) status.textContent = `${text} ${budget}`.trim();
  }

  /**
   * The page's text `key` in its status (`status`).
   * @param {string} key @param {Record<string, string | number>} [params]
   */
  say(key, params = {}) {
    this.status(this.text(key, params));
  }

  /**
   * The page's text `key` as a visible message (`message`).
   * @param {string} key @param {{ alert?: boolean, persistent?: boolean }} [options]
   */
  show(key, options = {}) {
    this.message(this.text(key), options);
  }

  /**
   * A visible message, said by the page's alert region unless `alert` is false (its caller's status says it),
   * hidden after a while unless `persistent`.
   * @param {string} text @param {{ alert?: boolean, persistent?: boolean }} [options]
   */
  message(text, { alert = true, persistent = false } = {}) {
    const message = /** @type {HTMLElement | null} */ (this.#root.querySelector("[data-role='message']"));
    const region = /** @type {HTMLElement | null} */ (this.#root.querySelector("[data-role='alert']"));
    if (!message) return;
    message.textContent = text;
    message.hidden = false;
    // Said by the alert region, which was there and empty: emptied, then filled a frame later, so that the same
    // failure again is said again. A message that is no alert is said by the caller's status.
    if (region) {
      region.textContent = "";
      if (alert) requestAnimationFrame(() => { if (message.textContent === text) region.textContent = text; });
    }
    clearTimeout(this.#timer);
    if (persistent) return;
    this.#timer = window.setTimeout(() => {
      message.hidden = true;
      if (region?.textContent === text) region.textContent = "";
    }, MESSAGE_MS);
  }

  /**
   * `action`, with "One moment…" in the page's status once it has taken WORKING_AFTER_MS, replaced by what the
   * action says when done (else taken away): a slow service was seconds of silence after a press.
   * @template T @param {() => Promise<T> | T} action @returns {Promise<T>}
   */
  async saidIfSlow(action) {
    const working = this.text("WORKING");
    const status = () => this.#root.querySelector("[data-role='status']");
    const timer = setTimeout(() => {
      const region = status();
      if (region) region.textContent = working;
    }, WORKING_AFTER_MS);
    try {
      return await action();
    } finally {
      clearTimeout(timer);
      const region = status();
      if (region?.textContent === working) region.textContent = "";
    }
  }

  /** The budget's "over by" words as drawn, "" within the budget. */
  #overBudgetText() {
    return this.#root.querySelector("[data-role='budget-over']")?.textContent?.trim() ?? "";
  }
}
