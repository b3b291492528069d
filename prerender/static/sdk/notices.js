// Short, non-blocking messages for the user (an action failed, a change was undone, the shopper's credential
// was refused: reload the page or sign in again). The open drawer shows them; when no drawer is open the toaster
// does (visible at the top of the viewport, and announced: sdk/toaster.js), as long as the drawer shows its own:
// a control that only goes back to its state ("add to my menu", a preview's "remove") says nothing to a sighted
// shopper.
import { translator } from "./texts.js";
import { ApiError, logFailure } from "./http.js";
import { isStoppedByHook } from "./hooks.js";

/**
 * @typedef {object} Notice
 * @property {"info" | "error"} kind
 * @property {string} text
 * @property {import("./http.js").Problem} [problem]
 */

/** How long a message stays in the toaster: as long as in the drawer (components/drawer.js). */
const SHOWN_MS = 6000;

export class Notices {
  /** @type {((notice: Notice) => boolean) | null} */
  #presenter = null;
  #session;
  #toaster;

  /**
   * @param {import("./session.js").Session} session
   * @param {{ toaster: import("./toaster.js").Toaster }} options where a message shows without a drawer
   */
  constructor(session, { toaster }) {
    this.#session = session;
    this.#toaster = toaster;
  }

  /**
   * A text of the SDK in the session's language.
   * @param {string} key
   * @param {Record<string, string | number>} [params]
   */
  t(key, params) {
    return translator(this.#session.language)(key, params);
  }

  /**
   * The open drawer shows the messages while it is open (returns false to decline one).
   * @param {((notice: Notice) => boolean) | null} presenter
   */
  setPresenter(presenter) {
    this.#presenter = presenter;
  }

  /**
   * Shows `text` in the open dialog (the drawer) when there is one; false when none took it.
   * @param {string} text @param {"info" | "error"} [kind]
   */
  presentInDialog(text, kind = "info") {
    return this.#presenter?.({ kind, text }) ?? false;
  }

  /** @param {string} text  @param {"info" | "error"} [kind] */
  show(text, kind = "info") {
    this.#emit({ kind, text });
  }

  /**
   * Tells the user that an action failed. An ApiError is an expected failure (the service answered a
   * problem, the network is down); anything else is a bug of ours and is logged.
   * @param {unknown} error
   * @param {string} [fallbackKey] text key when the problem has no more specific text
   */
  error(error, fallbackKey = "error.generic") {
    if (error instanceof DOMException && error.name === "AbortError") return;
    // The page's hook callback stopped the action: the page is showing its own way on (login, store picker).
    if (isStoppedByHook(error)) return;
    let key = fallbackKey;
    if (error instanceof ApiError) {
      key = textKeyOf(error) ?? fallbackKey;
      logFailure(this.#session.prefix, `${error.problem.title} (${error.status})`, error);
    } else {
      console.error(`[${this.#session.prefix}]`, error);
    }
    this.#emit({ kind: "error", text: this.t(key), problem: error instanceof ApiError ? error.problem : undefined });
  }

  /** @param {Notice} notice */
  #emit(notice) {
    if (this.#presenter?.(notice)) return;
    this.#toaster.show(notice.text, SHOWN_MS);
  }
}

/**
 * The text key of a problem that has its own message, else null.
 * - a 401: the shopper's credential is missing, expired or invalid: reload the page or sign in again;
 * - `#not-connected`: a like without a logged-in user's credential: sign in;
 * - `#no-store`, and network failures (status 0);
 * - `#not-set-up` (the page never called `supplier.setup`): the action's own text, not a network failure.
 * @param {ApiError} error
 * @returns {string | null}
 */
function textKeyOf(error) {
  const type = String(error.problem.type ?? "");
  if (error.status === 401) return "error.credential";
  if (type.endsWith("#no-store")) return "error.no-store";
  if (type.endsWith("#not-connected")) return "error.sign-in";
  if (type.endsWith("#no-authless-credential") || type.endsWith("#not-set-up")) return null;
  if (error.status === 0) return "error.network";
  return null;
}
