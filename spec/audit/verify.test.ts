// verifyAuditLog() and `audit verify`: an intact log passes; each kind of tampering is reported
// at the file and line where it shows (modified, deleted and reordered records, deleted and
// reordered files, a truncated line, a line that is not JSON, a cut-off tail against an anchor),
// and the command's exit codes are 0 intact, 1 tampered, 2 usage.
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync, truncateSync, unlinkSync, writeFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { auditLog, fileAuditSink, memoryAuditSink, runAuditCommand, verifyAuditLog, type AuditVerifyProblem } from "../../lib/audit/index.js";

const scratch = mkdtempSync(join(tmpdir(), "keel-audit-verify-"));
after(() => rmSync(scratch, { recursive: true, force: true }));
const clock = (): Date => new Date("2024-05-01T12:00:00.000Z");
const pristine = join(scratch, "pristine");
let copies = 0;

/** 9 records, 3 per file: audit-000001..3.jsonl. */
before(async () => {
  const probe = memoryAuditSink();
  await auditLog({ sink: probe, clock }).record({ action: "doc.edit", outcome: "success", target: "doc:0" });
  const lineBytes = Buffer.byteLength(probe.lines()[0]!) + 1;
  const log = auditLog({ sink: fileAuditSink({ dir: pristine, maxBytes: lineBytes * 3 }), clock });
  for (let i = 1; i <= 9; i++) await log.record({ action: "doc.edit", outcome: "success", target: `doc:${i}` });
  await log.close();
});

function copy(): string {
  const dir = join(scratch, `copy${copies++}`);
  cpSync(pristine, dir, { recursive: true });
  return dir;
}

const F1 = "audit-000001.jsonl";
const F2 = "audit-000002.jsonl";
const F3 = "audit-000003.jsonl";

function lines(dir: string, name: string): string[] {
  return readFileSync(join(dir, name), "utf8").slice(0, -1).split("\n");
}

function rewrite(dir: string, name: string, edit: (lines: string[]) => string[]): void {
  writeFileSync(join(dir, name), edit(lines(dir, name)).join("\n") + "\n");
}

async function problem(dir: string): Promise<AuditVerifyProblem> {
  const result = await verifyAuditLog(dir);
  assert.equal(result.ok, false, "tampering is detected");
  return result as AuditVerifyProblem;
}

