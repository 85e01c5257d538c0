// The audit log on files: records chained by SHA-256 across rotated files, seq without gaps,
// concurrent record() calls kept in call order, a restart continuing the chain, a torn last line
// moved aside and recorded (never chained over), one writer per directory, and the memory sink.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { auditLog, fileAuditSink, GENESIS_HASH, memoryAuditSink, verifyAuditLog, type AuditLog, type TornLineReport } from "../../lib/audit/index.js";

const scratch = mkdtempSync(join(tmpdir(), "keel-audit-"));
after(() => rmSync(scratch, { recursive: true, force: true }));
let dirs = 0;
const freshDir = (): string => join(scratch, `log${dirs++}`);

const FIXED = new Date("2024-05-01T12:00:00.000Z");
const clock = (): Date => FIXED;
const sha256 = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex");

function linesOf(dir: string, name: string): string[] {
  const text = readFileSync(join(dir, name), "utf8");
  assert.ok(text.endsWith("\n"), `${name} ends with a line end`);
  return text.slice(0, -1).split("\n");
}

function logFiles(dir: string): string[] {
  return readdirSync(dir).filter((n) => /^audit-\d{6}\.jsonl$/.test(n)).sort();
}

async function writeEvents(log: AuditLog, n: number, from = 0): Promise<void> {
  for (let i = from; i < from + n; i++) await log.record({ action: "user.update", outcome: "success", target: `user:${i}` });
}

