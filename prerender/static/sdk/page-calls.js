// The calls the SDK waits for from the page: `supplier.setup` before anything is sent to the service, `pos.load`
// before a basket write. A page that never makes one must not leave the shopper with a spinner: an action waits
// for it PAGE_CALL_WAIT_MS at most, counted from when it started or, for one started while the document is
// still being parsed, from the end of parsing (the page's own module scripts, which make these calls, have
// run by then). Past that the action fails (the component shows its error state, with a retry) and the
// console names the missing call, once per page and call. A later action waits again: once the page has made
// the call, it goes through.

/** How long an action waits for the page's `supplier.setup` or `pos.load` (docs/sdk.md, sections 1 and 4). */
export const PAGE_CALL_WAIT_MS = 5000;

const EXPIRED = Symbol("expired");
/** @type {Set<string>} the calls already reported in the console, as `<prefix>.<call>` */
const reported = new Set();

/** Resolves once the document is parsed (at once when it is). */
function parsed() {
  if (document.readyState !== "loading") return Promise.resolve();
  return new Promise((resolve) => {
    document.addEventListener("DOMContentLoaded", () => resolve(undefined), { once: true });
  });
}

/**
 * What `made` resolves to, once the page has made `call`; rejects with `failure()` when it has not within the
 * wait, after saying so in the console (once per page and call).
 * @template T
 * @param {Promise<T>} made resolves when the page makes the call
 * @param {{ prefix: string, call: string, consequence: string, failure: () => Error }} options
 *   call: what the page must call (`supplier.setup({ language })`); consequence: what waits for it
 * @returns {Promise<T>}
 */
export async function pageCall(made, { prefix, call, consequence, failure }) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  let settled = false;
  const expired = parsed().then(() => new Promise((resolve) => {
    if (!settled) timer = setTimeout(() => resolve(EXPIRED), PAGE_CALL_WAIT_MS);
  }));
  try {
    const result = await Promise.race([made, expired]);
    if (result !== EXPIRED) return /** @type {T} */ (result);
  } finally {
    settled = true;
    clearTimeout(timer);
  }
  const key = `${prefix}.${call}`;
  if (!reported.has(key)) {
    reported.add(key);
    console.error(`[${prefix}] the page has not called ${prefix}.${call} within ${PAGE_CALL_WAIT_MS / 1000} s: `
      + `${consequence}. Call it in a <script type="module"> placed after the fragments' scripts (docs/sdk.md).`);
  }
  throw failure();
}
