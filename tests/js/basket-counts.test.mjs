// Unit tests of prerender/static/components/catalog/basket-counts.js: what the basket preview counts, as the server
// counts it (tests/unit/test_basket_counts.py holds the same cases for prerender/rendering/my_space.py).
import { test } from "node:test";
import assert from "node:assert/strict";

import { soldLines, soldProducts } from "../../prerender/static/components/catalog/basket-counts.js";

const line = (product_id, available = true) => ({ product_id, available, quantity: 1 });

test("a row counts the lines its store sells", () => {
  assert.equal(soldLines({ lines: [line(1), line(2, false), line(3)] }).length, 2);
  assert.deepEqual(soldLines({ lines: [null, "x", line(4)] }), [line(4)], "what is no line is left out");
  assert.deepEqual(soldLines({}), []);
  assert.deepEqual(soldLines(null), []);
});

test("the summary counts each product sold once, however many recipes use it", () => {
  const recipes = [
    { lines: [line(1), line(2), line(3, false)] },
    { lines: [line(2), line(4)] }, // 2 again: the cart holds it once
    { lines: [line(3, false)] }, // not sold at this store: not in the count
  ];
  assert.equal(soldProducts(recipes), 3);
  assert.equal(soldProducts([{ lines: [line("7"), line(7)] }]), 1, "an id is an id, string or number");
  assert.equal(soldProducts([]), 0);
  assert.equal(soldProducts(undefined), 0);
});
