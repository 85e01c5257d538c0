// lockDirectory: one holder per lock file, refused in the same process and for a live other
// process (with its pid), taken over from a dead one, released once; two lock files in one
// directory are independent.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { it } from "node:test";
import { DirectoryLockError, lockDirectory } from "../../lib/shared/dir-lock.js";

it("locks, refuses a second holder, takes over a dead owner's lock, and releases", async () => {
  const dir = mkdtempSync(join(tmpdir(), "keel-dir-lock-"));
  try {
    const release = await lockDirectory(dir, "a.lock");
    assert.equal(readFileSync(join(dir, "a.lock"), "utf8"), String(process.pid));
    await assert.rejects(lockDirectory(dir, "a.lock"), (e: unknown) => e instanceof DirectoryLockError && e.reason === "held-here");
    const other = await lockDirectory(dir, "b.lock");
    await release();
    await release();
    assert.equal(existsSync(join(dir, "a.lock")), false);
    await other();
    writeFileSync(join(dir, "a.lock"), String(process.ppid)); // a live process that is not this one
    await assert.rejects(lockDirectory(dir, "a.lock"), (e: unknown) => e instanceof DirectoryLockError && e.reason === "held" && e.pid === process.ppid);
    writeFileSync(join(dir, "a.lock"), "2147483646"); // no such process
    const taken = await lockDirectory(dir, "a.lock");
    assert.equal(readFileSync(join(dir, "a.lock"), "utf8"), String(process.pid));
    await taken();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
