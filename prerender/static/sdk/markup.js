// Markup from the service, turned into nodes through a Trusted Types policy when the page enforces Trusted Types
// (`require-trusted-types-for 'script'` in its Content-Security-Policy).
//
// The components parse HTML the service rendered and escaped (a recipe's details, the planner's recipes, a
// catalog page): under Trusted Types, `innerHTML` and `DOMParser` refuse a plain string. A policy named `svc`
// hands them the service's markup. It stays inside this module, never on the window: a script of the page
// finds no pass-through to turn its own strings into trusted HTML, only the parsing functions below, which the
// components call with the answers of the service's own routes. Each
// configuration of the SDK on a page (docs/sdk.md, section 1) is a module of its own with a policy of its own,
// all named `svc`: a page allows them with `trusted-types svc 'allow-duplicates'` (docs/security.md).

/** The policy's name: what a host page lists in its `trusted-types` directive. */
const POLICY_NAME = "svc";

/**
 * @typedef {{ createHTML(input: string): unknown }} HtmlPolicy
 * @typedef {{ createPolicy(name: string, rules: { createHTML(input: string): string }): HtmlPolicy }} PolicyFactory
 */

/** This module's policy: undefined until first used, null where the browser has no Trusted Types or the page refuses it. */
/** @type {HtmlPolicy | null | undefined} */
let ownPolicy;

function policy() {
  if (ownPolicy !== undefined) return ownPolicy;
  ownPolicy = null;
  const factory = /** @type {{ trustedTypes?: PolicyFactory }} */ (/** @type {unknown} */ (globalThis)).trustedTypes;
  if (!factory) return ownPolicy;
  try {
    ownPolicy = factory.createPolicy(POLICY_NAME, { createHTML: (input) => input });
  } catch (error) {
    // The page's `trusted-types` directive does not allow the name (or a second policy of it): the markup stays a
    // string, which the browser then refuses where Trusted Types are enforced; the console says what the page needs.
    console.warn(`prerender: allow "${POLICY_NAME}" in the page's trusted-types directive, with 'allow-duplicates' (docs/security.md)`, error);
  }
  return ownPolicy;
}

/**
 * `html` as the value an HTML sink (`innerHTML`, `DOMParser.parseFromString`) accepts on this page.
 * @param {string} html markup of one of the service's answers
 * @returns {string}
 */
function trustedHtml(html) {
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
