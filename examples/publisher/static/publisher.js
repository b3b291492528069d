// Le Magazine Cuisine: the recipe page's servings stepper, and prerender's browser SDK (window.svc, loaded by
// the add-to-cart button's fragment) set up with the language, session and authless identity the blog's server
// used for the fragment (read from <script type="application/json" id="publisher-context">).
//
// - The stepper ("Pour [−] 4 [+] personnes") sets the `guests` attribute of prerender's button
//   (<svc-no-supplier-add-to-cart-cta>), which follows it, and follows the button in turn: the drawer has its
//   own stepper, which changes that attribute. The ingredient list follows the count.
// - The button's `inBasketStatus` event (detail: boolean) shows a status line under the stepper.
// - The button's `picture-url` is the blog's own picture of the dish (`data-picture` of the shopping box): the
//   drawer shows it rather than the retailer's.
// - Without the button (a recipe the retailer does not know, prerender down) the stepper still scales the
//   ingredients; without JavaScript the servings are plain text.
// Nothing here may break the page: every part catches its own errors.

const CTA = "svc-no-supplier-add-to-cart-cta";
const IN_BASKET = "Ingrédients dans votre panier";

function readContext() {
  try {
    return JSON.parse(document.getElementById("publisher-context")?.textContent || "{}") ?? {};
  } catch (error) {
    console.warn("unreadable publisher context", error);
    return {};
  }
}

export const context = readContext();

/** Sets up prerender's SDK when the page has it. Never throws. */
function setUpSdk() {
  const svc = window.svc;
  if (!svc) return;
  try {
    // The session of the blog's fragments (cookie lmc_session) is the SDK's session too. The supplier token
    // stays on the blog's server: the SDK acts with the credential the fragment carries.
    const options = { language: context.language, sessionId: context.sessionId };
    if (typeof svc.supplier?.setup === "function") svc.supplier.setup(options);
    else svc.supplier.setupWithToken("", options); // an SDK without setup(): its setupWithToken ignores the token
    // The reader the page was made for (always logged out): the SDK checks it against its credential's.
    // No store to load: the publisher has none, the button asks the reader to pick one of the retailer's.
    if (context.authlessId) {
      Promise.resolve(svc.user.loadWithAuthlessId(context.authlessId))
        .catch((error) => console.warn("the SDK could not load the reader", error));
    }
  } catch (error) {
    console.warn("the SDK setup failed; the recipe page goes on without it", error);
  }
}

/** A quantity as the French write it: 3, 1,5. */
function quantityText(value) {
  const rounded = Math.round(value * 100) / 100;
  return String(rounded).replace(".", ",");
}

/** A scaled quantity rounded to what a cook can measure. */
function measurable(value, unit) {
  if (unit === "g" || unit === "ml") {
    return value >= 100 ? Math.round(value / 10) * 10 : Math.max(5, Math.round(value / 5) * 5);
  }
  if (unit === "cl") return Math.max(1, Math.round(value));
  if (unit) return Math.max(0.5, Math.round(value * 2) / 2); // spoons
  return Math.max(1, Math.round(value)); // eggs, cloves, rolls
}

/** Rewrites the ingredient lines with quantities for `guests` (the recipe's own for `base`). */
function scaleIngredients(guests, base) {
  for (const line of document.querySelectorAll("[data-quantity]")) {
    const own = Number(line.getAttribute("data-quantity"));
    const unit = line.getAttribute("data-unit") || "";
    if (!Number.isFinite(own)) continue;
    const amount = guests === base ? own : measurable((own * guests) / base, unit);
    const one = line.getAttribute("data-one");
    const noun = one && amount <= 1 ? one : line.getAttribute("data-text") || "";
    line.textContent = `${quantityText(amount)}${unit ? ` ${unit}` : ""} ${noun}`;
  }
}

function people(count) {
  return count > 1 ? "personnes" : "personne";
}

/** The servings stepper, kept in step with prerender's button both ways. */
function setUpServings() {
  const box = document.querySelector("[data-servings]");
  if (!box) return;
  const min = Number(box.getAttribute("data-min")) || 1;
  const max = Number(box.getAttribute("data-max")) || 50;
  const base = Number(box.getAttribute("data-base")) || 4;
  const output = box.querySelector("[data-servings-output]");
  const unit = box.querySelector("[data-servings-unit]");
  const buttons = [...box.querySelectorAll("[data-servings-step]")];
  const status = document.querySelector("[data-basket-status]");
  const cta = document.querySelector(CTA);
  let current = base;

  const valid = (value) => Number.isInteger(value) && value >= min && value <= max;

  function show(count) {
    current = count;
    if (output) output.value = String(count);
    if (unit) unit.textContent = people(count);
    for (const button of buttons) {
      const step = Number(button.getAttribute("data-servings-step"));
      const blocked = (step < 0 && count <= min) || (step > 0 && count >= max);
      button.setAttribute("aria-disabled", String(blocked));
    }
    for (const text of document.querySelectorAll("[data-servings-text]")) text.textContent = `${count} ${people(count)}`;
    scaleIngredients(count, base);
  }

  function choose(count) {
    if (!valid(count) || count === current) return;
    show(count);
    if (cta && cta.getAttribute("guests") !== String(count)) cta.setAttribute("guests", String(count));
  }

  for (const button of buttons) {
    button.hidden = false;
    button.addEventListener("click", () => {
      if (button.getAttribute("aria-disabled") === "true") return;
      choose(current + Number(button.getAttribute("data-servings-step")));
    });
  }

  if (cta) {
    const follow = () => {
      const guests = Number(cta.getAttribute("guests"));
      if (valid(guests) && guests !== current) show(guests);
    };
    new MutationObserver(follow).observe(cta, { attributes: true, attributeFilter: ["guests"] });
    follow();
    cta.addEventListener("inBasketStatus", (event) => {
      if (status) status.textContent = event.detail === true ? IN_BASKET : "";
    });
  }
  show(current);
}

/** The blog's picture of the dish, for the drawer prerender's button opens. */
function sharePicture() {
  const picture = document.querySelector("[data-shopping]")?.getAttribute("data-picture");
  const cta = document.querySelector(CTA);
  if (cta && picture) cta.setAttribute("picture-url", new URL(picture, document.baseURI).href);
}

try {
  setUpServings();
} catch (error) {
  console.warn("the servings stepper failed; the recipe reads as it is", error);
}
try {
  sharePicture();
} catch (error) {
  console.warn("the recipe's picture could not be given to the drawer; it shows the retailer's", error);
}
setUpSdk();
