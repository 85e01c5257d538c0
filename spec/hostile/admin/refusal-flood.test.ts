// Hostile class "admin" (issue 32 item 7): a client hammering /admin/* with a wrong token. Before,
// every refusal was a 401 and an audit record (20,000 in 11 s wrote 6.8 MiB). Now past a burst
// they get the uniform 429 with Retry-After, are not audited one by one, and a summary record
// counts them; the audit log stays small and its chain verifies; HTTP keeps answering.
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { verifyAuditLog } from "../../../lib/audit/index.js";
import { startFloodTarget, type FloodTarget } from "../flood/harness.js";

const TOKEN = "flood-admin-token-0123456789";
const REFUSALS = 3000;
const KiB = 1024;

function refusal(agent: Agent, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/admin/insight", agent, headers: { authorization: "Bearer not-the-token" } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("hostile: a flood of refused admin requests", () => {
  let target: FloodTarget;
  let dir = "";
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "keel-admin-flood-"));
    target = await startFloodTarget({ env: { KEEL_ADMIN_TOKEN: TOKEN, KEEL_AUDIT_DIR: dir } });
  });
  after(async () => {
    if (target.alive()) await target.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers 429 past the burst, writes a bounded audit log with a summary, and the chain verifies", { timeout: 60_000 }, async (t) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    const counts = new Map<number, number>();
    const jobs: Promise<void>[] = [];
    let sent = 0;
    for (let w = 0; w < 8; w++) {
      jobs.push(
        (async () => {
          while (sent < REFUSALS) {
            sent++;
            const status = await refusal(agent, target.port);
            counts.set(status, (counts.get(status) ?? 0) + 1);
          }
        })(),
      );
    }
    await Promise.all(jobs);
    agent.destroy();
    assert.equal(await target.get("/health"), 200, "HTTP still answers");
    const limited = counts.get(429) ?? 0;
    const refused = counts.get(401) ?? 0;
    assert.equal(limited + refused, REFUSALS, JSON.stringify([...counts]));
    assert.ok(refused <= 40, `at most the burst (plus refills) answered 401: ${refused}`);
    assert.equal(await target.stop(), 0);
    const files = readdirSync(dir).filter((f) => f.endsWith(".jsonl"));
    const bytes = files.reduce((n, f) => n + statSync(join(dir, f)).size, 0);
    t.diagnostic(`${refused} x 401, ${limited} x 429, audit log ${bytes} bytes in ${files.length} file(s)`);
    // Before the fix: one ~400-byte record per refusal, over 1 MiB for this flood.
    assert.ok(bytes < 32 * KiB, `audit log ${bytes} bytes`);
    const records = files.flatMap((f) => readFileSync(join(dir, f), "utf8").trim().split("\n")).map((l) => JSON.parse(l) as { action: string; metadata: { count?: number } | null });
    const suppressed = records.filter((r) => r.action === "admin.refusals_suppressed").reduce((n, r) => n + (r.metadata?.count ?? 0), 0);
    assert.equal(suppressed, limited, "the summary counts every 429");
    assert.equal(records.filter((r) => r.action === "auth.failed").length, refused);
    const verified = await verifyAuditLog(dir);
    assert.equal(verified.ok, true, JSON.stringify(verified));
  });
});
