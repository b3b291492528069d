// The basket as prerender's browser API answers it (docs/browser-api.md, "Basket"), and the empty one.

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
