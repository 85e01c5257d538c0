// Cluster mode (--workers N with node:cluster): workers share the port and serve, a crashed
// worker is restarted, SIGTERM to the primary drains every worker (in-flight request 200) and
// the primary exits 0.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { send } from "../support/http.js";
import { startService, type LogLine, type RunningService } from "./fixtures/spawn-service.js";

const started: RunningService[] = [];
after(() => {
  for (const s of started) s.kill("SIGKILL");
});

function isPrimary(l: LogLine): boolean {
  return l["role"] === "primary";
}

describe("cluster mode", () => {
  it("serves from N workers, restarts a crashed one, and drains all on SIGTERM", async () => {
    const svc = startService(["--port", "0", "--workers", "2", "--shutdown-timeout", "3000"]);
    started.push(svc);
    const first = await svc.waitFor((l) => l["msg"] === "listening");
    await svc.waitFor((l) => l["msg"] === "listening" && l["pid"] !== first["pid"]);
    const url = String(first["url"]);
    const primaryStart = await svc.waitFor((l) => isPrimary(l) && l["msg"] === "cluster primary started");
    assert.equal(primaryStart["workers"], 2);
    assert.equal(primaryStart["pid"], svc.child.pid);

    // Both workers take connections on the shared port (round-robin).
    const pids = new Set<number>();
    for (let i = 0; i < 12 && pids.size < 2; i++) {
      const r = await send(url + "/pid");
      assert.equal(r.status, 200);
      pids.add((JSON.parse(r.body) as { pid: number }).pid);
    }
    assert.equal(pids.size, 2, "both workers served requests");
    assert.ok(!pids.has(svc.child.pid!), "the primary does not serve");

    // A worker that crashes is replaced.
    const victim = [...pids][0]!;
    process.kill(victim, "SIGKILL");
    const died = await svc.waitFor((l) => isPrimary(l) && l["msg"] === "worker died; restarting" && l["worker_pid"] === victim);
    assert.equal(died["signal"], "SIGKILL");
    const replacement = await svc.waitFor((l) => l["msg"] === "listening" && l["pid"] !== first["pid"] && l["pid"] !== victim && !isPrimary(l) && !pids.has(l["pid"] as number));
    assert.equal(replacement["url"], url, "the new worker shares the same port");

    // SIGTERM to the primary: in-flight requests finish, everyone exits cleanly.
    const slow = send(url + "/slow?ms=800");
    await new Promise((r) => setTimeout(r, 250));
    svc.kill("SIGTERM");
    const r = await slow;
    assert.equal(r.status, 200, "in-flight request completed during the drain");
    assert.equal(await svc.exited, 0);
    const stopped = svc.lines.filter((l) => isPrimary(l) && l["msg"] === "worker stopped");
    assert.equal(stopped.length, 2);
    for (const l of stopped) assert.equal(l["code"], 0);
    assert.equal(svc.lines.filter((l) => l["__unparsed"] !== undefined).length, 0, "every stdout line is JSON");
  });
});
