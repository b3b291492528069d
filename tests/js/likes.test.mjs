// Unit tests of prerender/static/sdk/likes.js `Likes` across the shopper's tabs (sdk/tabs.js): a like or an unlike
// the service took is told to the other tabs, whose state of that recipe follows; a refused one, another shopper's
// and a logged-out visitor's are not. Two Likes on one tests/js/support.mjs `ChannelHub`, each with a recording
// client double and a small session double (the members Likes reads).
import { test, describe } from "node:test";
import assert from "node:assert/strict";

import { Likes } from "../../prerender/static/sdk/likes.js";
import { RETURN_RELOAD_MS } from "../../prerender/static/sdk/tabs.js";
import { State } from "../../prerender/static/sdk/observable.js";
import { ApiError } from "../../prerender/static/sdk/http.js";
import { ChannelHub, deferred, FakePage, flush, supplierTabs } from "./support.mjs";

/** Session double: its shopper (a user unless told), as Likes reads it. */
class FakeSession {
  prefix = "svc";
  constructor(identity = { kind: "user", id: "u1", forbidProfiling: false }) {
    this.identity$ = new State(identity);
  }

  get isConnected() {
    return this.identity$.value?.kind === "user";
  }

  get shopperKey() {
    const identity = this.identity$.value;
    return identity ? `${identity.kind}:${identity.id}` : "";
  }
}

/** Two tabs' Likes on one channel; `refuse` makes a tab's writes fail with a 503. */
function twoTabs() {
  const hub = new ChannelHub();
  const tab = () => {
    const calls = [];
    const client = {
      refuse: false,
      request: async (method, path) => {
        calls.push(`${method} ${path}`);
        if (client.refuse) throw new ApiError({ title: "Unavailable", status: 503 });
        return { data: [] };
      },
    };
    const session = new FakeSession();
    const tabs = supplierTabs({ name: "_svc/tabs", open: hub.open, page: null, lifecycle: null });
    const likes = new Likes({ client, session, track: () => {}, tabs });
    return { likes, client, calls, session };
  };
  return { a: tab(), b: tab() };
}

describe("Likes and the shopper's other tabs", () => {
  test("a like and an unlike the service took are followed by the other tab, without a call of its own", async () => {
    const { a, b } = twoTabs();
    b.likes.seed("r1", false);
    await a.likes.like("r1");
    await flush();
    assert.equal(b.likes.liked$.value.get("r1"), true);
    await a.likes.unlike("r1");
    await flush();
    assert.equal(b.likes.liked$.value.get("r1"), false);
    assert.deepEqual(b.calls, []);
  });

  test("a like the service refused is not told", async () => {
    const { a, b } = twoTabs();
    b.likes.seed("r1", false);
    a.client.refuse = true;
    await assert.rejects(a.likes.like("r1"));
    await flush();
    assert.equal(b.likes.liked$.value.get("r1"), false);
  });

  test("another shopper's like is not this tab's", async () => {
    const { a, b } = twoTabs();
    b.session.identity$.next({ kind: "user", id: "u2", forbidProfiling: false });
    b.likes.seed("r1", false);
    await a.likes.like("r1");
    await flush();
    assert.equal(b.likes.liked$.value.get("r1"), false);
  });

  test("a read of the likes answered after another tab's like does not undo it", async () => {
    const { a, b } = twoTabs();
    let answer;
    b.client.request = (method, path) => {
      b.calls.push(`${method} ${path}`);
      return new Promise((resolve) => {
        answer = resolve;
      });
    };
    b.likes.load(["r1"]);
    await flush();
    await a.likes.like("r1");
    await flush();
    answer({ data: [] }); // read before the like reached the service
    await flush();
    assert.equal(b.likes.liked$.value.get("r1"), true);
  });
});

/** One tab's Likes whose reads wait until the test answers them (`answers`, in order). */
function heldReads() {
  const session = new FakeSession();
  const calls = [];
  /** @type {((value: unknown) => void)[]} */
  const answers = [];
  const client = {
    request: (method, path, options) => {
      calls.push(`${method} ${path} ${options?.query?.recipe_ids ?? ""}`.trim());
      return new Promise((resolve) => answers.push(resolve));
    },
  };
  const likes = new Likes({ client, session, track: () => {}, tabs: null });
  return { likes, session, calls, answers };
}

