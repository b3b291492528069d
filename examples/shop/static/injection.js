// Demo Market, "Cartes à la demande": a card fragment fetched from the shop's server (which asks prerender
// with the visitor's headers) and inserted with innerHTML. Its script tags stay inert; the page already
// loads the same module scripts once, so the card upgrades itself.
import "./svc-setup.js";

const root = document.querySelector("[data-injection]");
const form = root?.querySelector("[data-injection-form]");
const slot = root?.querySelector("[data-injection-slot]");

function message(text) {
  const p = document.createElement("p");
  p.className = "injection__placeholder";
  p.textContent = text;
  slot.replaceChildren(p);
}

form?.addEventListener("submit", async (event) => {
  event.preventDefault();
  const button = form.querySelector("[data-injection-load]");
  const url = new URL(root.getAttribute("data-card-url"), location.href);
  url.searchParams.set("recipe_id", new FormData(form).get("recipe_id"));
  button.disabled = true;
  try {
    const response = await fetch(url, { credentials: "same-origin", cache: "no-store" });
    if (!response.ok) throw new Error(`the card answered ${response.status}`);
    const html = (await response.text()).trim();
    if (html) slot.innerHTML = html;
    else message(root.getAttribute("data-none-text"));
  } catch (error) {
    console.warn(error);
    message(root.getAttribute("data-failed-text"));
  } finally {
    button.disabled = false;
  }
});
