// Issue 34, goal 4: a ratio sampler decides a trace that starts here from the last 52 bits of its
// id, drawn as bytes before the id is made (Sampler.shouldSampleLow52), not by reading the id's
// hex text; the id, made only when read, ends with them. The decision must stay the
// W3C/OpenTelemetry one: the id's last 13 hex digits as a number, below ratio * 2^52. (The bits
// and the ids made from them: spec/internals/service/trace-id-bits.test.ts.)
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import { App, context, route, silentLogger } from "../../lib/index.js";
import { production } from "../../lib/service/index.js";
import { parentBasedSampler, traceIdRatioSampler, type Sampler } from "../../lib/otel/index.js";

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const low13 = (traceId: string): number => Number.parseInt(traceId.slice(-13), 16);

describe("Sampler.shouldSampleLow52", () => {
  it("traceIdRatio: the same decision as shouldSample on the id, for every ratio", () => {
    const ratios = [0, 0.001, 0.01, 0.1, 0.37, 0.5, 0.999, 1];
    const samplers = ratios.map((r) => traceIdRatioSampler(r));
    for (let i = 0; i < 5_000; i++) {
      const id = randomBytes(16).toString("hex");
      const bits = low13(id);
      for (const s of samplers) assert.equal(s.shouldSampleLow52!(bits), s.shouldSample(id, null), `${id} ${s.description}`);
    }
    // The boundary, exactly: ratio * 2^52 is not sampled, one below is.
    const half = traceIdRatioSampler(0.5);
    assert.equal(half.shouldSampleLow52!(2 ** 51 - 1), true);
    assert.equal(half.shouldSampleLow52!(2 ** 51), false);
  });

  it("parentBased forwards it from its root, and has none when the root has none", () => {
    const s = parentBasedSampler({ root: traceIdRatioSampler(0.25) });
    assert.equal(s.shouldSampleLow52!(2 ** 50 - 1), true);
    assert.equal(s.shouldSampleLow52!(2 ** 50), false);
    assert.equal(parentBasedSampler({ root: { shouldSample: () => true, description: "custom" } }).shouldSampleLow52, undefined);
  });
});

/** An app whose sampler's calls are recorded; answers carry the traceparent (sampled flag). */
function tracedApp(sampler: Sampler): App {
  const app = new App({ logger: silentLogger });
  production({ service: "low52", logger: silentLogger, probes: false, spans: { sampler, onSpan: () => undefined, responseTraceparent: true } }).register(app);
  app.routes(route.get("/x", [context()], () => "ok"));
  return app;
}

async function traceparentOf(app: App, traceparent?: string): Promise<RegExpExecArray> {
  const r = await app.inject({ url: "/x", ...(traceparent === undefined ? {} : { headers: { traceparent } }) });
  const m = TRACEPARENT.exec(String(r.headers["traceparent"]));
  assert.ok(m, "the answer carries a traceparent");
  return m;
}

describe("production() with a sampler that has shouldSampleLow52", () => {
  it("a new trace is decided by shouldSampleLow52 with its id's last 13 hex digits; the flag sent is that decision", async () => {
    const ratio = traceIdRatioSampler(0.5);
    const seen: number[] = [];
    const calls = { text: 0 };
    const sampler: Sampler = {
      shouldSample(traceId, parent) {
        calls.text++;
        return ratio.shouldSample(traceId, parent);
      },
      shouldSampleLow52(low52) {
        seen.push(low52);
        return ratio.shouldSampleLow52!(low52);
      },
      description: "recorded",
      readsTraceId: true,
    };
    const app = tracedApp(sampler);
    let sampled = 0;
    for (let i = 0; i < 300; i++) {
      const m = await traceparentOf(app);
      assert.equal(seen.length, i + 1);
      assert.equal(seen[i], low13(m[1]!), "the bits are the id's last 13 digits");
      assert.equal(m[3], ratio.shouldSample(m[1]!, null) ? "01" : "00", "the decision is the W3C ratio one on the id");
      if (m[3] === "01") sampled++;
    }
    assert.equal(calls.text, 0, "the id's text is not read");
    assert.ok(sampled > 0 && sampled < 300);
  });

  it("an incoming traceparent still decides by its id (shouldSample)", async () => {
    const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    const ids: string[] = [];
    const sampler: Sampler = {
      shouldSample(traceId) {
        ids.push(traceId);
        return true;
      },
      shouldSampleLow52: () => assert.fail("not for a trace keel did not draw"),
      description: "recorded",
    };
    const m = await traceparentOf(tracedApp(sampler), `00-${TRACE}-00f067aa0ba902b7-00`);
    assert.deepEqual(ids, [TRACE]);
    assert.equal(m[1], TRACE);
    assert.equal(m[3], "01");
  });

  it("a user-written sampler without it gets shouldSample with the new id, as before", async () => {
    const ids: string[] = [];
    const sampler: Sampler = {
      shouldSample(traceId, parent) {
        assert.equal(parent, null);
        ids.push(traceId);
        return traceId.endsWith("0");
      },
      description: "user",
    };
    const app = tracedApp(sampler);
    for (let i = 0; i < 20; i++) {
      const m = await traceparentOf(app);
      assert.equal(ids[i], m[1]);
      assert.equal(m[3], m[1]!.endsWith("0") ? "01" : "00");
    }
  });
});
