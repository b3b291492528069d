// Unit tests of prerender/static/sdk/json.js: JSON text as the standard writes it on a page whose old library
// (Prototype.js 1.6 and 1.7) gave arrays, strings and numbers a `toJSON`, and the SDK's request bodies written
// with it (sdk/http.js). Each test patches the built-ins as that library does, and restores them.
import { test, describe, afterEach } from "node:test";
import assert from "node:assert/strict";

import { jsonText } from "../../prerender/static/sdk/json.js";
import { ApiClient } from "../../prerender/static/sdk/http.js";
import { clientSession } from "./support.mjs";

/** Prototype.js 1.6's methods, in short: an array as a text of its own, a string quoted, a number as a string. */
const PROTOTYPE_JS = {
  array: function () { return `[${Array.from(this, (item) => String(item)).join(", ")}]`; },
  string: function () { return `"${String(this)}"`; },
  number: function () { return String(Number(this)); },
};

function patchAsPrototypeJs() {
  Object.defineProperty(Array.prototype, "toJSON", { value: PROTOTYPE_JS.array, writable: true, configurable: true });
  Object.defineProperty(String.prototype, "toJSON", { value: PROTOTYPE_JS.string, writable: true, configurable: true });
  Object.defineProperty(Number.prototype, "toJSON", { value: PROTOTYPE_JS.number, writable: true, configurable: true });
}

const realFetch = globalThis.fetch;
afterEach(() => {
  delete Array.prototype.toJSON;
  delete String.prototype.toJSON;
  delete Number.prototype.toJSON;
  globalThis.fetch = realFetch;
});

const VALUE = { cart: [{ id: "p1", quantity: 2 }], name: "tomate", total: 12.5, done: false, at: new Date(0) };
const STANDARD = '{"cart":[{"id":"p1","quantity":2}],"name":"tomate","total":12.5,"done":false,"at":"1970-01-01T00:00:00.000Z"}';

describe("jsonText", () => {
  test("writes what JSON.stringify writes on a page with untouched built-ins", () => {
    assert.equal(jsonText(VALUE), STANDARD);
  });

  test("writes the standard text where the page's library patched the built-ins, and leaves them patched", () => {
    patchAsPrototypeJs();
    assert.notEqual(JSON.stringify(VALUE), STANDARD); // what the browser's own function writes there
    assert.equal(jsonText(VALUE), STANDARD);
    assert.equal(Array.prototype.toJSON, PROTOTYPE_JS.array);
    assert.equal(String.prototype.toJSON, PROTOTYPE_JS.string);
    assert.equal(Number.prototype.toJSON, PROTOTYPE_JS.number);
  });

  test("puts the library's methods back when a value cannot be written", () => {
    patchAsPrototypeJs();
    const loop = {};
    loop.self = loop;
    assert.throws(() => jsonText(loop), TypeError);
    assert.equal(Array.prototype.toJSON, PROTOTYPE_JS.array);
  });
});

test("a request body is the standard JSON text on such a page", async () => {
  patchAsPrototypeJs();
  const bodies = [];
  globalThis.fetch = async (_url, init) => {
    bodies.push(init.body);
    return new Response("{}", { status: 200, headers: { "content-type": "application/json" } });
  };
  await new ApiClient(clientSession).request("POST", "/basket/reconcile", { json: { cart: [{ id: "p1", quantity: 2 }] } });
  assert.deepEqual(bodies, ['{"cart":[{"id":"p1","quantity":2}]}']);
});
