// A shopper's credential and identity as the SDK reads them (sdk/session.js holds the current one): the
// `<prefix>-shopper` element's attributes (sdk/shopper.js) or a remembered visitor's credential, checked for what
// a header value may carry; and the ids a page gives (`supplier.setup`'s session id, `user.loadWithExternalId`).

/**
 * Who the SDK acts for: the shopper of its credential. `user$` / `identity$` is `null` while the SDK has no
 * credential (none on the page yet, or after `user.reset()`).
 * @typedef {object} Identity
 * @property {"user" | "authless"} kind
 * @property {string} id the user id or the authless id the credential names
 * @property {boolean} forbidProfiling recorded by `user.loadWithExternalId(id, true)`: `profiling: false`
 */

/**
 * A shopper's credential as a `<prefix>-shopper` element gives it.
 * @typedef {object} Credential
 * @property {string} token the opaque credential, sent as `Bearer <token>`
 * @property {"user" | "authless"} kind
 * @property {string} id
 * @property {number} expiresAt epoch seconds
 * @property {string} supplier the supplier it was issued under ("" from an element of before `supplier-id`)
 */

// RFC 6750's b64token: what prerender issues, and what a header value may carry.
const TOKEN = /^[A-Za-z0-9._~+/-]+=*$/;
// Ids become header values or query parameters: 1 to 128 printable ASCII characters, no space.
const ID = /^[\x21-\x7e]{1,128}$/;
const MAX_TOKEN_LENGTH = 4096;

/** Whether a value is an id the service takes (ID). @param {string} value */
export function isId(value) {
  return ID.test(value);
}

/**
 * A credential from raw values (attributes of an element, or storage), or the reason it is unusable.
 * Whether it has expired is not judged here: the device's clock may be hours or days off (an AM/PM slip, a
 * clock never set), and the service, which checks every call, answers 401 for a credential past its time.
 * @param {{ token: unknown, kind: unknown, id: unknown, expiresAt: unknown, supplier?: unknown }} raw
 * @returns {{ credential: Credential } | { reason: string }}
 */
export function readCredential({ token, kind, id, expiresAt, supplier }) {
  const value = String(token ?? "").trim();
  if (!value || value.length > MAX_TOKEN_LENGTH || !TOKEN.test(value)) return { reason: "no usable credential" };
  if (kind !== "user" && kind !== "authless") return { reason: `unknown kind ${String(kind)}` };
  const shopperId = String(id ?? "").trim();
  if (!ID.test(shopperId)) return { reason: "no usable shopper-id" };
  const expiry = Number(String(expiresAt ?? "").trim() || Number.NaN);
  if (!Number.isInteger(expiry)) return { reason: "no usable expires-at" };
  const supplierId = String(supplier ?? "").trim();
  return { credential: { token: value, kind, id: shopperId, expiresAt: expiry, supplier: ID.test(supplierId) ? supplierId : "" } };
}

/** An id given by the page: 1 to 128 printable ASCII characters, no space (prerender's guard). */
export function checkId(/** @type {unknown} */ id, /** @type {string} */ what) {
  const value = String(id ?? "").trim();
  if (!ID.test(value)) throw new TypeError(`${what}: 1 to 128 printable characters without spaces`);
  return value;
}
