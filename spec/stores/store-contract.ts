// The contract every `Store` implementation keeps (the in-memory one today, shared stores later):
// one suite, run against each implementation, as Hono runs one router suite against each router.
// Every call is awaited, so synchronous and promise-returning stores are held to the same rules.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Store } from "../../lib/stores/index.js";

export interface StoreUnderTest {
  /** A fresh, empty store whose TTLs run on `now` (ms). */
  create(now: () => number): Store<unknown>;
}

export function storeContract(name: string, subject: StoreUnderTest): void {
  describe(`Store contract: ${name}`, () => {
    const fresh = () => {
      let t = 1_000_000;
      const clock = { now: () => t, advance: (ms: number) => void (t += ms) };
      return { store: subject.create(clock.now), clock };
    };

    it("get answers undefined for a missing key and the value after set; set replaces", async () => {
      const { store } = fresh();
      assert.equal(await store.get("k"), undefined);
      await store.set("k", { n: 1 });
      assert.deepEqual(await store.get("k"), { n: 1 });
      await store.set("k", "two");
      assert.equal(await store.get("k"), "two");
    });

    it("keys are exact strings: no prefix, case or prototype confusion", async () => {
      const { store } = fresh();
      await store.set("a", 1);
      assert.equal(await store.get("A"), undefined);
      assert.equal(await store.get("a "), undefined);
      assert.equal(await store.get("__proto__"), undefined);
      assert.equal(await store.get("constructor"), undefined);
      await store.set("__proto__", "own");
      assert.equal(await store.get("__proto__"), "own");
    });

    it("an entry lives exactly ttlMs on the store's clock", async () => {
      const { store, clock } = fresh();
      await store.set("short", 1, { ttlMs: 1000 });
      await store.set("forever", 2);
      clock.advance(999);
      assert.equal(await store.get("short"), 1);
      clock.advance(1);
      assert.equal(await store.get("short"), undefined);
      assert.equal(await store.get("forever"), 2);
    });

    it("add inserts only when the key is absent or expired, and says whether it did", async () => {
      const { store, clock } = fresh();
      assert.equal(await store.add("k", "first", { ttlMs: 100 }), true);
      assert.equal(await store.add("k", "second"), false);
      assert.equal(await store.get("k"), "first");
      clock.advance(100);
      assert.equal(await store.add("k", "third"), true);
      assert.equal(await store.get("k"), "third");
    });

    it("add is atomic: of 100 concurrent adds of one key exactly one wins", async () => {
      const { store } = fresh();
      const results = await Promise.all(Array.from({ length: 100 }, (_, i) => store.add("claim", i)));
      assert.equal(results.filter((r) => r === true).length, 1);
      const winner = results.indexOf(true);
      assert.equal(await store.get("claim"), winner);
    });

    it("update reads the current value, writes what the updater returns, and deletes on undefined", async () => {
      const { store } = fresh();
      const bump = (v: unknown) => ({ n: ((v as { n: number } | undefined)?.n ?? 0) + 1 });
      assert.deepEqual(await store.update("c", bump), { n: 1 });
      assert.deepEqual(await store.update("c", bump), { n: 2 });
      assert.deepEqual(await store.get("c"), { n: 2 });
      assert.equal(await store.update("c", () => undefined), undefined);
      assert.equal(await store.get("c"), undefined);
    });

    it("update is atomic: 200 concurrent increments all count", async () => {
      const { store } = fresh();
      await Promise.all(Array.from({ length: 200 }, () => store.update("n", (v) => ((v as number | undefined) ?? 0) + 1)));
      assert.equal(await store.get("n"), 200);
    });

    it("update sees an expired entry as absent", async () => {
      const { store, clock } = fresh();
      await store.set("e", 41, { ttlMs: 10 });
      clock.advance(10);
      assert.equal(await store.update("e", (v) => (v === undefined ? "fresh" : "stale")), "fresh");
    });

    it("delete says whether a live entry was removed", async () => {
      const { store, clock } = fresh();
      await store.set("d", 1);
      assert.equal(await store.delete("d"), true);
      assert.equal(await store.delete("d"), false);
      assert.equal(await store.get("d"), undefined);
      await store.set("gone", 1, { ttlMs: 1 });
      clock.advance(1);
      assert.equal(await store.delete("gone"), false);
    });

    it("deleteWhere removes the live entries that match and counts them; clear empties the store", async () => {
      const { store, clock } = fresh();
      await store.set("/users/1", ["users"]);
      await store.set("/users/2", ["users", "vip"]);
      await store.set("/projects", ["projects"]);
      await store.set("/old", ["users"], { ttlMs: 5 });
      clock.advance(5);
      assert.equal(await store.deleteWhere((_k, tags) => (tags as string[]).includes("users")), 2);
      assert.deepEqual(await store.get("/projects"), ["projects"]);
      await store.clear();
      assert.equal(await store.get("/projects"), undefined);
    });
  });
}
