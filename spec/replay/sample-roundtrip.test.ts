// End to end (issue 32 item 8): a request recorded by the sample service with the production
// baseline (traceparent, request ids, rate-limit headers, the response cache), replayed against
// the same unchanged server with the `replay` command, reports no difference; a write replays as
// a valid request (its allow-listed fields kept); the records keep no secret a client sent.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { silentLogger } from "../../lib/index.js";
import { FileReplayStore, runReplayCommand } from "../../lib/replay/index.js";
import { createSampleApp } from "../../lib/sample/index.js";
import { production } from "../../lib/service/index.js";
import { send } from "../support/http.js";

const TOKEN = "sample-admin-token-0123456789";

describe("sample: record, then replay against the same server", () => {
  it("reports no difference for reads, an error answer and a query; a JSON post replays as valid; secrets are not kept", async () => {
    const dir = mkdtempSync(join(tmpdir(), "keel-replay-roundtrip-"));
    const replayFile = join(dir, "replays.jsonl");
    const prod = production({ service: "keel-sample", logger: silentLogger });
    const server = await createSampleApp({ production: prod, env: "development", logger: silentLogger, adminToken: TOKEN, replayFile, replaySampleRate: 1 }).listen({ port: 0, host: "127.0.0.1" });
    try {
      await send(server.url + "/users/1");
      await send(server.url + "/users/999");
      await send(server.url + "/projects", { headers: { "x-tenant-id": "acme" } });
      await send(server.url + "/api/v1/users?limit=2&access_token=tok-secret-1");
      const report = await send(server.url + "/api/v1/reports", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ kind: "usage", month: "2026-01" }) });
      assert.equal(report.status, 202, report.body);
      await send(server.url + "/echo-text", { method: "POST", headers: { "content-type": "text/plain" }, body: "password=hunter2" });
      const list = JSON.parse((await send(server.url + "/admin/replays", { headers: { authorization: `Bearer ${TOKEN}` } })).body) as { records: Array<{ id: string; route: string; method: string }> };
      // Not the text echo: its answer is the client's body, so the sample does not record it.
      assert.equal(list.records.length, 5, JSON.stringify(list));
      const stored = readFileSync(replayFile, "utf8");
      assert.doesNotMatch(stored, /tok-secret-1|hunter2|sample-admin-token/);
      const store = new FileReplayStore({ path: replayFile });
      const replayOne = async (id: string): Promise<{ code: number; out: string }> => {
        let out = "";
        const io = { stdout: (t: string) => void (out += t), stderr: (t: string) => void (out += t) };
        return { code: await runReplayCommand(["replay", id, "--target", server.url], io, { store }), out };
      };
      for (const r of list.records.filter((x) => x.method === "GET")) {
        const { code, out } = await replayOne(r.id);
        assert.equal(code, 0, `${r.method} ${r.route}:\n${out}`);
        assert.match(out, /no differences/);
      }
      // The report request is re-sent as recorded (its allow-listed fields kept, so it is valid):
      // same status, and what differs is only the new job it created.
      const post = list.records.find((x) => x.method === "POST")!;
      const { code, out } = await replayOne(post.id);
      assert.equal(code, 1, out);
      assert.doesNotMatch(out, /status:/);
      assert.deepEqual(
        out.split("\n").filter((l) => /^\s+[~+-] /.test(l)).map((l) => l.trim().split(":")[0]),
        ["~ location", "~ $.id", "~ $.status_url"],
      );
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
