// Markup from the service, turned into nodes through the page's Trusted Types policy when the page enforces
// Trusted Types (`require-trusted-types-for 'script'` in its Content-Security-Policy).
//
// The components parse HTML the service rendered and escaped (a recipe's details, the planner's recipes, a
// catalog page): under Trusted Types, `innerHTML` and `DOMParser` refuse a plain string. One policy, named
// `svc` (the name a host page allows with `trusted-types svc`: docs/security.md), hands them the service's
// markup; it is created once per page, whatever the number of SDKs (prefixes) on it, and kept on the window
// under a registered symbol, because a second `createPolicy("svc")` is refused unless the page allows duplicates.
// Nothing else reaches it: the strings it passes are the answers of the service's own routes.

/** The policy's name: what a host page lists in its `trusted-types` directive. */
export const POLICY_NAME = "svc";

const POLICY_KEY = Symbol.for("prerender.trustedTypes.policy");

/**
 * @typedef {{ createHTML(input: string): unknown }} HtmlPolicy
 * @typedef {{ createPolicy(name: string, rules: { createHTML(input: string): string }): HtmlPolicy }} PolicyFactory
 */

/** The page's `svc` policy, created on first use; null where the browser has no Trusted Types or the page refuses the name. */
function policy() {
  const holder = /** @type {Record<symbol, HtmlPolicy | null | undefined>} */ (/** @type {unknown} */ (window));
  if (holder[POLICY_KEY] !== undefined) return holder[POLICY_KEY];
  const factory = /** @type {{ trustedTypes?: PolicyFactory }} */ (/** @type {unknown} */ (window)).trustedTypes;
  let created = null;
  if (factory) {
    try {
      created = factory.createPolicy(POLICY_NAME, { createHTML: (input) => input });
    } catch (error) {
      // The page's `trusted-types` directive does not list the name: the markup stays a string, which the
      // browser then refuses where Trusted Types are enforced; the console says what the page needs.
      console.warn(`prerender: add "${POLICY_NAME}" to the page's trusted-types directive (docs/security.md)`, error);
    }
  }
  Object.defineProperty(holder, POLICY_KEY, { value: created, configurable: false, enumerable: false, writable: false });
  return created;
}

/**
 * `html` as the value an HTML sink (`innerHTML`, `DOMParser.parseFromString`) accepts on this page.
 * @param {string} html markup of one of the service's answers
 * @returns {string}
 */
export function trustedHtml(html) {
  const page = policy();
  // A TrustedHTML where the page has a policy; the sinks take it where they take a string (typed as one).
  return page ? /** @type {string} */ (page.createHTML(html)) : html;
}

/**
 * Markup from the service, parsed as a fragment of the page's document. Its `<script>` elements are kept as
 * data (a fragment's `application/json` block) and never run: a template's parser marks them as already started.
 * @param {string} html
 * @returns {DocumentFragment}
 */
export function parsedFragment(html) {
  const template = document.createElement("template");
  template.innerHTML = trustedHtml(html);
  return template.content;
}

/**
 * Markup from the service, parsed inert: its scripts removed, nothing runs until the caller inserts it.
 * @param {string} html
 * @returns {DocumentFragment}
 */
export function inertFragment(html) {
  const content = parsedFragment(html);
  for (const script of content.querySelectorAll("script")) script.remove();
  return content;
}

/**
 * A whole page of the service (a catalog page), parsed as a document that runs nothing.
 * @param {string} html
 * @returns {Document}
 */
export function parsedDocument(html) {
  return new DOMParser().parseFromString(trustedHtml(html), "text/html");
}