describe("verifyAuditLog()", () => {
  it("reports an intact log with its record and file counts", async () => {
    const result = await verifyAuditLog(pristine);
    assert.equal(result.ok, true);
    assert.equal(result.ok && result.records, 9);
    assert.equal(result.ok && result.files, 3);
    assert.equal(result.ok && result.head.seq, 9);
  });

  it("finds a modified record at its own line (hash mismatch)", async () => {
    const dir = copy();
    rewrite(dir, F2, (l) => l.map((line, i) => (i === 1 ? line.replace('"outcome":"success"', '"outcome":"denied"') : line)));
    const p = await problem(dir);
    assert.deepEqual([p.file, p.line, p.seq], [F2, 2, 5]);
    assert.match(p.reason, /^hash mismatch/);
  });

  it("finds a modified last line of a file through the next file's first record", async () => {
    const dir = copy();
    rewrite(dir, F1, (l) => l.map((line, i) => (i === 2 ? line.replace("doc:3", "doc:X") : line)));
    const p = await problem(dir);
    assert.deepEqual([p.file, p.line, p.seq], [F1, 3, 3]);
    assert.match(p.reason, /^hash mismatch/);
  });

  it("finds a record whose prev was rewritten at that record, not its predecessor", async () => {
    const dir = copy();
    rewrite(dir, F2, (l) => l.map((line, i) => (i === 0 ? line.replace(/"prev":"[0-9a-f]{64}"/, `"prev":"${"a".repeat(64)}"`) : line)));
    const p = await problem(dir);
    assert.deepEqual([p.file, p.line, p.seq], [F2, 1, 4]);
    assert.match(p.reason, /^hash mismatch/);
  });

  it("finds a deleted record (seq gap) at the line that follows it", async () => {
    const dir = copy();
    rewrite(dir, F2, (l) => [l[0]!, l[2]!]);
    const p = await problem(dir);
    assert.deepEqual([p.file, p.line, p.seq], [F2, 2, 6]);
    assert.match(p.reason, /^seq gap: expected 5, found 6 \(a record was deleted\)/);
  });

  it("finds a deleted first record", async () => {
    const dir = copy();
    rewrite(dir, F1, (l) => l.slice(1));
    const p = await problem(dir);
    assert.deepEqual([p.file, p.line, p.seq], [F1, 1, 2]);
    assert.match(p.reason, /^seq gap/);
  });

  it("finds swapped records", async () => {
    const dir = copy();
    rewrite(dir, F3, (l) => [l[1]!, l[0]!, l[2]!]);
    const p = await problem(dir);
    assert.deepEqual([p.file, p.line, p.seq], [F3, 1, 8]);
    assert.match(p.reason, /^seq gap/);
  });

  it("finds a record renumbered to close the gap after a deletion (chain break)", async () => {
    const dir = copy();
    rewrite(dir, F2, (l) => [l[0]!, l[2]!.replace('"seq":6', '"seq":5')]);
    const p = await problem(dir);
    assert.equal(p.ok, false);
    assert.match(p.reason, /^hash mismatch/);
    assert.equal(p.file, F2);
  });

  it("finds a deleted file in the middle", async () => {
    const dir = copy();
    unlinkSync(join(dir, F2));
    const p = await problem(dir);
    assert.deepEqual([p.file, p.line, p.seq], [F3, 0, null]);
    assert.match(p.reason, /audit-000002\.jsonl is missing/);
  });

  it("finds a deleted first file", async () => {
    const dir = copy();
    unlinkSync(join(dir, F1));
    const p = await problem(dir);
    assert.deepEqual([p.file, p.line], [F2, 0]);
    assert.match(p.reason, /audit-000001\.jsonl is missing/);
  });

  it("finds a deleted middle file whose successors were renamed to close the gap", async () => {
    const dir = copy();
    unlinkSync(join(dir, F2));
    renameSync(join(dir, F3), join(dir, F2));
    const p = await problem(dir);
    assert.deepEqual([p.file, p.line, p.seq], [F2, 1, 7]);
    assert.match(p.reason, /^seq gap: expected 4, found 7 \(3 records were deleted\)/);
  });

  it("finds reordered files", async () => {
    const dir = copy();
    renameSync(join(dir, F1), join(dir, "tmp"));
    renameSync(join(dir, F2), join(dir, F1));
    renameSync(join(dir, "tmp"), join(dir, F2));
    const p = await problem(dir);
    assert.deepEqual([p.file, p.line, p.seq], [F1, 1, 4]);
    assert.match(p.reason, /^seq gap: expected 1, found 4/);
  });

  it("finds a truncated last line", async () => {
    const dir = copy();
    truncateSync(join(dir, F3), statSync(join(dir, F3)).size - 10);
    const p = await problem(dir);
    assert.deepEqual([p.file, p.line, p.seq], [F3, 3, null]);
    assert.match(p.reason, /^truncated line/);
  });

  it("finds a truncated line in an older file", async () => {
    const dir = copy();
    truncateSync(join(dir, F1), statSync(join(dir, F1)).size - 1);
    const p = await problem(dir);
    assert.deepEqual([p.file, p.line], [F1, 3]);
    assert.match(p.reason, /^truncated line/);
  });

  it("finds a line that is not JSON, and a JSON line that is not a record", async () => {
    const dir = copy();
    rewrite(dir, F2, (l) => [l[0]!, "garbage {", l[2]!]);
    const p = await problem(dir);
    assert.deepEqual([p.file, p.line, p.seq], [F2, 2, null]);
    assert.match(p.reason, /^not JSON/);

    const other = copy();
    rewrite(other, F3, (l) => [l[0]!, l[1]!, '{"seq":"9"}']);
    const q = await problem(other);
    assert.deepEqual([q.file, q.line, q.seq], [F3, 3, null]);
    assert.match(q.reason, /^not a record/);
  });

  it("finds an inserted blank line", async () => {
    const dir = copy();
    rewrite(dir, F1, (l) => [l[0]!, "", l[1]!, l[2]!]);
    const p = await problem(dir);
    assert.deepEqual([p.file, p.line], [F1, 2]);
  });

  it("with an anchor, finds a removed tail and an edited last record", async () => {
    const intact = await verifyAuditLog(pristine);
    assert.ok(intact.ok);
    const anchor = intact.head;
    assert.equal((await verifyAuditLog(pristine, { anchor })).ok, true);

    const cut = copy();
    rewrite(cut, F3, (l) => l.slice(0, 2));
    assert.equal((await verifyAuditLog(cut)).ok, true, "without an anchor a removed tail is invisible");
    const p = (await verifyAuditLog(cut, { anchor })) as AuditVerifyProblem;
    assert.equal(p.ok, false);
    assert.match(p.reason, /^records missing: the anchored seq 9/);

    const edited = copy();
    rewrite(edited, F3, (l) => [l[0]!, l[1]!, l[2]!.replace("doc:9", "doc:0")]);
    const q = (await verifyAuditLog(edited, { anchor })) as AuditVerifyProblem;
    assert.deepEqual([q.ok, q.file, q.line, q.seq], [false, F3, 3, 9]);
  });

  it("ignores files that are not the log's (the lock, torn-line files)", async () => {
    const dir = copy();
    writeFileSync(join(dir, "audit-000003.jsonl.torn-4-1"), "{");
    writeFileSync(join(dir, "audit-3.jsonl"), "x\n");
    writeFileSync(join(dir, "audit.lock"), "1");
    assert.equal((await verifyAuditLog(dir)).ok, true);
  });
});

