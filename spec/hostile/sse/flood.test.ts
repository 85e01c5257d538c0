// SSE flood (issue 32 item 3): subscribers of GET /api/v1/events that never read, while report
// jobs are enqueued through the API (no auth; writes are rate-limited per client address, so the
// jobs come from 750 loopback addresses), each job sending three `job` events to every
// subscriber. Each stream may hold 64 KiB of events beyond what its socket took (the kernel takes
// ~3.8 MB per connection first, so each subscriber gets ~5 MB here); past that it is ended, so
// the heap stays bounded however many events are published, HTTP keeps answering and the process
// lives under a 256 MiB heap.
//
// Before the fix every event for a non-reading subscriber stayed in its stream's buffer: the
// child's heap reached 255 MiB and it died of heap exhaustion. After: heap peak ~40 MiB over the
// quiet service's, RSS ~55 MiB over, all 40 subscribers ended as too slow. The same flood with no
// subscribers peaks ~38 MiB over (request and job garbage): the subscribers add next to nothing.
import assert from "node:assert/strict";
import { Agent, request } from "node:http";
import { connect, type Socket } from "node:net";
import { test } from "node:test";
import { MiB, startFloodTarget, type FloodTarget } from "../flood/harness.js";

/** Never-reading subscribers (well under the sample's subscriber cap). */
const SUBSCRIBERS = 40;
/** Client addresses the jobs come from (127.0.1.x): the sample rate-limits writes per address (20 at once). */
const ADDRESSES = 750;
const JOBS_PER_ADDRESS = 20;
/** Heap and RSS may grow this much over the quiet service's while the flood runs. */
const HEAP_BOUND_MiB = 80;
const RSS_BOUND_MiB = 128;

/** Open the event stream on a raw socket from `localAddress`, wait for the response head, then never read again. */
function nonReadingSubscriber(port: number, localAddress: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: "127.0.0.1", localAddress });
    socket.once("error", reject);
    socket.once("connect", () => socket.write("GET /api/v1/events HTTP/1.1\r\nhost: flood\r\n\r\n"));
    socket.once("data", (head: Buffer) => {
      // From here on the kernel's receive buffer fills and the window closes.
      socket.pause();
      socket.off("error", reject);
      socket.on("error", () => {});
      if (!head.toString("latin1").startsWith("HTTP/1.1 200")) reject(new Error(`not a 200: ${head.toString("latin1", 0, 200)}`));
      else resolve(socket);
    });
  });
}

function postJson(port: number, agent: Agent, path: string, body: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = request({ host: "127.0.0.1", port, path, method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (d: string) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on("error", reject);
    req.end(payload);
  });
}

function getJson(port: number, agent: Agent, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, agent }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (d: string) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** A distinct report (month) per job: the sample merges a repeated request into the waiting job. */
function month(k: number): string {
  return `${String(1000 + Math.floor(k / 12))}-${String((k % 12) + 1).padStart(2, "0")}`;
}

/** Enqueue the jobs, `ADDRESSES` clients at once, each sending its share in turn; the ids accepted. */
async function enqueueJobs(target: FloodTarget): Promise<string[]> {
  const ids: string[] = [];
  const clients = Array.from({ length: ADDRESSES }, async (_, a) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1, localAddress: `127.0.${Math.floor(a / 250) + 1}.${(a % 250) + 1}` });
    try {
      for (let j = 0; j < JOBS_PER_ADDRESS; j++) {
        const r = await postJson(target.port, agent, "/api/v1/reports", { kind: "usage", month: month(a * JOBS_PER_ADDRESS + j) });
        if (r.status === 202) ids.push((JSON.parse(r.body) as { id: string }).id);
      }
    } finally {
      agent.destroy();
    }
  });
  await Promise.all(clients);
  return ids;
}

/** Wait until the last accepted job finished (the queue is FIFO), asking from an address of its own. */
async function waitForJob(target: FloodTarget, id: string): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1, localAddress: "127.0.99.1" });
  try {
    for (;;) {
      const r = await getJson(target.port, agent, `/api/v1/jobs/${id}`);
      if (r.status === 200 && (JSON.parse(r.body) as { state: string }).state === "succeeded") return;
      assert.ok(target.alive(), "the service died");
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    agent.destroy();
  }
}

test("SSE: non-reading subscribers while thousands of jobs publish events: heap and RSS bounded, HTTP answers, the process lives", { timeout: 60_000 }, async () => {
  const target = await startFloodTarget();
  const sockets: Socket[] = [];
  try {
    assert.equal(await target.get("/health"), 200);
    const quiet = await target.memory();
    for (let i = 0; i < SUBSCRIBERS; i++) sockets.push(await nonReadingSubscriber(target.port, `127.0.50.${i + 1}`)); // each its own address: the per-client cap (16) is not what bounds this
    target.watch(100);

    const ids = await enqueueJobs(target);
    assert.ok(ids.length >= ADDRESSES * JOBS_PER_ADDRESS * 0.9, `only ${ids.length} jobs were accepted`);
    assert.equal(await target.get("/health", 10_000), 200, "HTTP answers during the flood");
    await waitForJob(target, ids[ids.length - 1]!);
    await target.memory();

    const peak = target.peak();
    const heapGrowth = peak.heapMiB - quiet.heapUsed / MiB;
    const rssGrowth = peak.rssMiB - quiet.rss / MiB;
    console.log(`jobs ${ids.length}, heap ${(quiet.heapUsed / MiB).toFixed(1)} -> peak ${peak.heapMiB.toFixed(1)} MiB, rss ${(quiet.rss / MiB).toFixed(1)} -> peak ${peak.rssMiB.toFixed(1)} MiB`);
    assert.ok(heapGrowth < HEAP_BOUND_MiB, `heap grew ${heapGrowth.toFixed(1)} MiB (bound ${HEAP_BOUND_MiB})`);
    assert.ok(rssGrowth < RSS_BOUND_MiB, `RSS grew ${rssGrowth.toFixed(1)} MiB (bound ${RSS_BOUND_MiB})`);
    // The policy: a subscriber past its 64 KiB is cut, and the writer logs why.
    const cut = target.output().split("\n").filter((line) => line.includes("SSE client too slow")).length;
    console.log(`streams ended as too slow: ${cut} of ${SUBSCRIBERS}`);
    assert.ok(cut > 0, "no subscriber was cut");
    assert.equal(await target.get("/health"), 200);
    assert.ok(target.alive());
  } catch (err) {
    const peak = target.peak();
    throw new Error(`${String(err)}; alive ${target.alive()}, peak heap ${peak.heapMiB.toFixed(1)} MiB, rss ${peak.rssMiB.toFixed(1)} MiB; log tail: ${target.output().slice(-600)}`);
  } finally {
    for (const s of sockets) s.destroy();
    await target.stop();
  }
});