describe("Likes when the page's shopper changes", () => {
  test("a read answered after a logout and another login is the previous shopper's: not shown to the new one", async () => {
    const { likes, session, answers } = heldReads();
    likes.load(["r1", "r2"]);
    await flush();
    session.identity$.next(null); // user.reset()
    session.identity$.next({ kind: "user", id: "u2", forbidProfiling: false }); // an SPA's login
    likes.load(["r1", "r2"]);
    await flush();
    answers[0]({ data: ["r1", "r2"] }); // u1's likes, late
    await flush();
    assert.equal(likes.liked$.value.get("r1"), undefined);
    answers[1]({ data: [] }); // u2's
    await flush();
    assert.deepEqual([...likes.liked$.value], [["r1", false], ["r2", false]]);
  });

  test("a like answered after the shopper changed is told as the clicking shopper's, not the new one's", async () => {
    const { a, b } = twoTabs();
    let answer;
    a.client.request = () => new Promise((resolve) => {
      answer = resolve;
    });
    const click = a.likes.like("r1"); // u1 clicks
    for (const tab of [a, b]) tab.session.identity$.next({ kind: "user", id: "u2", forbidProfiling: false });
    b.likes.seed("r1", false); // u2 does not like it
    answer({});
    await click;
    await flush();
    assert.equal(b.likes.liked$.value.get("r1"), false);
  });

  test("a card inserted again asks nothing the service already answered for this shopper", async () => {
    const { likes, session, calls, answers } = heldReads();
    likes.load(["r1"]);
    await flush();
    answers[0]({ data: ["r1"] });
    await flush();
    likes.load(["r1"]); // the SPA inserts the same card again
    likes.load(["r1", "r2"]);
    await flush();
    assert.deepEqual(calls, ["GET /likes r1", "GET /likes r2"]);
    answers[1]({ data: [] });
    await flush();
    session.identity$.next({ kind: "user", id: "u2", forbidProfiling: false });
    await flush();
    assert.deepEqual(calls.at(-1), "GET /likes r1,r2"); // another shopper: what the page shows is asked again
    likes.load(["r1"]); // and a card inserted meanwhile asks nothing more
    await flush();
    assert.equal(calls.length, 3);
  });

  test("another user without a reload: the hearts are unknown, then that user's", async () => {
    const { likes, session, calls, answers } = heldReads();
    likes.load(["r1", "r2"]);
    await flush();
    answers[0]({ data: ["r1"] }); // u1 likes r1
    await flush();
    session.identity$.next({ kind: "user", id: "u2", forbidProfiling: false }); // an SPA's login as u2
    assert.deepEqual([...likes.liked$.value], []); // u1's like is not shown to u2
    await flush();
    assert.deepEqual(calls, ["GET /likes r1,r2", "GET /likes r1,r2"]);
    answers[1]({ data: ["r2"] });
    await flush();
    assert.deepEqual([...likes.liked$.value], [["r1", false], ["r2", true]]);
  });

  test("a logout without a reload: the hearts are unknown and nothing is asked until a user comes", async () => {
    const { likes, session, calls, answers } = heldReads();
    likes.load(["r1"]);
    await flush();
    answers[0]({ data: ["r1"] });
    await flush();
    session.identity$.next(null); // user.reset()
    session.identity$.next({ kind: "authless", id: "a1", forbidProfiling: false }); // the next visitor
    await flush();
    assert.deepEqual([...likes.liked$.value], []);
    assert.deepEqual(calls, ["GET /likes r1"]);
    session.identity$.next({ kind: "user", id: "u2", forbidProfiling: false }); // that visitor logs in
    await flush();
    assert.deepEqual(calls, ["GET /likes r1", "GET /likes r1"]);
  });

  test("cards inserted while their likes are asked for ask nothing more (a slow network)", async () => {
    const { likes, calls, answers } = heldReads();
    for (let i = 0; i < 5; i += 1) {
      likes.load(["r7"]);
      await flush();
    }
    assert.deepEqual(calls, ["GET /likes r7"]);
    answers[0](Promise.reject(new Error("offline")));
    await flush();
    likes.load(["r7"]); // failed: asked again
    await flush();
    assert.equal(calls.length, 2);
  });
});

