// Unit tests of prerender/static/sdk/likes.js `Likes` across the shopper's tabs (sdk/tabs.js): a like or an unlike
// the service took is told to the other tabs, whose state of that recipe follows; a refused one, another shopper's
// and a logged-out visitor's are not. Two Likes on one tests/js/support.mjs `ChannelHub`, each with a recording
// client double and a small session double (the members Likes reads).
import { test, describe } from "node:test";
import assert from "node:assert/strict";

import { Likes } from "../../prerender/static/sdk/likes.js";
import { Tabs } from "../../prerender/static/sdk/tabs.js";
import { State } from "../../prerender/static/sdk/observable.js";
import { ApiError } from "../../prerender/static/sdk/http.js";
import { ChannelHub, flush } from "./support.mjs";

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
    const tabs = new Tabs({ name: "_svc/tabs", open: hub.open, page: null, lifecycle: null });
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
