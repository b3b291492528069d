// JSON text as the standard writes it, whatever an old library of the page added to the built-ins. Prototype.js
// (1.6 and 1.7, still on some retailers' pages) gives arrays, strings and numbers a `toJSON` method, which
// `JSON.stringify` calls: an array became the string "[1,2]" and a string was quoted twice, so a basket
// reconcile, a batch of events or a stored preference reached the service (or the next page) as the wrong type.
// Every JSON text of the browser code is written here (ESLint refuses `JSON.stringify` elsewhere:
// eslint.config.js).

/** The built-ins' prototypes whose `toJSON` no standard defines. Date's is the standard's, and is kept even where the
 * library replaced it (it writes a Date quoted twice): no JSON the browser code writes holds a Date. */
const PATCHABLE = [Array.prototype, String.prototype, Number.prototype, Boolean.prototype, Object.prototype];

/**
 * `JSON.stringify(value)`, with the `toJSON` methods a library added to the built-ins' prototypes set aside while
 * it runs (it is synchronous: no other code sees them missing), then put back as they were.
 * @param {unknown} value
 * @returns {string}
 */
export function jsonText(value) {
  /** @type {Array<[object, PropertyDescriptor]>} */
  const added = [];
  for (const prototype of PATCHABLE) {
    const own = Object.getOwnPropertyDescriptor(prototype, "toJSON");
    if (own?.configurable) added.push([prototype, own]);
  }
  if (added.length === 0) return JSON.stringify(value);
  for (const [prototype] of added) delete (/** @type {{ toJSON?: unknown }} */ (prototype)).toJSON;
  try {
    return JSON.stringify(value);
  } finally {
    for (const [prototype, own] of added) Object.defineProperty(prototype, "toJSON", own);
  }
}
