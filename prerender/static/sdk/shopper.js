// `<prefix>-shopper`: how the page's server hands the browser its shopper's credential (docs/sdk.md). A
// private fragment (a personalized card, each card of /recipe-card/multiple) and the v2 bootstrap that the
// customer's server asked for with its supplier token end with
//
//   <svc-shopper hidden credential="<token>" kind="user|authless" supplier-id="<id>" shopper-id="<id>"
//     expires-at="<epoch s>"></svc-shopper>
//
// with `profiling="false"` when the server's request said the shopper refused profiling (the SDK's requests then
// say so too, from the page's start).
// Whenever one is connected (parsed with the page, or inserted later with innerHTML / append), the session
// takes its credential: the most recently connected valid one wins. The element stays hidden and inert.

/**
 * Defines `<prefix>-shopper` for this SDK's session (once per page: a second build finds it defined).
 * @param {{ prefix: string, session: import("./session.js").Session }} options
 */
export function defineShopperElement({ prefix, session }) {
  const tagName = `${prefix}-shopper`;
  if (customElements.get(tagName)) {
    // Not ours (the SDK is created once per page): something else took the name, so no credential reaches us.
    console.warn(`[${prefix}] <${tagName}> is already defined by another script: the SDK gets no shopper credential`);
    return;
  }

  class ShopperElement extends HTMLElement {
    connectedCallback() {
      // Nothing to see nor to reach: hidden even if the server's `hidden` was dropped, out of the a11y tree.
      // (Attributes, not properties: the checker would take `this.hidden = ...` for a field of this class.)
      if (!this.hasAttribute("hidden")) this.setAttribute("hidden", "");
      if (!this.hasAttribute("inert")) this.setAttribute("inert", "");
      session.receiveCredential({
        token: this.getAttribute("credential"),
        kind: this.getAttribute("kind"),
        id: this.getAttribute("shopper-id"),
        expiresAt: this.getAttribute("expires-at"),
        supplier: this.getAttribute("supplier-id"),
        profiling: this.getAttribute("profiling"),
      });
    }
  }

  customElements.define(tagName, ShopperElement);
}
