// runService's hard deadline: when the drain and the shutdown hooks have not finished within the
// shutdown timeout (here a hook that never settles), the process logs what was still pending and
// exits 1 (as the OTel SDK's shutdown timeout and Fastify-style close timeouts do) instead of
// hanging until the orchestrator's SIGKILL. A request that must be cut off is cut before the
// deadline, leaving the hooks a reserve, so that shutdown still ends cleanly. The check is a
// bound on exit (timeout + a generous margin), not a measure of speed.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { send } from "../support/http.js";
import { listeningUrl, startService, type RunningService } from "./fixtures/spawn-service.js";

const started: RunningService[] = [];
after(() => {
  for (const s of started) s.kill("SIGKILL");
});

const TIMEOUT_MS = 1000;
const EXIT_BOUND_MS = TIMEOUT_MS + 5000;

describe("runService: the shutdown deadline", () => {
  it("a shutdown hook that never finishes: exit 1 within the shutdown timeout (+5 s margin), with an error line naming what was pending", { timeout: 30_000 }, async () => {
    const svc = startService(["--port", "0", "--shutdown-timeout", String(TIMEOUT_MS)], { FIXTURE_HANG_ON_SHUTDOWN: "1" });
    started.push(svc);
    const url = await listeningUrl(svc);
    assert.equal((await send(url + "/hello")).status, 200);
    svc.kill("SIGTERM");
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([svc.exited, new Promise<"running">((resolve) => (timer = setTimeout(() => resolve("running"), EXIT_BOUND_MS)))]);
    clearTimeout(timer);
    assert.notEqual(code, "running", `still running ${EXIT_BOUND_MS} ms after SIGTERM:\n${svc.raw.join("\n")}`);
    assert.equal(code, 1);
    const line = svc.lines.find((l) => l["msg"] === "shutdown deadline passed; exiting");
    assert.ok(line, svc.raw.join("\n"));
    assert.equal(line["level"], 50);
    assert.equal(line["timeout_ms"], TIMEOUT_MS);
    assert.equal(line["pending"], "shutdown hooks");
    assert.equal(line["exit_code"], 1);
    assert.ok(!svc.lines.some((l) => l["msg"] === "stopped"), "not reported as a clean stop");
  });

  it("a clean drain is unaffected: exit 0 with 'stopped' last", { timeout: 30_000 }, async () => {
    const svc = startService(["--port", "0", "--shutdown-timeout", String(TIMEOUT_MS)]);
    started.push(svc);
    await listeningUrl(svc);
    svc.kill("SIGTERM");
    assert.equal(await svc.exited, 0);
    assert.equal(svc.lines.at(-1)?.["msg"], "stopped");
  });

  it("a request still running at the shutdown timeout is cut off before it, the hooks still run: exit 0, not a forced exit", { timeout: 30_000 }, async () => {
    const svc = startService(["--port", "0", "--shutdown-timeout", String(TIMEOUT_MS)]);
    started.push(svc);
    const url = await listeningUrl(svc);
    const hung = send(url + "/hang").then(
      (r) => `answered ${r.status}`,
      () => "cut off",
    );
    await svc.waitFor((l) => l["msg"] === "request in flight");
    svc.kill("SIGTERM");
    assert.equal(await svc.exited, 0, svc.raw.join("\n"));
    assert.equal(await hung, "cut off");
    const cut = svc.lines.find((l) => l["msg"] === "shutdown deadline reached; cutting off connections");
    assert.ok(cut, svc.raw.join("\n"));
    assert.equal(cut["connections"], 1);
    // A quarter of the 1 s timeout is kept for the hooks.
    assert.equal(cut["timeout_ms"], TIMEOUT_MS - TIMEOUT_MS / 4);
    assert.ok(!svc.lines.some((l) => l["msg"] === "shutdown deadline passed; exiting"), svc.raw.join("\n"));
    assert.equal(svc.lines.at(-1)?.["msg"], "stopped");
  });

  it("--shutdown-timeout 0 cuts requests off at once, but the hooks still run: exit 0, not a forced exit", { timeout: 30_000 }, async () => {
    const svc = startService(["--port", "0", "--shutdown-timeout", "0"]);
    started.push(svc);
    await listeningUrl(svc);
    svc.kill("SIGTERM");
    assert.equal(await svc.exited, 0, svc.raw.join("\n"));
    assert.equal(svc.lines.at(-1)?.["msg"], "stopped");
  });
});
