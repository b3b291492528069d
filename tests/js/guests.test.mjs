// Unit tests of prerender/static/sdk/guests.js, in Node: `validGuestCount` (a guest count of 1 to 50 in
// digits, or null: what a CTA's `guests` attribute and `recipes.setGuests` accept) and `GuestCounts` (one
// State per recipe id, shared by every control of the page; `set` ignores bad counts and emits on change only).
import { test, describe } from "node:test";
import assert from "node:assert/strict";

import { GUESTS_MAX, GUESTS_MIN, GuestCounts, validGuestCount } from "../../prerender/static/sdk/guests.js";

describe("validGuestCount", () => {
  test("1 to 50, as a number or in digits (spaces around trimmed)", () => {
    assert.equal(GUESTS_MIN, 1);
    assert.equal(GUESTS_MAX, 50);
    for (const [value, count] of [[1, 1], [50, 50], ["4", 4], [" 12 ", 12], ["04", 4], [4.0, 4]]) {
      assert.equal(validGuestCount(value), count, `${JSON.stringify(value)}`);
    }
  });

  test("anything else is null", () => {
    for (const value of [0, 51, 99, 100, -1, 4.5, "4.5", "0", "51", "", " ", "four", "4 guests", "1e1", "+4", "0x4",
      null, undefined, NaN, Infinity, true, { valueOf: () => 4 }]) {
      assert.equal(validGuestCount(value), null, `accepted ${String(value)}`);
    }
  });
});

describe("GuestCounts", () => {
  test("of gives one State per recipe id, the same for a number or its string, without a value at first", () => {
    const guests = new GuestCounts();
    const state = guests.of("42");
    assert.equal(guests.of(42), state);
    assert.equal(guests.of(" 42 "), state);
    assert.notEqual(guests.of("43"), state);
    assert.equal(state.hasValue, false);
  });

  test("set gives the count to every follower of the recipe, and true", () => {
    const guests = new GuestCounts();
    const seen = [];
    guests.of("r1").subscribe((count) => seen.push(count));
    assert.equal(guests.set("r1", "6"), true);
    assert.equal(guests.of("r1").value, 6);
    const late = [];
    guests.of(" r1").subscribe((count) => late.push(count));
    assert.deepEqual(seen, [6]);
    assert.deepEqual(late, [6], "a control that connects later gets the current count");
  });

  test("set emits only when the count changes", () => {
    const guests = new GuestCounts();
    const seen = [];
    guests.of("r1").subscribe((count) => seen.push(count));
    guests.set("r1", 4);
    guests.set("r1", "4");
    guests.set("r1", 5);
    assert.deepEqual(seen, [4, 5]);
  });

  test("a count that is not 1 to 50, or an empty recipe id, is ignored: false, nothing emitted", () => {
    const guests = new GuestCounts();
    const seen = [];
    guests.of("r1").subscribe((count) => seen.push(count));
    guests.set("r1", 3);
    assert.equal(guests.set("r1", 0), false);
    assert.equal(guests.set("r1", "many"), false);
    assert.equal(guests.set("", 4), false);
    assert.equal(guests.set("  ", 4), false);
    assert.equal(guests.set(null, 4), false);
    assert.deepEqual(seen, [3]);
    assert.equal(guests.of("").hasValue, false);
  });
});
