// bench/ws-echo.mjs runs end to end: it bundles the keel/ws and `ws` echo servers, starts each as a
// fresh process, loads them from bench/harness/ws-load.mjs with every echo checked, and reports
// medians and keel ÷ ws as JSON. Tiny windows: this proves the harness, it does not measure. The
// load generator's checks are proved against a deliberately wrong echo server.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { acceptWebSocket } from "../../lib/ws/index.js";
import { explain, root, run } from "./build-support.js";

interface ServerSummary {
  id: string;
  runs: number;
  msgsPerSec: number;
  serverCpuUsPerMsg: number | null;
  clientCpuPct: number;
}
interface SizeResult {
  size: number;
  keel: ServerSummary;
  ws: ServerSummary | null;
  msgsRatio: number | null;
  runs: Record<string, { ok: boolean; messages: number }[]>;
}
interface Summary {
  options: { rounds: number; connections: number; sizes: number[]; kind: string; inFlight: number };
  versions: { ws: string | null };
  note: string;
  results: SizeResult[];
}

const bench = join(root, "bench/ws-echo.mjs");
const loadScript = join(root, "bench/harness/ws-load.mjs");
const tiny = ["--seconds", "0.3", "--warmup", "0.1", "--rounds", "1", "--connections", "2"];

function checkBothServers(out: Summary, sizes: number[]): void {
  assert.deepEqual(out.results.map((r) => r.size), sizes);
  for (const r of out.results) {
    assert.equal(r.keel.runs, 1);
    assert.ok(r.keel.msgsPerSec > 0, JSON.stringify(r.keel));
    assert.ok(r.runs["keel"]!.every((m) => m.ok && m.messages > 0));
    if (out.versions.ws === null) {
      // Offline machine: the peer could not be installed; keel alone still runs.
      assert.equal(r.ws, null);
      assert.match(out.note, /ws was not measured/);
      continue;
    }
    assert.ok(r.ws !== null && r.ws.runs === 1 && r.ws.msgsPerSec > 0, JSON.stringify(r.ws));
    assert.ok(r.msgsRatio !== null && r.msgsRatio > 0);
  }
}

describe("bench/ws-echo.mjs", () => {
  it("echoes through both servers at every frame-length boundary and reports JSON", async () => {
    // 125/126: the last 7-bit and first 16-bit length; 65535/65536: the last 16-bit and first 64-bit.
    const sizes = [125, 126, 65535, 65536];
    const r = await run([bench, ...tiny, "--sizes", sizes.join(","), "--json"], root, 120_000);
    assert.equal(r.status, 0, explain(r));
    const out = JSON.parse(r.stdout) as Summary;
    assert.deepEqual(out.options, { ...out.options, rounds: 1, connections: 2, sizes, kind: "binary", inFlight: 1 });
    checkBothServers(out, sizes);
    assert.match(r.stderr, /\| message \| keel msgs\/s \| ws msgs\/s \| keel ÷ ws msgs\/s \|/);
  });

  it("echoes text messages with several in flight per connection", async () => {
    const r = await run([bench, ...tiny, "--sizes", "64", "--kind", "text", "--in-flight", "8", "--json"], root, 60_000);
    assert.equal(r.status, 0, explain(r));
    const out = JSON.parse(r.stdout) as Summary;
    assert.equal(out.options.kind, "text");
    assert.equal(out.options.inFlight, 8);
    checkBothServers(out, [64]);
  });

  it("refuses an unknown argument and a size of 0", async () => {
    const unknown = await run([bench, "--nope"], root);
    assert.equal(unknown.status, 1, explain(unknown));
    assert.match(unknown.stderr, /unknown argument --nope/);
    const zero = await run([bench, "--sizes", "64,0"], root);
    assert.equal(zero.status, 1, explain(zero));
    assert.match(zero.stderr, /--sizes takes an integer >= 1 \(got 0\)/);
  });
});

/** How the test server answers each message; "right" is a true echo. */
type Fault = "right" | "last-byte" | "short" | "as-text" | "close";

describe("bench/harness/ws-load.mjs checks every echo", () => {
  let server: Server;
  let port = 0;
  before(async () => {
    server = createServer();
    server.on("upgrade", (req, socket, head) => {
      const fault = (new URL(req.url ?? "/", "http://x").searchParams.get("fault") ?? "right") as Fault;
      const ws = acceptWebSocket(req, socket, head);
      ws.on("message", (data) => {
        const bytes = Buffer.from(data as Buffer);
        if (fault === "last-byte") bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0xff;
        if (fault === "close") return ws.close(1000);
        if (fault === "as-text") return void ws.send(bytes.toString("latin1"));
        void ws.send(fault === "short" ? bytes.subarray(0, bytes.length - 1) : bytes);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  const load = (fault: Fault, size = 64) =>
    run([loadScript, JSON.stringify({ port, path: `/echo?fault=${fault}`, connections: 2, size, kind: "binary", inFlight: 1, warmupMs: 0, durationMs: 200, serverPid: process.pid, clockTicks: 100 })], root, 30_000);

  it("counts a true echo", async () => {
    const r = await load("right");
    assert.equal(r.status, 0, explain(r));
    const out = JSON.parse(r.stdout) as { ok: boolean; messages: number; msgsPerSec: number };
    assert.equal(out.ok, true);
    assert.ok(out.messages > 0 && out.msgsPerSec > 0, r.stdout);
  });

  for (const [fault, why] of [
    ["last-byte", /echo bytes differ/],
    ["short", /echo of 63 bytes, sent 64/],
    ["as-text", /expected one unfragmented binary frame, got fin=true opcode=1/],
    ["close", /the server sent a close frame/],
  ] as const) {
    it(`fails on a wrong echo: ${fault}`, async () => {
      const r = await load(fault);
      assert.equal(r.status, 1, explain(r));
      const out = JSON.parse(r.stdout) as { ok: boolean; error: string };
      assert.equal(out.ok, false);
      assert.match(out.error, why);
    });
  }
});
