// Unit tests of prerender/static/sdk/drawer-loading.js `DrawerLoader`, in Node: the drawer's module is an injected
// import the test answers (or holds), the toaster a recorder. The delays run on node:test's mock timers.
import { test, describe, beforeEach, afterEach, mock } from "node:test";
import assert from "node:assert/strict";

import { DrawerLoader, LOADING_SHOWN_AFTER_MS, GIVEN_UP_AFTER_MS } from "../../prerender/static/sdk/drawer-loading.js";
import { deferred, flush } from "./support.mjs";

beforeEach(() => mock.timers.enable({ apis: ["setTimeout"] }));
afterEach(() => mock.timers.reset());

class FakeToaster {
  /** @type {string[]} what was shown, in order */
  shown = [];
  /** @type {string} what is shown now ("" when nothing) */
  current = "";
  show(text) {
    this.shown.push(text);
    this.current = text;
  }
  hide(text) {
    if (this.current === text) this.current = "";
  }
}

/** A loader whose imports the test answers: `imports` holds one deferred per import asked. */
function setup() {
  const imports = [];
  const toaster = new FakeToaster();
  const loader = new DrawerLoader({
    importDrawer: () => {
      const load = deferred();
      imports.push(load);
      return load.promise;
    },
    toaster,
    t: (key) => `text:${key}`,
  });
  return { loader, imports, toaster };
}

const MODULE = Object.freeze({ openRecipeDetails: () => "opened" });
const RECIPE = { opening: "drawer.opening", failed: "error.drawer" };
const unavailable = (error) => error.problem.type === "about:blank#drawer-unavailable" && error.status === 0;

describe("DrawerLoader", () => {
  test("a module that arrives within a second opens with nothing said; the next opening imports nothing", async () => {
    const { loader, imports, toaster } = setup();
    const opening = loader.load(RECIPE);
    mock.timers.tick(LOADING_SHOWN_AFTER_MS - 1);
    imports[0].resolve(MODULE);
    assert.equal(await opening, MODULE);
    mock.timers.tick(GIVEN_UP_AFTER_MS);
    assert.deepEqual(toaster.shown, []);
    assert.equal(await loader.load(RECIPE), MODULE);
    assert.equal(imports.length, 1);
  });

  test("a slow module is said to be on its way, and the message goes once it opens", async () => {
    const { loader, imports, toaster } = setup();
    const opening = loader.load(RECIPE);
    mock.timers.tick(LOADING_SHOWN_AFTER_MS);
    assert.equal(toaster.current, "text:drawer.opening");
    imports[0].resolve(MODULE);
    assert.equal(await opening, MODULE);
    assert.equal(toaster.current, "");
  });

  test("a module that does not arrive in time is given up, the shopper told; it does not open the drawer later", async () => {
    const { loader, imports, toaster } = setup();
    const opening = loader.load(RECIPE);
    const outcome = assert.rejects(opening, unavailable);
    mock.timers.tick(GIVEN_UP_AFTER_MS);
    await outcome;
    assert.deepEqual(toaster.shown, ["text:drawer.opening", "text:error.drawer"]);
    // A second click while the browser still waits for the module waits on the same load, and is given up too.
    const again = loader.load(RECIPE);
    await flush();
    assert.equal(imports.length, 1);
    // Then the module arrives: that click opens it, and from then on every click opens at once.
    imports[0].resolve(MODULE);
    assert.equal(await again, MODULE);
    assert.equal(await loader.load(RECIPE), MODULE);
  });

  test("a module that fails to load is told at once, and the next click imports it again", async () => {
    const { loader, imports, toaster } = setup();
    const opening = loader.load(RECIPE);
    imports[0].reject(new TypeError("Failed to fetch dynamically imported module"));
    await assert.rejects(opening, unavailable);
    assert.deepEqual(toaster.shown, ["text:error.drawer"]);
    mock.timers.tick(GIVEN_UP_AFTER_MS);
    assert.deepEqual(toaster.shown, ["text:error.drawer"], "the failed load's timers are gone");
    const again = loader.load(RECIPE);
    assert.equal(imports.length, 2);
    imports[1].resolve(MODULE);
    assert.equal(await again, MODULE);
  });

  test("from the second failure on the shopper is told to reload (a browser may keep a failed module)", async () => {
    const { loader, imports, toaster } = setup();
    for (const keys of [RECIPE, { opening: "drawer.opening-basket", failed: "error.drawer-basket" }, RECIPE]) {
      const opening = loader.load(keys);
      imports.at(-1).reject(new TypeError("Failed to fetch dynamically imported module"));
      await assert.rejects(opening, unavailable);
    }
    assert.deepEqual(toaster.shown, ["text:error.drawer", "text:error.drawer-reload", "text:error.drawer-reload"]);
    // Once it arrives, a later failure (there is none: the module is kept) would start again from one.
    const arrived = loader.load(RECIPE);
    imports.at(-1).resolve(MODULE);
    assert.equal(await arrived, MODULE);
  });

  test("clicks that wait on one load are told once that it failed, not told to reload", async () => {
    const { loader, imports, toaster } = setup();
    const first = loader.load(RECIPE);
    const second = loader.load(RECIPE); // a double click
    const outcomes = [assert.rejects(first, unavailable), assert.rejects(second, unavailable)];
    imports[0].reject(new TypeError("Failed to fetch dynamically imported module"));
    await Promise.all(outcomes);
    assert.equal(imports.length, 1);
    assert.deepEqual(toaster.shown, ["text:error.drawer", "text:error.drawer"]);
  });

  test("the basket preview says what is opening in its own words", async () => {
    const { loader, imports, toaster } = setup();
    const opening = loader.load({ opening: "drawer.opening-basket", failed: "error.drawer-basket" });
    const outcome = assert.rejects(opening, unavailable);
    mock.timers.tick(GIVEN_UP_AFTER_MS);
    await outcome;
    assert.deepEqual(toaster.shown, ["text:drawer.opening-basket", "text:error.drawer-basket"]);
    imports[0].resolve(MODULE);
  });
});
