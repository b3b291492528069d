// Demo Market, shelf: "Ajouter" puts one of the product in the shop's cart without leaving the page, then reports
// the cart to the basket (retailerBasketChanged), as the cart page does. The tile's form (POST /cart/add) is the
// same action without JavaScript. A button without a store is disabled server-side, with its reason.
import { cart, reportCart } from "./svc-setup.js";

const status = document.querySelector("[data-add-status]");
const SHOWN_MS = 5000; // the message then goes (a newer one replaces it at once)
/** @type {ReturnType<typeof setTimeout> | undefined} */
let clearing;

function tell(text) {
  if (!status) return;
  status.textContent = text;
  clearTimeout(clearing);
  clearing = setTimeout(() => { status.textContent = ""; }, SHOWN_MS);
}

document.addEventListener("submit", async (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-add-form")) return;
  event.preventDefault();
  const button = form.querySelector("[data-add-product]");
  if (!(button instanceof HTMLButtonElement) || button.disabled || button.getAttribute("aria-busy") === "true") return;
  const productId = String(new FormData(form).get("product_id") ?? "");
  const name = form.closest("[data-product-id]")?.querySelector(".product__name")?.textContent?.trim() ?? productId;
  button.setAttribute("aria-busy", "true");
  try {
    const lines = await cart.apply([{ id: productId, quantity: 1 }]);
    const quantity = lines.find((line) => String(line.id) === productId)?.quantity ?? 1;
    button.setAttribute("data-in-cart", String(quantity));
    tell((status?.getAttribute("data-added-text") ?? "{name}").replace("{name}", name));
    void reportCart(lines); // never rejects; the button is ready for one more meanwhile
  } catch (error) {
    console.error("the product could not be added to the cart", error);
    tell(status?.getAttribute("data-failed-text") ?? "");
  } finally {
    button.removeAttribute("aria-busy");
  }
});
