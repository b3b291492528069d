// What several of the browser modules' unit tests share (not a test file: node --test runs *.test.mjs).

/** Lets every queued promise callback run (setImmediate is not mocked: only setTimeout is). */
export const flush = async () => {
  for (let i = 0; i < 3; i += 1) await new Promise((resolve) => setImmediate(resolve));
};

/** A promise the test settles: `{ promise, resolve, reject }`. */
export function deferred() {
  let resolve;
  let reject;
  const promise = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