describe("runAuditCommand()", () => {
  function run(argv: string[]) {
    let stdout = "";
    let stderr = "";
    return runAuditCommand(argv, { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s) }).then((code) => ({ code, stdout, stderr }));
  }

  it("exits 0 with a one-line verdict for an intact log", async () => {
    const r = await run(["verify", pristine]);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^audit log intact: 9 records in 3 files, head 9:[0-9a-f]{64}\n$/);
    assert.equal(r.stderr, "");
    assert.equal((await run(["audit", "verify", pristine])).code, 0, "a leading 'audit' is accepted");
  });

  it("exits 1 naming file, line and seq for a tampered log", async () => {
    const dir = copy();
    rewrite(dir, F2, (l) => [l[0]!, l[2]!]);
    const r = await run(["verify", dir]);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /^audit log TAMPERED: audit-000002\.jsonl line 2 \(seq 6\): seq gap/);
    assert.equal(r.stdout.split("\n").length, 2, "one line");
  });

  it("checks an anchor given with --anchor", async () => {
    const intact = await verifyAuditLog(pristine);
    assert.ok(intact.ok);
    const cut = copy();
    rewrite(cut, F3, (l) => l.slice(0, 2));
    assert.equal((await run(["verify", "--anchor", `${intact.head.seq}:${intact.head.hash}`, cut])).code, 1);
    assert.equal((await run(["verify", "--anchor", `${intact.head.seq}:${intact.head.hash}`, pristine])).code, 0);
    assert.equal((await run(["verify", "--anchor", "9:abc", pristine])).code, 2);
  });

  it("exits 2 on usage errors", async () => {
    for (const argv of [[], ["check", pristine], ["verify"], ["verify", pristine, pristine], ["verify", "--fast", pristine], ["verify", join(scratch, "missing")]]) {
      const r = await run(argv);
      assert.equal(r.code, 2, JSON.stringify(argv));
      assert.match(r.stderr, /usage: audit verify/);
      assert.equal(r.stdout, "");
    }
    const file = join(pristine, F1);
    assert.equal((await run(["verify", file])).code, 2, "a file is not a log directory");
    const help = await run(["--help"]);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^usage: audit verify/);
  });
});
