// The service as a process (the fixture wired like lib/sample/main.ts): SIGTERM drains and exits 0,
// forgotten rejections do not take it down, a fatal error is one JSON line then exit 1,
// KEEL_ENV=production masking end to end, every stdout line is JSON.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { send } from "../support/http.js";
import { listeningUrl, startService, type RunningService } from "./fixtures/spawn-service.js";

const started: RunningService[] = [];
after(() => {
  for (const s of started) s.kill("SIGKILL");
});

function run(args: readonly string[], env: Record<string, string> = {}): RunningService {
  const s = startService(args, env);
  started.push(s);
  return s;
}

describe("service process", () => {
  it("serves, survives a forgotten rejection, and drains on SIGTERM: in-flight request 200, exit 0", async () => {
    const svc = run(["--port", "0"]);
    const url = await listeningUrl(svc);
    assert.equal((await send(url + "/hello")).status, 200);

    const leak = await send(url + "/leak");
    assert.equal(leak.status, 200);
    const rejection = await svc.waitFor((l) => l["msg"] === "unhandled promise rejection");
    assert.equal(rejection["level"], 50);
    assert.equal((rejection["err"] as { message: string }).message, "forgotten promise rejected");
    assert.equal((await send(url + "/hello")).status, 200, "still serving after the rejection");

    const slow = send(url + "/slow?ms=700");
    await new Promise((r) => setTimeout(r, 200));
    svc.kill("SIGTERM");
    const r = await slow;
    assert.equal(r.status, 200, "the in-flight request completed");
    assert.equal((JSON.parse(r.body) as { done: boolean }).done, true);
    assert.equal(await svc.exited, 0);

    const msgs = svc.lines.map((l) => l["msg"]);
    assert.ok(msgs.includes("shutting down"));
    assert.equal(msgs.at(-1), "stopped");
    for (const l of svc.lines) {
      assert.equal(l["__unparsed"], undefined, `stdout line is JSON: ${String(l["__unparsed"])}`);
      assert.equal(l["service"], "fixture");
    }
    const slowLine = svc.lines.find((l) => l["route"] === "/slow");
    assert.equal(slowLine?.["status"], 200);
  });

  it("a fatal error outside the pipeline is logged as one JSON line at level 60, then exit 1", async () => {
    const svc = run(["--port", "0"]);
    const url = await listeningUrl(svc);
    await send(url + "/crash");
    assert.equal(await svc.exited, 1);
    const fatal = svc.lines.filter((l) => l["level"] === 60);
    assert.equal(fatal.length, 1);
    assert.equal((fatal[0]!["err"] as { message: string }).message, "fatal bug outside the request pipeline");
    assert.ok(svc.raw.every((l) => !l.startsWith("    at ")), "the stack is inside the JSON line, not spread over stdout");
  });

  it("KEEL_ENV=production: the body is masked, the log line has the private detail and the same error_id", async () => {
    const svc = run(["--port", "0"], { KEEL_ENV: "production" });
    const url = await listeningUrl(svc);
    const r = await send(url + "/broken", { headers: { "x-request-id": "mask-e2e" } });
    svc.kill("SIGTERM");
    assert.equal(await svc.exited, 0);
    assert.equal(r.status, 500);
    const body = JSON.parse(r.body) as { error: { type: string; message: string }; error_id: string };
    assert.deepEqual(body.error, { type: "internal_error", message: "An internal error occurred" });
    assert.ok(!r.body.includes("disk quota"));
    const line = svc.lines.find((l) => l["msg"] === "request failed")!;
    assert.equal(line["error_id"], body.error_id);
    assert.equal(line["req_id"], "mask-e2e");
    assert.equal(line["detail"], "private detail: disk quota exceeded on /var/lib/fixture");
  });
});
