// Test peers are installed on demand by whichever test file needs one first, and test files run
// side by side: the install lock (spec/support/test-peers.ts) lets one process at a time into a
// peer's folder, and takes over a lock whose owner died.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, describe, it } from "node:test";
import { withInstallLock } from "../support/test-peers.js";

const scratch = mkdtempSync(join(tmpdir(), "keel-peer-lock-"));
after(() => rmSync(scratch, { recursive: true, force: true }));
const support = fileURLToPath(new URL("../support/test-peers.ts", import.meta.url));

/** A child process that takes the lock on `prefix`, writes "enter <n>", waits, writes "leave <n>". */
function holder(prefix: string, journal: string, n: number): Promise<number | null> {
  const script = `
    import { appendFileSync } from "node:fs";
    import { withInstallLock } from ${JSON.stringify(support)};
    await withInstallLock(${JSON.stringify(prefix)}, async () => {
      appendFileSync(${JSON.stringify(journal)}, "enter ${n}\\n");
      await new Promise((r) => setTimeout(r, 150));
      appendFileSync(${JSON.stringify(journal)}, "leave ${n}\\n");
    });`;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { stdio: ["ignore", "ignore", "inherit"] });
  return new Promise((resolve) => child.on("exit", resolve));
}

describe("the test-peer install lock", () => {
  it("lets one process at a time in: four processes' turns never overlap", async () => {
    const prefix = join(scratch, "one-at-a-time", "peer");
    const journal = join(scratch, "journal.txt");
    writeFileSync(journal, "");
    const codes = await Promise.all([1, 2, 3, 4].map((n) => holder(prefix, journal, n)));
    assert.deepEqual(codes, [0, 0, 0, 0]);
    const lines = readFileSync(journal, "utf8").trim().split("\n");
    assert.equal(lines.length, 8);
    for (let i = 0; i < lines.length; i += 2) {
      const who = lines[i]!.split(" ")[1];
      assert.deepEqual([lines[i], lines[i + 1]], [`enter ${who}`, `leave ${who}`], lines.join(" | "));
    }
  });

  it("takes over a lock whose owner process is gone, and removes the lock when done", async () => {
    const prefix = join(scratch, "abandoned", "peer");
    const dead = spawn(process.execPath, ["-e", ""]);
    const deadPid = dead.pid!;
    await new Promise((resolve) => dead.on("exit", resolve));
    mkdirSync(`${prefix}.lock`, { recursive: true });
    writeFileSync(join(`${prefix}.lock`, "pid"), String(deadPid));
    const ran = await withInstallLock(prefix, async () => "ran");
    assert.equal(ran, "ran");
    assert.throws(() => readFileSync(join(`${prefix}.lock`, "pid")), /ENOENT/);
  });
});
