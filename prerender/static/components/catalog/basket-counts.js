// What the basket preview counts of a basket (components/catalog.js), as the server counts it for the page it
// writes (prerender/rendering/my_space.py, `_sold_lines` and `_sold_products`): a row, the lines its store sells;
// the summary, the products those lines put in the cart, each once.

/**
 * A basket entry's lines that its store sells.
 * @param {any} entry a basket entry (`recipes[]` of the basket)
 * @returns {any[]}
 */
export function soldLines(entry) {
  return (Array.isArray(entry?.lines) ? entry.lines : [])
    .filter((/** @type {any} */ line) => line && typeof line === "object" && line.available !== false);
}

/**
 * The products the basket's recipes put in the cart at its store: each product once, however many recipes use it,
 * and none the store does not sell.
 * @param {unknown} recipes the basket's `recipes`
 * @returns {number}
 */
export function soldProducts(recipes) {
  const entries = Array.isArray(recipes) ? recipes : [];
  return new Set(entries.flatMap((entry) => soldLines(entry).map((line) => String(line.product_id)))).size;
}
