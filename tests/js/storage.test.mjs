// Unit tests of prerender/static/sdk/storage.js `isRecent`: the age of a time stamp the SDK kept in storage (a
// payment started, a transfer pending, the planner's resume URL), on a device whose clock may be set back.
import { test, mock, afterEach } from "node:test";
import assert from "node:assert/strict";

import { isRecent } from "../../prerender/static/sdk/storage.js";

const NOW = Date.UTC(2026, 10, 30, 12);
const HOUR = 3_600_000;

afterEach(() => mock.restoreAll());

test("a stamp younger than the age is recent, one as old or older is not", () => {
  mock.method(Date, "now", () => NOW);
  assert.equal(isRecent(NOW - HOUR + 1, HOUR), true);
  assert.equal(isRecent(NOW - HOUR, HOUR), false);
  assert.equal(isRecent(NOW, HOUR), true);
});

test("a stamp well after now (kept while the clock ran ahead, set back since) is not recent", () => {
  mock.method(Date, "now", () => NOW);
  assert.equal(isRecent(NOW + 6 * 60_000, HOUR), false);
  assert.equal(isRecent(NOW + 3 * 24 * HOUR, HOUR), false);
});

test("a stamp a few minutes after now (a clock stepped back a little) still counts", () => {
  mock.method(Date, "now", () => NOW);
  assert.equal(isRecent(NOW + 1, HOUR), true);
  assert.equal(isRecent(NOW + 4 * 60_000, HOUR), true);
});

test("a stamp that is no number is not recent", () => {
  mock.method(Date, "now", () => NOW);
  for (const at of [undefined, null, "soon", {}, Number.NaN]) assert.equal(isRecent(at, HOUR), false);
});
