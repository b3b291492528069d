// Unit tests of prerender/static/sdk/reported.js, in Node: the promise of a call the maker's integrations make
// without waiting for it. Dropped, its failure is heard once (the SDK says it in the console) and is no unhandled
// rejection; taken by the page (await, then, catch, finally), the page gets it and nothing else is heard.
import { test, describe, after } from "node:test";
import assert from "node:assert/strict";

import { reported } from "../../prerender/static/sdk/reported.js";

const unhandled = [];
const onUnhandled = (reason) => unhandled.push(reason);
process.on("unhandledRejection", onUnhandled);
after(() => process.off("unhandledRejection", onUnhandled));

/** Two turns of the event loop: every promise reaction of the test has run. */
const settled = () => new Promise((resolve) => setTimeout(resolve, 0)).then(() => new Promise((resolve) => setTimeout(resolve, 0)));

describe("reported", () => {
  test("dropped: its failure is heard once, and is no unhandled rejection", async () => {
    const heard = [];
    reported(Promise.reject(new Error("refused")), (error) => heard.push(error));
    await settled();
    assert.deepEqual(heard.map((error) => error.message), ["refused"]);
    assert.deepEqual(unhandled, []);
  });

  test("awaited in a try: the page gets the failure, nothing else is heard", async () => {
    const heard = [];
    let caught = null;
    try {
      await reported(Promise.reject(new Error("refused")), (error) => heard.push(error));
    } catch (error) {
      caught = error;
    }
    await settled();
    assert.equal(caught?.message, "refused");
    assert.deepEqual(heard, []);
  });

  test("caught, or finally'd and caught: nothing else is heard", async () => {
    const heard = [];
    const seen = [];
    reported(Promise.reject(new Error("a")), (error) => heard.push(error)).catch((error) => seen.push(error.message));
    reported(Promise.reject(new Error("b")), (error) => heard.push(error))
      .finally(() => seen.push("finally"))
      .catch((error) => seen.push(error.message));
    await settled();
    assert.deepEqual(seen.sort(), ["a", "b", "finally"]);
    assert.deepEqual(heard, []);
    assert.deepEqual(unhandled, []);
  });

  test("fulfilled: the value goes through, and the promise is a Promise", async () => {
    const heard = [];
    const promise = reported(Promise.resolve(42), (error) => heard.push(error));
    assert.ok(promise instanceof Promise);
    assert.equal(await promise, 42);
    assert.equal(await promise.then((value) => value + 1), 43);
    assert.deepEqual(heard, []);
  });
});
