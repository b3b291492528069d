// The basket as prerender's browser API answers it (docs/browser-api.md, "JSON routes"), and the empty one.
import { jsonText } from "./json.js";

/**
 * @typedef {object} BasketLine
 * @property {string} ingredient_id
 * @property {string} product_id
 * @property {number} quantity packages
 * @property {string} [name]
 * @property {string} [brand]
 * @property {string} [size]
 * @property {string} [picture_url]
 * @property {number | null} [unit_price]
 * @property {number | null} [price]
 * @property {boolean} [available]
 */

/**
 * @typedef {object} BasketEntry
 * @property {string} recipe_id
 * @property {number} guests
 * @property {string} [title]
 * @property {BasketLine[]} lines
 */

/**
 * @typedef {object} Basket
 * @property {string | null} store_id
 * @property {BasketEntry[]} recipes
 * @property {{ id: string, quantity: number }[]} products
 * @property {number} recipe_count
 * @property {number} total
 * @property {string} [currency]
 */

/** @typedef {{ basket: Basket, changes: { id: string, quantity: number }[] }} BasketAnswer */

/**
 * The shopper's choice for one ingredient of a recipe being added (`lines` of POST /basket/recipes): its
 * product, and its packages (absent: what the recipe needs for the guests; 0: the ingredient is left out).
 * @typedef {object} ChosenLine
 * @property {string} ingredient_id
 * @property {string} product_id
 * @property {number} [quantity]
 */

/**
 * The basket without recipes, as GET /basket answers it (prerender/blueprints/basket.py, EMPTY_BASKET).
 * @param {string | null} storeId @returns {Basket}
 */
export const emptyBasket = (storeId) => ({ store_id: storeId, recipes: [], products: [], recipe_count: 0, total: 0, currency: "EUR" });

// What the cart routes (reconcile, payment) take of a retailer cart line: prerender/schemas/actions.py (_CartLine,
// an Identifier) and prerender/schemas/limits.py (MAX_CART_QUANTITY).
const PRODUCT_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;
const MAX_CART_QUANTITY = 9_999;
/** The latest time a reconcile's `reported.at` may say (prerender/schemas/limits.py, MAX_REPORTED_AT). */
export const MAX_REPORTED_AT = 1e13;

/**
 * A retailer cart's lines as the cart routes take them. A line whose id cannot be one of the service's products
 * (a retailer's own SKU with spaces...) is left out: the basket holds none of them. A quantity is made whole,
 * rounded up (a product sold by weight, 0.4 kg, is in the cart: the basket only ever follows the cart down), and
 * kept within 0 and the route's 9 999: no line makes the routes refuse the whole cart. More than their 500 lines
 * still does (a 400): no line is cut, since a line missing from a reconciled cart would trim the basket.
 * @param {readonly any[]} lines
 * @returns {{ id: string, quantity: number }[]}
 */
export function routeCartLines(lines) {
  return lines
    .map((line) => ({ id: String(line?.id ?? "").trim(), quantity: Math.ceil(Number(line?.quantity)) }))
    .filter((line) => PRODUCT_ID.test(line.id) && Number.isFinite(line.quantity))
    .map((line) => ({ id: line.id, quantity: Math.min(MAX_CART_QUANTITY, Math.max(0, line.quantity)) }));
}

/**
 * What a basket holds, as a string two baskets share only when they hold the same: per recipe, its guests and its
 * lines (ingredient, product, packages), and the store. Prices and names are left out: they follow from these.
 * @param {Basket | undefined | null} basket
 * @returns {string}
 */
export function basketContent(basket) {
  if (!basket) return "";
  const recipes = (basket.recipes ?? []).map((entry) => [
    String(entry.recipe_id),
    entry.guests,
    (entry.lines ?? []).map((line) => [String(line.ingredient_id), String(line.product_id), line.quantity]),
  ]);
  return jsonText([basket.store_id ?? null, recipes]);
}
