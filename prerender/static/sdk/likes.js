// Likes (the heart) of the logged-in user of the session's credential: one state for the page, so every
// heart of a recipe changes at once. Optimistic: the state changes at the click and goes back when the
// service refuses. Without a user credential nothing is asked, and a click is a local `#not-connected` problem.
// A like or an unlike the service took is told to the shopper's other tabs of the site, whose hearts follow
// (sdk/tabs.js). A page back after a minute or more, or restored from the back/forward cache, asks again about the
// hearts it shows: a like made meanwhile on another device, or in a tab since closed, was told to no one here.
import { State } from "./observable.js";
import { localProblem, logFailure } from "./http.js";
import { RETURN_RELOAD_MS } from "./tabs.js";

const MAX_IDS_PER_CALL = 100;

export class Likes {
  /** @type {State<ReadonlyMap<string, boolean>>} recipe id -> liked, for the recipes known on the page */
  liked$ = new State(/** @type {ReadonlyMap<string, boolean>} */ (new Map()));
  #client;
  #session;
  /** @type {Set<string>} ids to ask the service about at the next microtask */
  #toFetch = new Set();
  /** @type {Set<string>} ids asked for before the page's credential arrived: loaded once a user's does */
  #waiting = new Set();
  /** @type {Set<string>} ids the service answered for this shopper: known since (their writes and the other tabs'
   * keep them so), not asked again when a page inserts their cards again */
  #fetched = new Set();
  /** @type {Set<string>} ids asked for and not answered yet: not asked again meanwhile */
  #inFlight = new Set();
  #fetchScheduled = false;
  /** @type {Map<string, number>} recipe id -> write generation (a newer click wins over an older answer) */
  #generation = new Map();
  /** @type {Map<string, number>} recipe id -> writes sent and not answered yet (a read then says too little) */
  #writing = new Map();
  /** @type {import("./tabs.js").Tabs | null} */
  #tabs;

