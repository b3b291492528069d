// The drawer's basket preview (components/drawer.js, `openPreview`): what the page needs before the preview
// fragment shows (the catalog module, whose <svc-catalog> root the fragment is, and its sheets), and the fragment
// made ready for the drawer (ids suffixed, no pageview, its heading taken as the drawer's title).
// This part is bundled into components/drawer.js in the release tree (tools/build_static.mjs), where its own
// `import.meta.url` would be the drawer's: the sheets' folder comes from the drawer, which is at the same place in
// both trees.
import { inertFragment, localProblem, sdk } from "../ui.js";

// The sheets the basket preview needs besides the drawer's (docs/styles.md, "basket-preview.css"): linked by the
// drawer when the page has not linked them itself (a page of cards only links the recipe card's).
const PREVIEW_SHEETS = ["catalog", "my-space", "basket-preview"];
const SHEET_WAIT_MS = 3000;

/** @type {Promise<unknown> | null} */
let previewLoading = null;

/**
 * What the basket preview needs on the page: the catalog module (its root element) and its sheets.
 * @param {URL} sheets the folder of this build's sheets (`css/`)
 */
export function previewReady(sheets) {
  previewLoading ??= Promise.all([
    import("../catalog.js"),
    ...PREVIEW_SHEETS.map((name) => linkSheet(name, sheets)),
  ]).catch((error) => {
    previewLoading = null; // tried again next time
    // The module did not load (prerender down): the SDK's problem, as a failed drawer module is
    // (sdk/drawer-loading.js), not the browser's TypeError.
    throw localProblem("drawer-unavailable", "The basket preview cannot open for now", `Its module did not load: ${error}`);
  });
  return previewLoading;
}

/**
 * The preview fragment (prerender's own, escaped server-side) ready for the drawer: its <svc-catalog> root
 * upgrades once inserted (components/catalog.js is loaded) and does the rest: remove buttons, "see the recipe"
 * (the details then replace the preview in the drawer), following the basket. Its module scripts would not run
 * in the drawer and are left out; its ids get the suffix (the page may show the same fragment); opening it is no
 * pageview. The fragment's heading becomes the drawer's own (the dialog's name), said once: the fragment's is
 * hidden when it has a text.
 * @param {string} html @param {string} idSuffix
 * @returns {{ content: DocumentFragment, title: string }}
 */
export function previewFragment(html, idSuffix) {
  const content = inertFragment(html);
  const root = content.querySelector(`${sdk.prefix}-catalog`);
  root?.removeAttribute("analytics-path");
  suffixIds(content, idSuffix);
  const heading = root?.querySelector(".svc-basket-preview__title");
  const title = heading?.textContent?.trim() ?? "";
  heading?.toggleAttribute("hidden", Boolean(title));
  return { content, title };
}

/**
 * Links a sheet of this build unless the page has one of that name (any build); resolves once it applies (or
 * failed, or after a while: the preview shows all the same).
 * @param {string} name @param {URL} sheets
 * @returns {Promise<void>}
 */
function linkSheet(name, sheets) {
  const file = `/css/${name}.css`;
  const linked = [...document.querySelectorAll("link[rel~='stylesheet']")]
    .some((link) => link instanceof HTMLLinkElement && new URL(link.href, document.baseURI).pathname.endsWith(file));
  if (linked) return Promise.resolve();
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = new URL(`${name}.css`, sheets).href;
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, SHEET_WAIT_MS);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    link.addEventListener("load", done, { once: true });
    link.addEventListener("error", done, { once: true });
    document.head.append(link);
  });
}

/**
 * Gives every id of a fragment a suffix, and the references to them (labels, ARIA) the same.
 * @param {DocumentFragment} fragment @param {string} suffix
 */
function suffixIds(fragment, suffix) {
  const ids = new Set([...fragment.querySelectorAll("[id]")].map((element) => element.id));
  if (ids.size === 0) return;
  for (const element of fragment.querySelectorAll("[id]")) element.id += suffix;
  for (const name of ["for", "aria-labelledby", "aria-describedby", "aria-controls"]) {
    for (const element of fragment.querySelectorAll(`[${name}]`)) {
      const value = (element.getAttribute(name) ?? "").split(/\s+/).map((id) => (ids.has(id) ? `${id}${suffix}` : id));
      element.setAttribute(name, value.join(" "));
    }
  }
}
