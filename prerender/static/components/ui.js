// Shared DOM helpers of the components: element builder, icons (generated from templates/macros/icons.html),
// money formatting, and the like (heart) button binding used by the card and the recipe details.
import { sdk, services, inertFragment, parsedDocument, parsedFragment, formatText, isolated, isOutcomeUnknown, localProblem, logFailure, numberFormat, translator, validGuestCount, GUESTS_MIN, GUESTS_MAX, isStoppedByHook, writableLocalStorage, jsonText } from "../sdk/svc.js";

// The page's SDK and its services (session, client, notices, analytics, basket, likes, pos, track...), which
// the components import from here with the helpers, and the parsing of the service's markup (sdk/markup.js,
// through the page's Trusted Types policy).
export { sdk, services, inertFragment, parsedDocument, parsedFragment, formatText, isolated, isOutcomeUnknown, localProblem, logFailure, translator, validGuestCount, GUESTS_MIN, GUESTS_MAX, isStoppedByHook, writableLocalStorage, jsonText };

const SVG_NS = "http://www.w3.org/2000/svg";
/** How long a shopper's action goes unanswered before the component says "One moment…" (planner, drawer). */
export const WORKING_AFTER_MS = 1500;

const FOCUSABLE = [
  "a[href]", "button", "input:not([type=hidden])", "select", "textarea", "[tabindex]", "summary",
].join(",");

/**
 * The elements of `root` the Tab key reaches, in document order (the components set no positive `tabindex`):
 * focusable now (`isFocusable`), and not taken out of the order (`tabindex="-1"`: the unselected tabs of a tab
 * list, which the arrow keys reach). A dialog's Tab trap wraps at the ends of this list: one that counted an
 * element Tab skips would let the key out of the dialog from the element before it.
 * @param {ParentNode} root
 * @returns {HTMLElement[]}
 */
export function tabbables(root) {
  return /** @type {HTMLElement[]} */ ([...root.querySelectorAll(FOCUSABLE)])
    .filter((element) => element.tabIndex >= 0 && isFocusable(element));
}

/**
 * Whether `element` can hold the focus now: enabled, outside `[hidden]` and `[inert]`, rendered and visible.
 * @param {Element} element
 */
export function isFocusable(element) {
  if (!(element instanceof HTMLElement) || element.matches(":disabled") || element.closest("[hidden], [inert]")) {
    return false;
  }
  return typeof element.checkVisibility === "function"
    ? element.checkVisibility({ visibilityProperty: true })
    : element.getClientRects().length > 0;
}

/**
 * A modal dialog's Tab key: at either end of `focusables` (the dialog's, in order) focus wraps to the other
 * end; from none of them (the dialog itself, or outside), `fromElsewhere` says where it goes. Without any
 * focusable element, focus stays on `container`.
 * @param {KeyboardEvent} event a Tab keydown
 * @param {HTMLElement[]} focusables
 * @param {HTMLElement | null} container
 * @param {(active: Element | null) => HTMLElement | undefined} fromElsewhere
 */
export function trapTab(event, focusables, container, fromElsewhere) {
  if (focusables.length === 0) {
    event.preventDefault();
    container?.focus();
    return;
  }
  const active = document.activeElement;
  const index = active instanceof HTMLElement ? focusables.indexOf(active) : -1;
  let next;
  if (index === -1) {
    next = fromElsewhere(active);
  } else if (event.shiftKey && index === 0) {
    next = focusables[focusables.length - 1];
  } else if (!event.shiftKey && index === focusables.length - 1) {
    next = focusables[0];
  }
  if (next) {
    event.preventDefault();
    next.focus();
  }
}

// BEGIN ICONS: generated from templates/macros/icons.html by `python -m prerender.rendering.icons`.
/** @type {Record<string, { svg: Record<string, string>, shapes: [string, Record<string, string>][] }>} */
const ICONS = {
  basket: {
    svg: {"viewBox": "0 0 24 24", "width": "24", "height": "24"},
    shapes: [
      ["path", {"fill": "none", "stroke": "currentColor", "stroke-width": "2", "stroke-linecap": "round", "stroke-linejoin": "round", "d": "M3 9h18l-1.6 9.1a2 2 0 0 1-2 1.9H6.6a2 2 0 0 1-2-1.9L3 9Zm4 0 3-5m7 5-3-5M9 13v3m6-3v3"}],
    ],
  },
  heart: {
    svg: {"viewBox": "0 0 24 24", "width": "24", "height": "24"},
    shapes: [
      ["path", {"fill": "var(--svc-heart-fill, none)", "stroke": "currentColor", "stroke-width": "2", "stroke-linejoin": "round", "d": "M12 20.5s-7.5-4.6-9.2-9.3C1.6 7.8 3.8 4.5 7.2 4.5c2 0 3.6 1.1 4.8 2.8 1.2-1.7 2.8-2.8 4.8-2.8 3.4 0 5.6 3.3 4.4 6.7-1.7 4.7-9.2 9.3-9.2 9.3Z"}],
    ],
  },
  close: {
    svg: {"viewBox": "0 0 24 24", "width": "24", "height": "24"},
    shapes: [
      ["path", {"fill": "none", "stroke": "currentColor", "stroke-width": "2", "stroke-linecap": "round", "d": "M6 6l12 12M18 6 6 18"}],
    ],
  },
};
// END ICONS

