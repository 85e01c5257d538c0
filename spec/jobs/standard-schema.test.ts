// A job type's payload schema may be any Standard Schema (issue 33: every option that takes a
// schema), checked against the real zod 4, valibot 1 and arktype 2 (test peers in .tmp/test-peers,
// never dependencies): a bad payload is refused at enqueue with one field per issue and nothing
// stored; a good one is stored as the schema's validated value (stripped, transformed); async
// validate is awaited. An object that is neither a JSON Schema nor a Standard Schema is refused by
// defineJob, where a zod schema was once compiled as if it were JSON Schema and checked nothing.
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import type { StandardSchemaV1 } from "../../lib/index.js";
import { JobPayloadError, JobQueue, ManualJobClock, defineJob } from "../../lib/jobs/index.js";
import { captureLogger } from "../support/capture-logger.js";
import { testPeer } from "../support/test-peers.js";

const ZOD = "4.6.7";
const VALIBOT = "1.5.0";
const ARKTYPE = "2.2.9";
const [zodDir, valibotDir, arktypeDir] = await Promise.all([testPeer("zod", ZOD), testPeer("valibot", VALIBOT), testPeer("arktype", ARKTYPE)]);
const skip = zodDir === null || valibotDir === null || arktypeDir === null ? `zod@${ZOD}, valibot@${VALIBOT} or arktype@${ARKTYPE} could not be installed into .tmp/test-peers (offline?)` : false;

type Loose = Record<string, any>;
const load = async (dir: string, entry: string): Promise<Loose> => (await import(pathToFileURL(join(dir, entry)).href)) as Loose;

/** Enqueue `payload` with a fresh queue; run the job; what its handler got, or the refusal. */
async function roundTrip(schema: StandardSchemaV1, payload: unknown): Promise<{ got?: unknown; refused?: JobPayloadError; stored: number }> {
  const clock = new ManualJobClock(1_000);
  let got: unknown;
  const job = defineJob({ name: "welcome", payload: schema, handler: (p) => void (got = p) });
  const queue = new JobQueue({ logger: captureLogger(), clock, jobs: [job] });
  try {
    try {
      await queue.enqueue(job, payload as never);
    } catch (err) {
      if (!(err instanceof JobPayloadError)) throw err;
      return { refused: err, stored: (await queue.stats()).counts.pending };
    }
    await queue.start();
    await clock.flush();
    return { got, stored: (await queue.stats()).counts.succeeded };
  } finally {
    await queue.drain(0);
  }
}

describe("job payloads with a Standard Schema", { skip }, async () => {
  const { z } = (await load(zodDir!, "index.js")) as { z: Loose };
  const v = await load(valibotDir!, "dist/index.mjs");
  const { type } = await load(arktypeDir!, "out/index.js");
  const libraries: Record<string, StandardSchemaV1> = {
    zod: z.object({ email: z.email(), count: z.number().int().min(1) }),
    valibot: v.object({ email: v.pipe(v.string(), v.email()), count: v.pipe(v.number(), v.integer(), v.minValue(1)) }),
    arktype: type({ email: "string.email", count: "number.integer >= 1" }),
  };

  for (const [name, schema] of Object.entries(libraries)) {
    it(`${name}: a bad payload is refused at enqueue with one field per issue, nothing stored`, async () => {
      const r = await roundTrip(schema, { email: "nope", count: 0 });
      assert.ok(r.refused, "refused");
      assert.deepEqual(r.refused.fields.map((f) => [f.field, f.code]).sort(), [["count", "invalid"], ["email", "invalid"]]);
      assert.ok(r.refused.fields.every((f) => f.message.length > 0));
      assert.equal(r.stored, 0);
    });

    it(`${name}: a good payload is stored as the validated value (unknown keys stripped) and reaches the handler`, async () => {
      const r = await roundTrip(schema, { email: "a@b.example", count: 2, extra: "dropped" });
      assert.equal(r.refused, undefined);
      assert.equal(r.stored, 1);
      // zod and valibot strip unknown keys by default; arktype keeps them unless told otherwise.
      const expected = name === "arktype" ? { email: "a@b.example", count: 2, extra: "dropped" } : { email: "a@b.example", count: 2 };
      assert.deepEqual(r.got, expected);
    });
  }

  it("a transform's output is what is stored (zod: a trimmed, lower-cased email)", async () => {
    const schema = z.object({ email: z.string().trim().toLowerCase() });
    const r = await roundTrip(schema, { email: "  Ada@Example.COM " });
    assert.deepEqual(r.got, { email: "ada@example.com" });
  });

  it("an async validate is awaited (valibot's pipeAsync with checkAsync)", async () => {
    const taken = new Set(["taken@b.example"]);
    const schema = v.objectAsync({
      email: v.pipeAsync(
        v.string(),
        v.checkAsync(async (e: string) => {
          await new Promise((r) => setImmediate(r));
          return !taken.has(e);
        }, "is already registered"),
      ),
    });
    const bad = await roundTrip(schema, { email: "taken@b.example" });
    assert.deepEqual(bad.refused?.fields, [{ field: "email", code: "invalid", message: "is already registered" }]);
    const good = await roundTrip(schema, { email: "new@b.example" });
    assert.deepEqual(good.got, { email: "new@b.example" });
  });

  it("validate() answers the fields (sync and async) without storing anything", async () => {
    const job = defineJob({ name: "v", payload: libraries.zod!, handler: () => undefined });
    assert.equal(await job.validate({ email: "a@b.example", count: 1 }), null);
    assert.deepEqual(((await job.validate({ email: "a@b.example", count: 0 })) ?? []).map((f) => f.field), ["count"]);
  });
});

describe("job payload schemas keel does not recognise", () => {
  it("an object that is neither a JSON Schema nor a Standard Schema is refused by defineJob, naming the job", () => {
    class Shape {
      type = "object";
    }
    assert.throws(() => defineJob({ name: "odd", payload: new Shape() as never, handler: () => undefined }), /job odd: the payload schema is an instance of Shape: neither a JSON Schema/);
    assert.throws(() => defineJob({ name: "odd", payload: { "~standard": { vendor: "x" } } as never, handler: () => undefined }), /job odd: the payload schema has a ~standard without validate\(\)/);
  });
});

describe("job payload types with a Standard Schema", () => {
  it("the handler gets the schema's output type; enqueue takes its input type (type-checked by npm test)", async () => {
    // Input: a numeric string; output: the number.
    const parse: StandardSchemaV1<string, number> = {
      "~standard": {
        version: 1,
        vendor: "handmade",
        validate: (value) => (typeof value === "string" && /^\d+$/.test(value) ? { value: Number(value) } : { issues: [{ message: "Expected digits" }] }),
      },
    };
    const clock = new ManualJobClock(1_000);
    const seen: number[] = [];
    const job = defineJob({ name: "typed", payload: parse, handler: (n) => void seen.push(n satisfies number) });
    const queue = new JobQueue({ logger: captureLogger(), clock, jobs: [job] });
    await queue.enqueue(job, "42");
    // @ts-expect-error enqueue takes the schema's input (a string), not its output
    await assert.rejects(queue.enqueue(job, 42), JobPayloadError);
    await queue.start();
    await clock.flush();
    await queue.drain(0);
    assert.deepEqual(seen, [42]);
  });
});