describe("Likes of a page that comes back", () => {
  /** One tab whose page can be hidden and shown again; the service answers `likedIds` to every read. */
  function returningTab() {
    const clock = { now: 0 };
    const page = new FakePage();
    const service = {
      likedIds: ["r1"],
      write: /** @type {Promise<unknown> | null} */ (null),
      read: /** @type {Promise<unknown> | null} */ (null),
    };
    const reads = [];
    const client = {
      request: async (method, path, options) => {
        if (method === "GET") {
          reads.push(options.query.recipe_ids);
          return service.read ?? { data: service.likedIds };
        }
        return service.write ?? {};
      },
    };
    const tabs = supplierTabs({ name: "_svc/tabs", open: null, page, lifecycle: null, now: () => clock.now });
    const likes = new Likes({ client, session: new FakeSession(), track: () => {}, tabs });
    return { likes, page, clock, service, reads };
  }

  test("back after a minute or more, it asks again about the hearts it shows and follows the answer", async () => {
    const { likes, page, clock, service, reads } = returningTab();
    likes.load(["r1", "r2"]);
    await flush();
    assert.deepEqual(reads, ["r1,r2"]);
    assert.equal(likes.liked$.value.get("r1"), true);
    service.likedIds = ["r2"]; // liked and unliked on another device meanwhile
    page.hide();
    clock.now += RETURN_RELOAD_MS;
    page.show();
    await flush();
    assert.deepEqual(reads, ["r1,r2", "r1,r2"]);
    assert.equal(likes.liked$.value.get("r1"), false);
    assert.equal(likes.liked$.value.get("r2"), true);
  });

  test("back after less than a minute, it asks nothing", async () => {
    const { likes, page, clock, reads } = returningTab();
    likes.load(["r1"]);
    await flush();
    page.hide();
    clock.now += RETURN_RELOAD_MS - 1;
    page.show();
    await flush();
    assert.deepEqual(reads, ["r1"]);
  });

  test("a read asked while a write was pending yields to it, even when the write is answered first", async () => {
    const { likes, service, reads } = returningTab();
    likes.seed("r4", false);
    const write = deferred();
    service.write = write.promise;
    const liked = likes.like("r4");
    const read = deferred();
    service.read = read.promise;
    likes.load(["r4"]);
    await flush();
    write.resolve({});
    await liked;
    read.resolve({ data: [] }); // computed before the like was applied
    await flush();
    assert.deepEqual(reads, ["r4"]);
    assert.equal(likes.liked$.value.get("r4"), true);
  });

  test("a heart clicked here before is read again too", async () => {
    const { likes, page, clock, service, reads } = returningTab();
    likes.seed("r3", false);
    await likes.like("r3");
    service.likedIds = [];
    page.hide();
    clock.now += RETURN_RELOAD_MS;
    page.show();
    await flush();
    assert.deepEqual(reads, ["r3"]);
    assert.equal(likes.liked$.value.get("r3"), false); // unliked elsewhere meanwhile
  });

  test("a click whose write is not answered yet wins over the read", async () => {
    const { likes, page, clock, service, reads } = returningTab();
    likes.load(["r1"]);
    await flush();
    const write = deferred();
    service.write = write.promise;
    const unliked = likes.unlike("r1");
    page.hide();
    clock.now += RETURN_RELOAD_MS;
    page.show();
    await flush();
    assert.deepEqual(reads, ["r1", "r1"]); // answered "liked": the unlike is not applied yet
    assert.equal(likes.liked$.value.get("r1"), false);
    write.resolve({});
    await unliked;
    assert.equal(likes.liked$.value.get("r1"), false);
  });
});
