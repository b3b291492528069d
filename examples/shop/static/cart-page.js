// Demo Market, cart page: +, − and remove change the shop's cart and report it to the basket
// (retailerBasketChanged); "Payer" confirms the basket (handlePayment), empties the cart and shows the
// confirmation in place of the empty cart. A cart changed since the page showed it (in another tab, on another
// device) is not paid: the page reloads to show it, with a notice to check it first.
import { svc, cart, reportCart, ready } from "./svc-setup.js";

const root = document.querySelector("[data-cart]");
const language = root?.getAttribute("data-language") === "en" ? "en" : "fr";
const maxQuantity = Number(root?.getAttribute("data-max-quantity")) || 99;
const money = new Intl.NumberFormat(language === "en" ? "en-IE" : "fr-FR", { style: "currency", currency: "EUR" });

function lineTotal(row) {
  const unit = Number.parseFloat(row.getAttribute("data-unit-price") || "");
  const quantity = Number(row.getAttribute("data-quantity"));
  return Number.isFinite(unit) ? unit * quantity : null;
}

/**
 * Shows the cart's lines as the server now holds them (rows of products no longer there go away). A row that goes
 * with the focus in it (its "remove" pressed) hands the focus to the line after it, else the one before, else the
 * empty cart's link back to the shelf: never to the page's body.
 */
function render(lines) {
  if (!root) return;
  const quantities = new Map(lines.map((line) => [String(line.id), line.quantity]));
  const rows = [...root.querySelectorAll("[data-product-id]")];
  const focused = rows.find((row) => row.contains(document.activeElement));
  let total = 0;
  for (const row of rows) {
    const quantity = quantities.get(row.getAttribute("data-product-id")) ?? 0;
    if (quantity <= 0) {
      row.remove();
      continue;
    }
    row.setAttribute("data-quantity", String(quantity));
    row.querySelector("[data-cart-quantity]").textContent = String(quantity);
    const more = row.querySelector("[data-cart-action=more]");
    if (more) more.disabled = quantity >= maxQuantity;
    const amount = lineTotal(row);
    if (amount !== null) {
      row.querySelector("[data-cart-line-total]").textContent = money.format(amount);
      total += amount;
    }
  }
  const empty = root.querySelectorAll("[data-product-id]").length === 0;
  // Once paid, the confirmation stands where the empty cart would.
  root.querySelector("[data-cart-empty]").hidden = !empty || !root.querySelector("[data-cart-paid]").hidden;
  root.querySelector("[data-cart-summary]").hidden = empty;
  const totalElement = root.querySelector("[data-cart-total]");
  totalElement.textContent = money.format(total);
  totalElement.setAttribute("data-total", total.toFixed(2));
  if (focused && !focused.isConnected) {
    const at = rows.indexOf(focused);
    const neighbour = [...rows.slice(at + 1), ...rows.slice(0, at).reverse()].find((row) => row.isConnected);
    const target = neighbour?.querySelector("[data-cart-action=remove]") ?? root.querySelector("[data-cart-empty] a");
    target?.focus();
  }
}

async function change(deltas) {
  const lines = await cart.apply(deltas);
  render(lines);
  await reportCart(lines);
}

// The page's actions run one after the other: "Payer" compares the page with the cart once the changes clicked
// before it are done, so that the page's own change is never taken for another tab's.
let pending = Promise.resolve();

/** Runs `action` after the actions clicked before it. */
function queued(action) {
  const run = pending.then(action);
  pending = run.catch(() => {});
  return run;
}

root?.addEventListener("click", async (event) => {
  const button = event.target instanceof Element ? event.target.closest("button") : null;
  if (!button || button.getAttribute("aria-busy") === "true") return;
  const row = button.closest("[data-product-id]");
  const action = button.getAttribute("data-cart-action");
  button.setAttribute("aria-busy", "true");
  try {
    if (row && action === "more") await queued(() => change([{ id: row.getAttribute("data-product-id"), quantity: 1 }]));
    else if (row && action === "less") await queued(() => change([{ id: row.getAttribute("data-product-id"), quantity: -1 }]));
    else if (row && action === "remove") {
      await queued(() => change([{ id: row.getAttribute("data-product-id"), quantity: -Number(row.getAttribute("data-quantity")) }]));
    } else if (button.hasAttribute("data-cart-pay")) await queued(pay);
  } catch (error) {
    console.error("the cart could not be changed", error);
  } finally {
    button.removeAttribute("aria-busy");
  }
});

// Set before the reload of a cart that changed elsewhere, read (and cleared) by the reloaded page within a minute
// (a reload that went elsewhere must not show the notice on a later visit).
const CHANGED_KEY = "dm/cart-changed";
const CHANGED_SHOWN_WITHIN_MS = 60 * 1000;

/** The lines the page shows, as id → quantity. */
function shownLines() {
  const rows = root.querySelectorAll("[data-product-id]");
  return new Map([...rows].map((row) => [row.getAttribute("data-product-id"), Number(row.getAttribute("data-quantity"))]));
}

/** Whether `lines` are exactly the lines the page shows. */
function showsExactly(lines) {
  const shown = shownLines();
  return lines.length === shown.size && lines.every(({ id, quantity }) => shown.get(String(id)) === quantity);
}

async function pay() {
  // Not before the cart has loaded: a click before its lines arrive would pay an empty cart, and the basket
  // follows the paid cart (docs/sdk.md, handlePayment), so it would lose every recipe.
  await ready;
  // The cart as the shop holds it now, not as this page loaded it: what the shopper pays is what they saw.
  const failed = root.querySelector("[data-cart-pay-failed]");
  failed.hidden = true;
  let lines;
  try {
    lines = await cart.load();
  } catch (error) {
    failed.hidden = false; // nothing was paid: the shopper may try again
    throw error;
  }
  if (!showsExactly(lines)) {
    try {
      sessionStorage.setItem(CHANGED_KEY, JSON.stringify({ at: Date.now() }));
    } catch {
      // no sessionStorage: the page still reloads, without the notice
    }
    window.location.reload();
    return;
  }
  const total = Number(root.querySelector("[data-cart-total]").getAttribute("data-total"));
  const orderId = `order-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  // The paid cart itself: the service confirms the basket as this cart has it (docs/sdk.md, handlePayment).
  const paid = lines.map(({ id, quantity }) => ({ id, quantity }));
  if (svc) await svc.basketSync.handlePayment(total, orderId, paid).catch((problem) => console.warn("payment not confirmed", problem));
  const emptied = lines.length ? await cart.apply(lines.map(({ id, quantity }) => ({ id, quantity: -quantity }))) : [];
  root.querySelector("[data-cart-paid]").hidden = false;
  root.querySelector("[data-cart-changed]").hidden = true;
  render(emptied);
  root.querySelector("[data-cart-paid-title]").focus();
  await reportCart(emptied);
  const status = root.querySelector("[data-cart-status]");
  status.textContent = status.getAttribute("data-paid-text");
}

/** After a reload for a changed cart: the notice, focused so that it is read first. */
function noticeChangedCart() {
  let changed;
  try {
    const { at } = JSON.parse(sessionStorage.getItem(CHANGED_KEY) || "null") ?? {};
    changed = Date.now() - Number(at) < CHANGED_SHOWN_WITHIN_MS;
    sessionStorage.removeItem(CHANGED_KEY);
  } catch {
    return;
  }
  const notice = root?.querySelector("[data-cart-changed]");
  if (!changed || !notice) return;
  notice.hidden = false;
  notice.focus();
}

noticeChangedCart();
ready.then(render);