  /**
   * @param {object} deps
   * @param {import("./http.js").ApiClient} deps.client
   * @param {import("./session.js").Session} deps.session
   * @param {(name: string, props: Record<string, unknown>) => void} deps.track analytics
   * @param {import("./tabs.js").Tabs | null} [deps.tabs] the shopper's other tabs of the site
   */
  constructor({ client, session, track, tabs = null }) {
    this.#client = client;
    this.#session = session;
    this.track = track;
    this.#tabs = tabs;
    // Another tab's like of this shopper: its hearts of that recipe here follow (a newer click here still wins).
    tabs?.on("like", (message) => {
      if (!message.shopper || message.shopper !== session.shopperKey || typeof message.liked !== "boolean") return;
      const id = String(message.recipeId ?? "");
      if (!id) return;
      this.#generation.set(id, (this.#generation.get(id) ?? 0) + 1);
      this.#set(id, message.liked);
    });
    tabs?.onReturn((awayMs) => {
      if (awayMs < RETURN_RELOAD_MS) return;
      const known = [...new Set([...this.#fetched, ...(this.liked$.value?.keys() ?? [])])];
      this.#fetched.clear();
      if (known.length) this.load(known);
    });
    // Another identity (or none after logout): what we knew is someone else's. The first credential of the
    // page keeps what the server rendered (its fragments were the credential's shopper's). The hearts the page
    // shows go back to unknown (unpressed) and are asked again for the next user (a single-page app's login, a
    // login or a logout in another tab); a logged-out visitor likes nothing.
    let identityKey = "";
    session.identity$.subscribe((identity) => {
      const key = identity ? `${identity.kind}:${identity.id}` : "";
      if (identityKey && key !== identityKey) {
        const shown = [...this.#fetched, ...this.#inFlight, ...this.#toFetch, ...(this.liked$.value?.keys() ?? [])];
        for (const id of shown) this.#waiting.add(id);
        // The clicks of the previous user must not keep the new one's likes from loading.
        this.#generation.clear();
        this.#writing.clear();
        this.#toFetch.clear();
        this.#fetched.clear();
        this.#inFlight.clear();
        this.liked$.next(new Map());
      }
      identityKey = key;
      if (identity?.kind === "user" && this.#waiting.size) {
        const ids = [...this.#waiting];
        this.#waiting.clear();
        this.load(ids);
      }
    });
  }

  /**
   * Liked state of one recipe, as a stream (undefined while unknown).
   * @param {string} recipeId
   */
  likedOf(recipeId) {
    const id = String(recipeId);
    return this.liked$.map((map) => map.get(id));
  }

  /**
   * What the server rendered (`aria-pressed` of a heart): taken when nothing newer is known.
   * @param {string} recipeId @param {boolean} liked
   */
  seed(recipeId, liked) {
    const id = String(recipeId);
    if (this.liked$.value?.has(id)) return;
    this.#set(id, liked);
  }

  /**
   * Asks the service which of these recipes the connected user likes (batched per microtask).
   * @param {string[]} recipeIds
   */
  load(recipeIds) {
    if (!this.#session.isConnected) {
      // A fragment inserted at runtime may connect its cards before its credential element: wait for it.
      for (const id of recipeIds) this.#waiting.add(String(id));
      return;
    }
    for (const raw of recipeIds) {
      const id = String(raw);
      if (!this.#fetched.has(id) && !this.#inFlight.has(id)) this.#toFetch.add(id);
    }
    if (this.#fetchScheduled || !this.#toFetch.size) return;
    this.#fetchScheduled = true;
    queueMicrotask(() => {
      this.#fetchScheduled = false;
      const ids = [...this.#toFetch];
      this.#toFetch.clear();
      for (let i = 0; i < ids.length; i += MAX_IDS_PER_CALL) void this.#fetch(ids.slice(i, i + MAX_IDS_PER_CALL));
    });
  }

  /** @param {string} recipeId */
  like(recipeId) {
    return this.#write(String(recipeId), true);
  }

  /** @param {string} recipeId */
  unlike(recipeId) {
    return this.#write(String(recipeId), false);
  }

  /** @param {string} recipeId */
  toggle(recipeId) {
    const id = String(recipeId);
    return this.#write(id, !this.liked$.value?.get(id));
  }

  /** @param {string[]} ids */
  async #fetch(ids) {
    const shopper = this.#session.shopperKey;
    for (const id of ids) this.#inFlight.add(id);
    const asked = new Map(ids.map((id) => [id, this.#generation.get(id)]));
    try {
      const answer = await this.#client.request("GET", "/likes", { query: { recipe_ids: ids.join(",") } });
      // Asked for the shopper before a switch (a logout, another login meanwhile): that shopper's likes, not the
      // page's shopper's now.
      if (this.#session.shopperKey !== shopper) return;
      const liked = new Set((answer?.data ?? []).map(String));
      for (const id of ids) this.#fetched.add(id);
      const map = new Map(this.liked$.value);
      // A click here or in another tab since the question, a write answered since, or one not answered yet, is newer
      // than the answer.
      for (const id of ids) {
        if (this.#generation.get(id) === asked.get(id) && !this.#writing.get(id)) map.set(id, liked.has(id));
      }
      this.liked$.next(map);
    } catch (error) {
      logFailure(this.#session.prefix, "could not read likes", error);
    } finally {
      // Unless the shopper changed meanwhile (the set then holds the new shopper's asks).
      if (this.#session.shopperKey === shopper) for (const id of ids) this.#inFlight.delete(id);
    }
  }

  /**
   * @param {string} id @param {boolean} liked
   * @returns {Promise<boolean>} the liked state the service accepted
   */
  async #write(id, liked) {
    if (!this.#session.isConnected) {
      throw localProblem("not-connected", "Likes are for logged-in users", "The page's credential is not a logged-in user's.");
    }
    const previous = this.liked$.value?.get(id) ?? !liked;
    const generation = (this.#generation.get(id) ?? 0) + 1;
    const shopper = this.#session.shopperKey;
    this.#generation.set(id, generation);
    this.#set(id, liked);
    this.#writing.set(id, (this.#writing.get(id) ?? 0) + 1);
    try {
      await this.#client.request(liked ? "PUT" : "DELETE", `/likes/${encodeURIComponent(id)}`);
      this.track(liked ? "recipe.like" : "recipe.unlike", { recipe_id: id });
      this.#tabs?.post({ type: "like", shopper, recipeId: id, liked });
      return liked;
    } catch (error) {
      // Undone for the shopper who clicked only: after a switch, the page's state is another shopper's.
      if (this.#session.shopperKey === shopper && this.#generation.get(id) === generation) this.#set(id, previous);
      throw error;
    } finally {
      // Another shopper's counts and generations since a switch: nothing of this write's is theirs.
      if (this.#session.shopperKey === shopper) {
        const left = (this.#writing.get(id) ?? 1) - 1;
        if (left > 0) this.#writing.set(id, left);
        else this.#writing.delete(id);
        // A read asked before this answer may have been computed before the write: it yields (#fetch).
        this.#generation.set(id, (this.#generation.get(id) ?? 0) + 1);
      }
    }
  }

  /** @param {string} id @param {boolean} liked */
  #set(id, liked) {
    const map = new Map(this.liked$.value);
    map.set(id, liked);
    this.liked$.next(map);
  }
}
