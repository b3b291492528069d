// Browser storage that never throws (Safari private mode, storage disabled by the page's policy or the browser's
// settings, quota): a value whose write the real storage refused lives in this page's memory, and is what the
// page reads back for its key (not the older value the storage still holds), until the storage holds another
// value than that older one (another tab wrote it once there was room): the storage's is newer, and wins again.

/**
 * @typedef {object} SafeStorage
 * @property {(key: string) => string | null} get
 * @property {(key: string, value: string) => boolean} set whether the value was kept by the real storage (a
 *   reload of the page will find it), not by this page's memory only
 * @property {(key: string) => void} remove
 * @property {() => string[]} keys
 */

/**
 * @param {"localStorage" | "sessionStorage"} kind
 * @returns {SafeStorage}
 */
export function safeStorage(kind) {
  // The writes the real storage refused, this page's own (`value` null: removed), with what the storage held for
  // the key then (`under`: undefined when it could not be read).
  /** @type {Map<string, { value: string | null, under: string | null | undefined }>} */
  const memory = new Map();
  /** @returns {Storage | null} */
  const real = () => {
    try {
      return window[kind];
    } catch {
      return null;
    }
  };
  /** @param {string} key @returns {string | null | undefined} what the storage holds, undefined if unreadable */
  const stored = (key) => {
    try {
      const storage = real();
      return storage ? storage.getItem(key) : undefined;
    } catch {
      return undefined;
    }
  };
  /** A refused write (or removal) of this page's: newer than what the storage holds for the key now.
   * @param {string} key @param {string | null} value */
  const keep = (key, value) => memory.set(key, { value, under: stored(key) });
  /** Writes `value` (null: removes it): true once the storage took it, else this page keeps it.
   * @param {string} key @param {string | null} value */
  const write = (key, value) => {
    try {
      const storage = real();
      if (storage) {
        if (value === null) storage.removeItem(key);
        else storage.setItem(key, value);
        memory.delete(key); // kept where other pages read it, which this page reads again
        return true;
      }
    } catch {
      // this page keeps it
    }
    keep(key, value);
    return false;
  };
  /** @param {string} key @returns {string | null} */
  const get = (key) => {
    const own = memory.get(key);
    const now = stored(key);
    if (!own) return now ?? null;
    if (now === undefined || own.under === undefined || now === own.under) return own.value;
    memory.delete(key); // written there since this page's refused write: newer
    return now;
  };
  return {
    get,
    set: (key, value) => write(key, value),
    remove(key) {
      write(key, null);
    },
    keys() {
      const names = new Set();
      try {
        const storage = real();
        for (let i = 0; storage && i < storage.length; i += 1) {
          const name = storage.key(i);
          if (name !== null) names.add(name);
        }
      } catch {
        // memory only
      }
      for (const name of [...memory.keys()]) {
        if (get(name) === null) names.delete(name);
        else names.add(name);
      }
      return [...names];
    },
  };
}

/**
 * The page's localStorage when a value can be written to it now (a probe written and removed under `probeKey`),
 * else null: blocked, or full. `safeStorage` would keep the value in this page's memory only, which no other
 * page reads (the planner's pages hand each other the guests that way).
 * @param {string} probeKey @returns {Storage | null}
 */
export function writableLocalStorage(probeKey) {
  try {
    const storage = window.localStorage;
    storage.setItem(probeKey, "1");
    storage.removeItem(probeKey);
    return storage;
  } catch {
    return null;
  }
}

/** How far after now a kept time stamp may lie and still count (a clock stepped back a little by NTP). */
const CLOCK_STEP_MS = 5 * 60_000;

/**
 * Whether a time stamp kept in storage (`Date.now()` when it was kept) is less than `maxAgeMs` old. A stamp
 * more than a few minutes after now is not recent: the device's clock was set back since (a stamp kept while it
 * ran days ahead would otherwise stay "recent" until the clock caught up with it).
 * @param {unknown} at @param {number} maxAgeMs
 */
export function isRecent(at, maxAgeMs) {
  const age = Date.now() - Number(at);
  return age >= -CLOCK_STEP_MS && age < maxAgeMs;
}

/** A random identifier (UUID v4 form), also outside secure contexts where randomUUID is missing. */
export function randomId() {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
