// The JobStore contract (job-store-contract.ts) against every implementation. Durability of the
// journal store (reopen, torn lines, checksums, compaction, fsync, locking) is in file-store.test.ts.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "../../lib/index.js";
import { FileJobStore, MemoryJobStore } from "../../lib/jobs/index.js";
import { jobStoreContract } from "./job-store-contract.js";

jobStoreContract("MemoryJobStore", { create: () => new MemoryJobStore() });

jobStoreContract("FileJobStore", {
  async create(after) {
    const dir = await mkdtemp(join(tmpdir(), "keel-jobs-contract-"));
    after(() => rm(dir, { recursive: true, force: true }));
    return new FileJobStore({ dir, logger: silentLogger });
  },
});
