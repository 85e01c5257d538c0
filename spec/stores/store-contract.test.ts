// The Store contract (store-contract.ts) against every implementation: the in-memory store as
// layers use it (synchronous answers) and the same store behind promises, the shape a shared
// store has, so the layers' asynchronous path is held to the same rules.
import { MemoryStore, type Store } from "../../lib/stores/index.js";
import { storeContract } from "./store-contract.js";

storeContract("MemoryStore", { create: (now) => new MemoryStore<unknown>({ now }) });

/** MemoryStore behind promises resolved on a later tick (interleaving concurrent calls). */
function promised(inner: Store<unknown>): Store<unknown> {
  const later = <T>(fn: () => T | Promise<T>): Promise<T> => new Promise((resolve) => setImmediate(() => resolve(fn())));
  return {
    get: (k) => later(() => inner.get(k)),
    set: (k, v, o) => later(() => inner.set(k, v, o)),
    add: (k, v, o) => later(() => inner.add(k, v, o)),
    update: (k, fn, o) => later(() => inner.update(k, fn, o)),
    delete: (k) => later(() => inner.delete(k)),
    deleteWhere: (test) => later(() => inner.deleteWhere(test)),
    clear: () => later(() => inner.clear()),
  };
}

storeContract("MemoryStore behind promises", { create: (now) => promised(new MemoryStore<unknown>({ now })) });