/**
 * An SVG icon, decorative (aria-hidden), as templates/macros/icons.html renders it: its shapes are the data
 * above, generated from that template (constants of this module, never data from the network).
 * @param {string} name one of ICONS' names
 * @param {string} className
 * @returns {SVGSVGElement}
 */
export function icon(name, className) {
  const { svg: attributes, shapes } = ICONS[name];
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("class", className);
  for (const [attribute, value] of Object.entries(attributes)) svg.setAttribute(attribute, value);
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  for (const [tag, shapeAttributes] of shapes) {
    const shape = document.createElementNS(SVG_NS, tag);
    for (const [attribute, value] of Object.entries(shapeAttributes)) shape.setAttribute(attribute, value);
    svg.append(shape);
  }
  return svg;
}

/**
 * The forms a fragment keeps for pages without scripts in a `<noscript class="svc-ds-form-holder">` (base.css), made
 * where scripts run. There the browser read the holder as text, so that a fragment inside a form of the host page
 * left that form whole: the parser drops a form inside a form, and its end tag closes the page's. The form a module
 * needs is made from its holder's `data-form-*` attributes (id, method, action, role: its submit is the module's,
 * so the holder's hidden fields are not needed), inserted by script, which may nest it, hidden after its holder;
 * its controls name it (`form`). Nothing is parsed. A holder without `data-form-id` (the planner entry's: its
 * module goes there itself) is left, and so is one whose form is in the page already (a holder the browser read
 * as elements, without scripts, or a form made before).
 * @param {ParentNode} root
 */
export function formsFromHolders(root) {
  for (const holder of root.querySelectorAll("noscript.svc-ds-form-holder[data-form-id]")) {
    const { formId = "", formMethod = "get", formAction, formRole } = /** @type {HTMLElement} */ (holder).dataset;
    if (!formId || holder.firstElementChild || document.getElementById(formId)) continue;
    const form = document.createElement("form");
    form.id = formId;
    form.method = formMethod;
    if (formAction) form.setAttribute("action", formAction);
    if (formRole) form.dataset.role = formRole;
    form.hidden = true;
    holder.after(form);
  }
}

/**
 * Keeps the submits of a component's own forms from a form of the host page around it (made by script, ours may be
 * nested in it): the page's submit handlers (a validation library's on a page that is one form) would take our
 * search or budget for the page's own submit and cancel it. Our handlers, on the component, run first.
 * @param {HTMLElement} component @param {AbortSignal} signal
 */
export function keepSubmitsInside(component, signal) {
  component.addEventListener("submit", (event) => {
    if (component.parentElement?.closest("form")) event.stopPropagation();
  }, { signal });
}

/**
 * The forms only scripts use (a dialog's, whose submit a module takes), which a fragment writes as a `<div
 * data-svc-form="<method>">` around their controls: a form written in the fragment would be dropped by the parser
 * inside a form of the host page, and its end tag would close the page's. Each becomes a form made by script (which
 * may nest it), with the div's attributes and children.
 * @param {ParentNode} root
 */
export function scriptedForms(root) {
  for (const holder of root.querySelectorAll("div[data-svc-form]")) {
    const form = document.createElement("form");
    for (const { name, value } of holder.attributes) if (name !== "data-svc-form") form.setAttribute(name, value);
    form.method = holder.getAttribute("data-svc-form") || "get";
    form.append(...holder.childNodes);
    holder.replaceWith(form);
  }
}

/**
 * Creates an element: `h("button", {type: "button", class: "x", dataset: {action: "add"}}, "Add")`.
 * Strings become text nodes (never HTML).
 * @param {string} tag
 * @param {Record<string, any>} [attributes]
 * @param {...(Node | string | null | undefined | false)} children
 * @returns {HTMLElement}
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "dataset") Object.assign(element.dataset, value);
    else if (name === "class") element.className = value;
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    element.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return element;
}

/**
 * Keeps the control the keyboard moves to wholly in view in the rows under `root` that scroll sideways (chips, the
 * carousels, tabs): Chromium scrolls a focused element into view only when none of it shows, so a chip half past
 * its row's edge stayed half hidden (WCAG 2.4.12). Only a focus the page shows (`:focus-visible`): the focus a click
 * or a tap gives must not move the control from under the pointer (a snapping carousel would scroll a whole card,
 * and the click land elsewhere).
 * @param {HTMLElement} root @param {AbortSignal} signal
 */
