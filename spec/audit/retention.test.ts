// Audit retention (issue 32 item 7): fileAuditSink deletes the oldest files past maxTotalBytes or
// maxAgeDays, after recording an audit.retention record that vouches for the first record kept;
// `audit verify` accepts a log that starts there, and still reports files or records deleted
// outside retention, and an edited start.
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { auditLog, fileAuditSink, memoryAuditSink, runAuditCommand, verifyAuditLog, type AuditVerifyProblem } from "../../lib/audit/index.js";

const scratch = mkdtempSync(join(tmpdir(), "keel-audit-retention-"));
after(() => rmSync(scratch, { recursive: true, force: true }));
const clock = (): Date => new Date("2024-05-01T12:00:00.000Z");
let lineBytes = 0;
let dirs = 0;
const fresh = (): string => join(scratch, `d${dirs++}`);
const logFiles = (dir: string): string[] => readdirSync(dir).filter((f) => /^audit-\d+\.jsonl$/.test(f)).sort();
const totalBytes = (dir: string): number => logFiles(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
const records = (dir: string): Array<Record<string, any>> => logFiles(dir).flatMap((f) => readFileSync(join(dir, f), "utf8").trim().split("\n")).map((l) => JSON.parse(l));

before(async () => {
  const probe = memoryAuditSink();
  await auditLog({ sink: probe, clock }).record({ action: "doc.edit", outcome: "success", target: "doc:10" });
  lineBytes = Buffer.byteLength(probe.lines()[0]!) + 1;
});

async function write(dir: string, n: number, sink: Parameters<typeof fileAuditSink>[0]): Promise<void> {
  const log = auditLog({ sink: fileAuditSink(sink), clock });
  for (let i = 0; i < n; i++) await log.record({ action: "doc.edit", outcome: "success", target: `doc:${10 + i}` });
  await log.close();
}

describe("audit retention by size", () => {
  it("deletes the oldest files past maxTotalBytes, records why, and the kept log verifies", async () => {
    const dir = fresh();
    const maxBytes = lineBytes * 3;
    await write(dir, 60, { dir, maxBytes, maxTotalBytes: maxBytes * 4 });
    const files = logFiles(dir);
    assert.notEqual(files[0], "audit-000001.jsonl", "old files were deleted");
    // A retention record is longer than a doc.edit one: allow one file's worth over.
    assert.ok(totalBytes(dir) <= maxBytes * 5, `${totalBytes(dir)} bytes kept`);
    const retention = records(dir).filter((r) => r.action === "audit.retention");
    assert.ok(retention.length >= 1);
    assert.equal(retention.at(-1)!.metadata.reason, "size");
    assert.equal(retention.at(-1)!.metadata.first_kept_file, files[0]);
    const result = await verifyAuditLog(dir);
    assert.equal(result.ok, true, JSON.stringify(result));
    assert.ok(result.ok && result.firstSeq > 1 && result.head.seq > 60);
    // A restarted log continues the chain, and it still verifies.
    await write(dir, 5, { dir, maxBytes, maxTotalBytes: maxBytes * 4 });
    assert.equal((await verifyAuditLog(dir)).ok, true);
    const out: string[] = [];
    assert.equal(await runAuditCommand(["audit", "verify", dir], { stdout: (s) => out.push(s) }), 0);
    assert.match(out.join(""), /^audit log intact: \d+ records from seq \d+ \(older ones deleted by retention\) in \d+ files, head \d+:[0-9a-f]{64}\n$/);
  });

  it("keeps everything under the default (1 GiB) and refuses a total below one file", async () => {
    const dir = fresh();
    await write(dir, 12, { dir, maxBytes: lineBytes * 3 });
    assert.equal(logFiles(dir)[0], "audit-000001.jsonl");
    assert.throws(() => fileAuditSink({ dir, maxBytes: 1000, maxTotalBytes: 999 }), /maxTotalBytes must be an integer of at least maxBytes/);
    assert.throws(() => fileAuditSink({ dir, maxAgeDays: 0 }), /maxAgeDays must be a positive number/);
  });
});

describe("audit retention by age", () => {
  it("deletes files last written more than maxAgeDays ago when the log opens", async () => {
    const dir = fresh();
    await write(dir, 9, { dir, maxBytes: lineBytes * 3 });
    assert.deepEqual(logFiles(dir), ["audit-000001.jsonl", "audit-000002.jsonl", "audit-000003.jsonl"]);
    const old = new Date(Date.now() - 40 * 24 * 3600 * 1000);
    for (const f of ["audit-000001.jsonl", "audit-000002.jsonl"]) utimesSync(join(dir, f), old, old);
    const log = auditLog({ sink: fileAuditSink({ dir, maxBytes: lineBytes * 3, maxAgeDays: 30 }), clock });
    await log.open();
    await log.close();
    assert.deepEqual(logFiles(dir).slice(0, 1), ["audit-000003.jsonl"]);
    const retention = records(dir).filter((r) => r.action === "audit.retention");
    assert.deepEqual(
      retention.map((r) => [r.metadata.reason, r.metadata.deleted_files, r.metadata.first_deleted, r.metadata.last_deleted, r.metadata.first_kept_seq]),
      [["age", 2, "audit-000001.jsonl", "audit-000002.jsonl", 7]],
    );
    const result = await verifyAuditLog(dir);
    assert.equal(result.ok, true, JSON.stringify(result));
    assert.equal(result.ok && result.firstSeq, 7);
    // An anchor from before the retention cannot be checked any more, and says so.
    const stale = await verifyAuditLog(dir, { anchor: { seq: 2, hash: "a".repeat(64) } });
    assert.equal(stale.ok, false);
    assert.match((stale as AuditVerifyProblem).reason, /^anchor not checkable: seq 2 was deleted by retention/);
  });
});

describe("tampering after retention is still detected", () => {
  let pruned = "";
  before(async () => {
    pruned = fresh();
    await write(pruned, 30, { dir: pruned, maxBytes: lineBytes * 3, maxTotalBytes: lineBytes * 3 * 4 });
    assert.equal((await verifyAuditLog(pruned)).ok, true);
  });
  const copy = (): string => {
    const dir = fresh();
    cpSync(pruned, dir, { recursive: true });
    return dir;
  };
  const problem = async (dir: string): Promise<AuditVerifyProblem> => {
    const r = await verifyAuditLog(dir);
    assert.equal(r.ok, false, "tampering is detected");
    return r as AuditVerifyProblem;
  };

  it("one more leading file deleted", async () => {
    const dir = copy();
    unlinkSync(join(dir, logFiles(dir)[0]!));
    assert.match((await problem(dir)).reason, /no audit\.retention record vouches for where the log now starts/);
  });

  it("the first records of the first kept file deleted", async () => {
    const dir = copy();
    const first = join(dir, logFiles(dir)[0]!);
    writeFileSync(first, readFileSync(first, "utf8").split("\n").slice(1).join("\n"));
    assert.match((await problem(dir)).reason, /no audit\.retention record vouches/);
  });

  it("the first kept record's prev edited", async () => {
    const dir = copy();
    const first = join(dir, logFiles(dir)[0]!);
    const text = readFileSync(first, "utf8");
    const prev = /"prev":"([0-9a-f]{64})"/.exec(text)![1]!;
    writeFileSync(first, text.replace(prev, "0".repeat(64)));
    const p = await problem(dir);
    assert.match(p.reason, /hash mismatch|no audit\.retention record vouches/);
  });

  it("a retention record edited to vouch for another start", async () => {
    const dir = copy();
    for (const f of logFiles(dir)) {
      const text = readFileSync(join(dir, f), "utf8");
      if (text.includes('"audit.retention"')) writeFileSync(join(dir, f), text.replace(/"first_kept_seq":(\d+)/g, (_m, n: string) => `"first_kept_seq":${Number(n) + 3}`));
    }
    assert.equal((await verifyAuditLog(dir)).ok, false);
  });
});