describe("auditLog() with a file sink", () => {
  it("writes one JSON object per line, keys in order, the first chained to 64 zeros and each next to the previous line's bytes", async () => {
    const dir = freshDir();
    const log = auditLog({ sink: fileAuditSink({ dir }), clock });
    const first = await log.record({ action: "user.create", outcome: "success", target: "user:1", metadata: { plan: "pro" } });
    await log.record({ action: "user.delete", outcome: "denied", target: "user:1" });
    await log.close();
    const lines = linesOf(dir, "audit-000001.jsonl");
    assert.equal(lines.length, 2);
    assert.equal(
      lines[0],
      JSON.stringify({ seq: 1, time: "2024-05-01T12:00:00.000Z", action: "user.create", outcome: "success", actor: null, target: "user:1", request_id: null, route: null, method: null, client_address: null, metadata: { plan: "pro" }, prev: GENESIS_HASH }),
    );
    assert.equal(first.seq, 1);
    assert.equal(first.prev, GENESIS_HASH);
    const second = JSON.parse(lines[1]!);
    assert.equal(second.seq, 2);
    assert.equal(second.prev, sha256(lines[0]!));
    assert.deepEqual(await verifyAuditLog(dir), { ok: true, records: 2, files: 1, head: { seq: 2, hash: sha256(lines[1]!) }, firstSeq: 1 });
  });

  it("rotates when the next line would pass maxBytes (a file of exactly maxBytes is allowed) and chains across files", async () => {
    const dir = freshDir();
    // Every line is the same length (fixed clock, one-digit seq and target), so the limit can be exact.
    const probe = memoryAuditSink();
    const p = auditLog({ sink: probe, clock });
    await p.record({ action: "a.b", outcome: "success", target: "t0" });
    const lineBytes = Buffer.byteLength(probe.lines()[0]!) + 1;

    const log = auditLog({ sink: fileAuditSink({ dir, maxBytes: lineBytes * 2 }), clock });
    for (let i = 0; i < 5; i++) await log.record({ action: "a.b", outcome: "success", target: `t${i}` });
    await log.close();
    assert.deepEqual(logFiles(dir), ["audit-000001.jsonl", "audit-000002.jsonl", "audit-000003.jsonl"]);
    assert.equal(statSync(join(dir, "audit-000001.jsonl")).size, lineBytes * 2, "limit: two lines fill the file exactly");
    assert.equal(statSync(join(dir, "audit-000003.jsonl")).size, lineBytes);
    const last1 = linesOf(dir, "audit-000001.jsonl")[1]!;
    const first2 = JSON.parse(linesOf(dir, "audit-000002.jsonl")[0]!);
    assert.equal(first2.seq, 3);
    assert.equal(first2.prev, sha256(last1), "the new file's first record chains to the previous file's last line");
    const result = await verifyAuditLog(dir);
    assert.equal(result.ok, true);
    assert.equal(result.ok && result.records, 5);
    assert.equal(result.ok && result.files, 3);
  });

  it("limit + 1: with maxBytes one byte short of two lines, each line gets its own file", async () => {
    const dir = freshDir();
    const probe = memoryAuditSink();
    await auditLog({ sink: probe, clock }).record({ action: "a.b", outcome: "success", target: "t0" });
    const lineBytes = Buffer.byteLength(probe.lines()[0]!) + 1;
    const log = auditLog({ sink: fileAuditSink({ dir, maxBytes: lineBytes * 2 - 1 }), clock });
    for (let i = 0; i < 3; i++) await log.record({ action: "a.b", outcome: "success", target: `t${i}` });
    await log.close();
    assert.deepEqual(logFiles(dir), ["audit-000001.jsonl", "audit-000002.jsonl", "audit-000003.jsonl"]);
    // A line longer than maxBytes still goes out, alone in its file.
    const tiny = freshDir();
    const small = auditLog({ sink: fileAuditSink({ dir: tiny, maxBytes: 10 }), clock });
    await writeEvents(small, 2);
    await small.close();
    assert.deepEqual(logFiles(tiny), ["audit-000001.jsonl", "audit-000002.jsonl"]);
    assert.equal((await verifyAuditLog(tiny)).ok, true);
  });

  it("keeps call order and seq for concurrent record() calls (one writer, batched)", async () => {
    const dir = freshDir();
    const log = auditLog({ sink: fileAuditSink({ dir, maxBytes: 4096, fsync: "always" }), clock });
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => log.record({ action: "item.touch", outcome: "success", target: `item:${i}` })));
    await log.close();
    assert.deepEqual(results.map((r) => r.seq), Array.from({ length: 200 }, (_, i) => i + 1));
    const lines = logFiles(dir).flatMap((name) => linesOf(dir, name));
    assert.equal(lines.length, 200);
    lines.forEach((line, i) => {
      const record = JSON.parse(line);
      assert.equal(record.seq, i + 1);
      assert.equal(record.target, `item:${i}`);
      assert.equal(record.prev, i === 0 ? GENESIS_HASH : sha256(lines[i - 1]!));
    });
    assert.ok(logFiles(dir).length > 1, "the batch crossed rotations");
    assert.equal((await verifyAuditLog(dir)).ok, true);
  });

  it("continues the chain after a restart, from the newest file's last line", async () => {
    const dir = freshDir();
    const first = auditLog({ sink: fileAuditSink({ dir, maxBytes: 600 }), clock });
    await writeEvents(first, 4);
    await first.close();
    const before = logFiles(dir);
    const lastBefore = linesOf(dir, before[before.length - 1]!).at(-1)!;
    const second = auditLog({ sink: fileAuditSink({ dir, maxBytes: 600 }), clock });
    const next = await second.record({ action: "user.update", outcome: "success", target: "after-restart" });
    await second.close();
    assert.equal(next.seq, 5);
    assert.equal(next.prev, sha256(lastBefore));
    const result = await verifyAuditLog(dir);
    assert.equal(result.ok, true);
    assert.equal(result.ok && result.records, 5);
  });

  it("moves a torn last line aside on opening, records audit.recovered and keeps the log verifiable", async () => {
    const dir = freshDir();
    const first = auditLog({ sink: fileAuditSink({ dir }), clock });
    await writeEvents(first, 3);
    await first.close();
    const intactLast = linesOf(dir, "audit-000001.jsonl")[2]!;
    const torn = '{"seq":4,"time":"2024-05-01T12:00:00.000Z","act';
    appendFileSync(join(dir, "audit-000001.jsonl"), torn); // a crash mid-write
    assert.equal((await verifyAuditLog(dir)).ok, false, "before recovery the torn line is reported");

    const reports: TornLineReport[] = [];
    const second = auditLog({ sink: fileAuditSink({ dir }), clock, onTornLine: (r) => reports.push(r) });
    const next = await second.record({ action: "user.update", outcome: "success", target: "x" });
    await second.close();
    assert.equal(reports.length, 1);
    assert.equal(reports[0]!.file, "audit-000001.jsonl");
    assert.equal(reports[0]!.line, 4);
    assert.equal(reports[0]!.bytes, Buffer.byteLength(torn));
    assert.equal(readFileSync(join(dir, reports[0]!.savedAs), "utf8"), torn);

    const lines = linesOf(dir, "audit-000001.jsonl");
    assert.equal(lines.length, 5);
    const recovered = JSON.parse(lines[3]!);
    assert.equal(recovered.seq, 4);
    assert.equal(recovered.action, "audit.recovered");
    assert.equal(recovered.outcome, "failure");
    assert.equal(recovered.prev, sha256(intactLast), "chained to the last complete line, not the torn one");
    assert.deepEqual(recovered.metadata, { file: "audit-000001.jsonl", line: 4, torn_bytes: Buffer.byteLength(torn), saved_as: reports[0]!.savedAs });
    assert.equal(next.seq, 5);
    const result = await verifyAuditLog(dir);
    assert.equal(result.ok, true);
    assert.equal(result.ok && result.records, 5);
  });

  it("refuses to continue when the newest file's last line is not a record", async () => {
    const dir = freshDir();
    const first = auditLog({ sink: fileAuditSink({ dir }), clock });
    await writeEvents(first, 2);
    await first.close();
    appendFileSync(join(dir, "audit-000001.jsonl"), "not json\n");
    const second = auditLog({ sink: fileAuditSink({ dir }), clock });
    await assert.rejects(second.record({ action: "a.b", outcome: "success" }), { name: "AuditLogOpenError", message: /line 3 .* is not an audit record/ });
    await assert.rejects(second.record({ action: "a.b", outcome: "success" }), { name: "AuditLogOpenError" });
    await second.close();
    assert.equal(linesOf(dir, "audit-000001.jsonl").length, 3, "nothing was written");
  });

  it("allows one writer per directory", async () => {
    const dir = freshDir();
    const first = auditLog({ sink: fileAuditSink({ dir }), clock });
    await first.open();
    const second = auditLog({ sink: fileAuditSink({ dir }), clock });
    await assert.rejects(second.open(), /already open for writing/);
    await first.close();
    await second.close();
    // A lock left by a process that no longer exists is taken over.
    writeFileSync(join(dir, "audit.lock"), "2147483646");
    const third = auditLog({ sink: fileAuditSink({ dir }), clock });
    await third.record({ action: "a.b", outcome: "success" });
    await third.close();
    assert.equal(readdirSync(dir).includes("audit.lock"), false, "close releases the lock");
  });

  it("rejects bad events without breaking the chain, and records after close", async () => {
    const sink = memoryAuditSink();
    const log = auditLog({ sink, clock });
    await assert.rejects(log.record({ action: "", outcome: "success" }), TypeError);
    await assert.rejects(log.record({ action: "has space", outcome: "success" }), TypeError);
    await assert.rejects(log.record({ action: "a.b", outcome: "maybe" as "success" }), TypeError);
    await assert.rejects(log.record({ action: "a.b", outcome: "success", time: new Date(Number.NaN) }), RangeError);
    const ok = await log.record({ action: "a.b", outcome: "success" });
    assert.equal(ok.seq, 1);
    await log.close();
    await assert.rejects(log.record({ action: "a.b", outcome: "success" }), /closed/);
    assert.equal(sink.lines().length, 1);
  });

  it("records an oversized event with its metadata replaced by a truncation note", async () => {
    const sink = memoryAuditSink();
    const log = auditLog({ sink, clock, maxRecordBytes: 1024 });
    await log.record({ action: "a.b", outcome: "success", metadata: { note: "x".repeat(400) } });
    await log.record({ action: "a.b", outcome: "success", metadata: { note: "x".repeat(1000) } });
    const [fits, big] = sink.lines().map((l) => JSON.parse(l));
    assert.equal(fits.metadata.note.length, 400);
    assert.equal(big.metadata.truncated, true);
    assert.ok(big.metadata.bytes > 1024);
  });

  it("fails every later record() after a failed write (the file's end is unknown until reopened)", async () => {
    const sink = memoryAuditSink();
    let failWrites = false;
    const failing = { ...sink, append: (lines: readonly string[]) => (failWrites ? Promise.reject(new Error("disk full")) : sink.append(lines)) };
    const log = auditLog({ sink: failing, clock });
    await log.record({ action: "a.b", outcome: "success" });
    failWrites = true;
    await assert.rejects(log.record({ action: "a.b", outcome: "success" }), /disk full/);
    failWrites = false;
    await assert.rejects(log.record({ action: "a.b", outcome: "success" }), /disk full/);
    await assert.rejects(log.flush(), /disk full/);
    assert.equal(sink.lines().length, 1);
  });
});

describe("memoryAuditSink bounds", () => {
  it("keeps the newest maxLines lines, and refuses a bad bound", async () => {
    const sink = memoryAuditSink({ maxLines: 5 });
    const log = auditLog({ sink });
    for (let i = 0; i < 23; i++) await log.record({ action: `a${i}`, outcome: "success" });
    await log.flush();
    const kept = sink.lines().map((l) => (JSON.parse(l) as { action: string }).action);
    assert.deepEqual(kept, ["a18", "a19", "a20", "a21", "a22"]);
    assert.throws(() => memoryAuditSink({ maxLines: 0 }), TypeError);
    await log.close();
  });
});