export function revealFocusInRows(root, signal) {
  root.addEventListener("focusin", (event) => {
    const target = event.target;
    if (!(target instanceof Element) || !target.matches(":focus-visible")) return;
    const look = getComputedStyle(target);
    // The focus ring around the control, which the row would cut as well.
    const ring = look.outlineStyle === "none" ? 0 : px(look.outlineWidth) + Math.max(0, px(look.outlineOffset));
    for (let row = target.parentElement; row && root.contains(row); row = row.parentElement) {
      const style = getComputedStyle(row);
      if (row.scrollWidth <= row.clientWidth || !["auto", "scroll"].includes(style.overflowX)) continue;
      // Where the row shows its items at rest: inside its padding, and at least the ring's width from its edges.
      const box = row.getBoundingClientRect();
      const left = box.left + px(style.borderLeftWidth) + Math.max(ring, px(style.paddingLeft));
      const right = box.right - px(style.borderRightWidth) - Math.max(ring, px(style.paddingRight));
      const item = target.getBoundingClientRect();
      const past = item.left < left ? item.left - left : Math.max(0, item.right - right);
      if (past) row.scrollBy({ left: past, behavior: "instant" });
    }
  }, { signal });
}

/** @param {string} length a computed length ("16px") @returns {number} its pixels, 0 when it is none */
function px(length) {
  return Number.parseFloat(length) || 0;
}

/**
 * A price in the language of the session.
 * @param {number | null | undefined} amount
 * @param {string} [currency]
 * @returns {string}
 */
export function money(amount, currency = "EUR") {
  if (amount === null || amount === undefined || !Number.isFinite(Number(amount))) return "";
  const language = services.session.language.slice(0, 2);
  try {
    return numberFormat(language, { style: "currency", currency }).format(Number(amount));
  } catch {
    return `${Number(amount).toFixed(2)} ${currency}`;
  }
}

/**
 * The price of a basket entry's lines: the sum of their prices (a line the store does not price counts nothing).
 * @param {any[] | undefined} lines @returns {number}
 */
export function linesPrice(lines) {
  return (lines ?? []).reduce((/** @type {number} */ sum, /** @type {any} */ line) => sum + (Number(line?.price) || 0), 0);
}

/**
 * Makes `money` ready before a shopper's click needs it: the page's first currency formatter costs tens of
 * milliseconds on a slow phone (the locale's data is loaded then), so it is built when the page is idle.
 * @param {string} [currency]
 */
export function prepareMoney(currency = "EUR") {
  const build = () => money(0, currency);
  if (typeof window.requestIdleCallback === "function") window.requestIdleCallback(build, { timeout: 2000 });
  else setTimeout(build, 0);
}

/**
 * Makes a server-rendered (or client-made) like button work: reflects the page's like state of the
 * recipe (`aria-pressed`; its name, from `data-like-label`, stays the same in both states) and
 * toggles it on click, optimistic with rollback (the likes service restores the state on error).
 * @param {HTMLButtonElement} button
 * @param {string} recipeId
 * @returns {{ destroy(): void }}
 */
export function bindLikeButton(button, recipeId) {
  const { likes, notices } = services;
  // A card's heart comes unpressed with data-like-state="unknown" (its HTML is the same for every connected
  // user): the page's hearts are filled in by one batched call. Others carry the state the server knew.
  if (button.dataset.likeState === "unknown") likes.load([recipeId]);
  else likes.seed(recipeId, button.getAttribute("aria-pressed") === "true");
  const subscription = likes.likedOf(recipeId).subscribe((/** @type {boolean | undefined} */ liked) => {
    if (liked === undefined) {
      // Not known for the page's shopper (yet, or any more: another shopper came): unpressed until the service says.
      button.dataset.likeState = "unknown";
      button.setAttribute("aria-pressed", "false");
      return;
    }
    delete button.dataset.likeState;
    // One name in both states ("Ajouter Ratatouille aux favoris"), the state said by aria-pressed: a pressed
    // button named "remove" contradicted itself.
    button.setAttribute("aria-pressed", String(liked));
  });
  const onClick = (/** @type {Event} */ event) => {
    event.preventDefault();
    event.stopPropagation(); // the card must not open the drawer for a click on its heart
    if (button.getAttribute("aria-busy") === "true") return;
    button.setAttribute("aria-busy", "true");
    likes.toggle(recipeId)
      .catch((/** @type {unknown} */ error) => notices.error(error, "error.like"))
      .finally(() => button.removeAttribute("aria-busy"));
  };
  button.addEventListener("click", onClick);
  return {
    destroy() {
      subscription.unsubscribe();
      button.removeEventListener("click", onClick);
    },
  };
}

/**
 * A stepper's button at its bound, or not: aria-disabled rather than disabled (the server's `disabled` taken off),
 * so that the button keeps the keyboard focus there (a press at the bound changes nothing, as in the drawer's
 * stepper: components/recipe-details/guests.js); its component's clamped count makes the press do nothing.
 * @param {Element | null} button @param {boolean} reached
 */
export function atBound(button, reached) {
  if (!button) return;
  button.removeAttribute("disabled");
  button.setAttribute("aria-disabled", String(reached));
}
