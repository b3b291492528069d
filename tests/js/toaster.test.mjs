// Unit tests of prerender/static/sdk/toaster.js `Toaster`, in Node: a minimal document (one element kind with the
// members the toaster uses) and animation frames the test runs itself; the time a message stays runs on
// node:test's mock timers.
import { test, describe, beforeEach, afterEach, mock } from "node:test";
import assert from "node:assert/strict";

import { Toaster } from "../../prerender/static/sdk/toaster.js";
import { TopLayer } from "../../prerender/static/sdk/top-layer.js";

class FakeElement {
  className = "";
  textContent = "";
  isConnected = true;
  attributes = new Map();
  classes = new Set();
  classList = {
    add: (name) => void this.classes.add(name),
    remove: (name) => void this.classes.delete(name),
  };
  setAttribute(name, value) {
    this.attributes.set(name, value);
  }
  append() {}
}

/** @type {Map<number, () => void>} */
let frames;
beforeEach(() => {
  mock.timers.enable({ apis: ["setTimeout"] });
  frames = new Map();
  let next = 1;
  globalThis.document = /** @type {any} */ ({ body: new FakeElement(), createElement: () => new FakeElement() });
  globalThis.requestAnimationFrame = (callback) => {
    frames.set(next, callback);
    return next++;
  };
  globalThis.cancelAnimationFrame = (id) => void frames.delete(id);
});
afterEach(() => mock.timers.reset());

/** Runs the animation frames asked for so far. */
function runFrames() {
  const due = [...frames.values()];
  frames.clear();
  for (const callback of due) callback();
}

function shown(toaster) {
  const element = toaster.prepare();
  return element.classes.has("svc-toaster--visible") ? element.textContent : "";
}

describe("Toaster", () => {
  test("a message shows on the next frame, as a status, for the time asked", () => {
    const toaster = new Toaster({ prefix: "svc", topLayer: new TopLayer() });
    toaster.show("A", 1000);
    assert.equal(shown(toaster), "");
    runFrames();
    assert.equal(shown(toaster), "A");
    assert.equal(toaster.prepare().attributes.get("role"), "status");
    mock.timers.tick(999);
    assert.equal(shown(toaster), "A");
    mock.timers.tick(1);
    assert.equal(shown(toaster), "");
  });

  test("hide takes its message away, even before its frame", () => {
    const toaster = new Toaster({ prefix: "svc", topLayer: new TopLayer() });
    toaster.show("A");
    toaster.hide("A");
    runFrames();
    assert.equal(shown(toaster), "");
    toaster.show("B");
    runFrames();
    toaster.hide("B");
    assert.equal(shown(toaster), "");
  });

  test("hide leaves a newer message alone, and its time", () => {
    const toaster = new Toaster({ prefix: "svc", topLayer: new TopLayer() });
    toaster.show("A", 10_000);
    runFrames();
    toaster.show("B", 1000);
    runFrames();
    toaster.hide("A");
    assert.equal(shown(toaster), "B");
    mock.timers.tick(1000);
    assert.equal(shown(toaster), "");
  });
});
