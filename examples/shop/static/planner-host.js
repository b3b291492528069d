// Demo Market: what the planner's current-menu page asks of the shop (svc.planner, docs/sdk.md). "Add the menu to
// the cart" needs a logged-in user and a store; when one is missing, the page asks us with the address to come
// back to (`resumeUrl`). We bring forward the header's login form, its `next` pointing back at that page (the
// login joins the visitor's menu and basket to the user's, then lands there: views.py), or the store picker,
// which comes back to the page once a store is chosen. Loaded on every page.
import { svc } from "./svc-setup.js";

/** Marks the form the planner asked for (shop.css), until the focus leaves it. */
const REQUESTED = "data-requested";

/** The path and query of `url` when it is an address of this site, else null (a form's `next` is local). */
export function localPath(url) {
  let target;
  try {
    target = new URL(url, window.location.href);
  } catch {
    return null;
  }
  if (target.origin !== window.location.origin) return null;
  const path = `${target.pathname}${target.search}`;
  return path.startsWith("/") && !path.startsWith("//") ? path : null;
}

/** Points the form's `next` at the page to come back to (this page when `resumeUrl` is not of this site). */
function comeBackTo(form, resumeUrl) {
  const next = form.querySelector("input[name='next']");
  if (next) next.value = localPath(resumeUrl) ?? localPath(window.location.href) ?? next.value;
}

/** Focuses the form's control and marks the form (the header is sticky: it is in view). */
function bringForward(form, control) {
  form.setAttribute(REQUESTED, "");
  form.addEventListener("focusout", () => form.removeAttribute(REQUESTED), { once: true });
  control.focus();
}

if (svc?.planner) {
  svc.planner.defineLoginRequired(({ resumeUrl }) => {
    const form = document.querySelector("[data-login-form]");
    const button = form?.querySelector("button[type='submit']");
    if (!form || !button) return;
    comeBackTo(form, resumeUrl);
    bringForward(form, button);
  });
  svc.planner.defineStoreRequired(({ resumeUrl }) => {
    const form = document.querySelector("[data-store-form]");
    const select = form?.querySelector("select[name='store_id']");
    if (!form || !select) return;
    comeBackTo(form, resumeUrl);
    bringForward(form, select);
  });
}
