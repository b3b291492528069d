// Demo Market, "Idées": the shop's own recipe cards emit recipe.show like prerender's cards
// (attachRecipeCardShowTracking, disconnected when a card leaves the page), open the recipe drawer, and a
// panel lists the analytics events as the SDK sends them (eventSent$).
import { svc } from "./svc-setup.js";

const list = document.querySelector("[data-events]");
const time = new Intl.DateTimeFormat(document.documentElement.lang || "fr", { timeStyle: "medium" });

function showEvent({ name, path, props }) {
  if (!list) return;
  const item = document.createElement("li");
  item.className = "events-panel__event";
  item.dataset.eventName = name;
  if (props?.recipe_id !== undefined) item.dataset.recipeId = String(props.recipe_id);
  const label = document.createElement("strong");
  label.textContent = name;
  const detail = document.createElement("span");
  const recipe = props?.recipe_id !== undefined ? ` · recette ${props.recipe_id}` : "";
  detail.textContent = `${path}${recipe} · ${time.format(new Date())}`;
  item.append(label, detail);
  list.prepend(item);
}

if (svc) {
  svc.analytics.eventSent$.subscribe(showEvent);

  /** Card root -> its tracking handle. */
  const trackings = new Map();
  for (const card of document.querySelectorAll("[data-recipe-card]")) {
    trackings.set(card, svc.analytics.attachRecipeCardShowTracking({ element: card, recipeId: card.dataset.recipeId }));
  }
  // A card removed from the page (a filter, a virtual list) stops being tracked.
  new MutationObserver(() => {
    for (const [card, tracking] of trackings) {
      if (!card.isConnected) {
        tracking.disconnect();
        trackings.delete(card);
      }
    }
  }).observe(document.body, { childList: true, subtree: true });

  document.addEventListener("click", (event) => {
    const button = event.target instanceof Element ? event.target.closest("[data-open-recipe]") : null;
    if (!button) return;
    svc.recipes.openDetails(button.getAttribute("data-open-recipe"), undefined, { opener: button })
      .catch(() => {}); // the drawer shows the error and a "try again"
  });
} else {
  for (const button of document.querySelectorAll("[data-open-recipe]")) button.disabled = true;
}
