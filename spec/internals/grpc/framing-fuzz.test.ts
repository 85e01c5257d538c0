// gRPC message framing, fuzzed at the unit level (the reader and the inbound queue are internals;
// spec/fuzz/grpc-framing.test.ts fuzzes them through a server): arbitrary bytes cut into
// arbitrary chunks never make the reader throw anything but a GrpcError, and it never holds more
// than one partial message (under the receive limit) once drained; well-formed messages come out the same however the bytes are cut;
// a single-message reader refuses the second message at its prefix; and the inbound queue, fed
// the way run-call feeds it, never holds more than its bounds.
import assert from "node:assert/strict";
import { test } from "node:test";
import { GrpcError, GrpcStatus } from "../../../lib/grpc/index.js";
import { InboundMessages } from "../../../lib/grpc/server/inbound-messages.js";
import { MessageReader, PREFIX_LENGTH } from "../../../lib/grpc/server/message-framing.js";
import { Rng, runProperty } from "../../fuzz/property.js";

function bytes(rng: Rng, n: number): number[] {
  return Array.from({ length: n }, () => rng.int(256));
}

/** Cut `data` into chunks of random sizes (empty ones included). */
function cuts(rng: Rng, length: number): number[] {
  const out: number[] = [];
  let at = 0;
  while (at < length) {
    const size = rng.chance(0.1) ? 0 : rng.chance(0.7) ? rng.range(1, 8) : rng.range(1, Math.max(1, length));
    out.push(size);
    at += size;
  }
  return out;
}

function chunked(data: Buffer, sizes: readonly number[]): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  for (const s of sizes) {
    out.push(data.subarray(at, at + s));
    at += s;
  }
  if (at < data.length) out.push(data.subarray(at));
  return out;
}

function framed(messages: ReadonlyArray<{ flag: number; payload: number[] }>, lengthOverride?: (i: number) => number | undefined): Buffer {
  return Buffer.concat(messages.map((m, i) => {
    const prefix = Buffer.alloc(PREFIX_LENGTH);
    prefix[0] = m.flag;
    prefix.writeUInt32BE(lengthOverride?.(i) ?? m.payload.length, 1);
    return Buffer.concat([prefix, Buffer.from(m.payload)]);
  }));
}

test("fuzz: arbitrary bytes in arbitrary chunks: only GrpcErrors, and never more buffered than one partial message", async () => {
  await runProperty({
    name: "grpc framing (arbitrary bytes)",
    generate: (rng) => {
      // Mostly plausible prefixes (flag 0/1, small lengths) with random bytes between.
      const parts: number[] = [];
      for (let i = rng.range(0, 6); i > 0; i--) {
        if (rng.chance(0.7)) {
          const len = rng.chance(0.8) ? rng.range(0, 40) : rng.pick([64, 65, 1000, 0xffffffff, 2 ** 31]);
          parts.push(rng.pick([0, 1, 1, 2, 255]), (len >>> 24) & 255, (len >>> 16) & 255, (len >>> 8) & 255, len & 255);
          parts.push(...bytes(rng, Math.min(len, rng.range(0, 50))));
        } else parts.push(...bytes(rng, rng.range(0, 20)));
      }
      return { data: parts, sizes: cuts(rng, parts.length), max: rng.pick([0, 1, 16, 64, 1000]), single: rng.chance(0.3) };
    },
    check: ({ data, sizes, max, single }) => {
      const reader = new MessageReader(max, single ? 1 : Infinity);
      let taken = 0;
      try {
        for (const chunk of chunked(Buffer.from(data), sizes)) {
          reader.push(chunk);
          for (let m = reader.next(); m !== undefined; m = reader.next()) {
            assert.ok(m.data.length <= max, `a message of ${m.data.length} bytes passed the limit ${max}`);
            taken++;
          }
          // Drained: what is left is part of a prefix, or part of one message under the limit.
          assert.ok(reader.buffered < Math.max(PREFIX_LENGTH, max), `${reader.buffered} bytes held after draining (limit ${max})`);
        }
        reader.end();
      } catch (err) {
        if (err instanceof assert.AssertionError) throw err;
        assert.ok(err instanceof GrpcError, `threw ${String(err)}`);
        assert.ok(([GrpcStatus.INTERNAL, GrpcStatus.RESOURCE_EXHAUSTED, GrpcStatus.UNIMPLEMENTED] as number[]).includes(err.code), err.message);
      }
      if (single) assert.ok(taken <= 1, `a single-message reader gave ${taken} messages`);
    },
  });
});

test("fuzz: well-formed messages come out the same however the bytes are cut", async () => {
  await runProperty({
    name: "grpc framing (round trip)",
    generate: (rng) => {
      const messages = Array.from({ length: rng.range(0, 6) }, () => ({ flag: rng.int(2), payload: bytes(rng, rng.chance(0.2) ? 0 : rng.range(1, 60)) }));
      const length = messages.reduce((n, m) => n + PREFIX_LENGTH + m.payload.length, 0);
      return { messages, sizes: cuts(rng, length) };
    },
    check: ({ messages, sizes }) => {
      const reader = new MessageReader(64);
      const out: Array<{ flag: number; payload: number[] }> = [];
      for (const chunk of chunked(framed(messages), sizes)) {
        reader.push(chunk);
        for (let m = reader.next(); m !== undefined; m = reader.next()) out.push({ flag: m.compressed ? 1 : 0, payload: [...m.data] });
      }
      reader.end();
      assert.deepEqual(out, messages);
      assert.equal(reader.buffered, 0);
    },
  });
});

test("fuzz: a single-message reader gives the first message and refuses the second at its prefix", async () => {
  await runProperty({
    name: "grpc framing (second message)",
    generate: (rng) => {
      const messages = Array.from({ length: rng.range(2, 5) }, () => ({ flag: 0, payload: bytes(rng, rng.range(0, 30)) }));
      // The second message's body may be missing entirely: the prefix alone must be refused.
      const whole = framed(messages);
      const cutAt = PREFIX_LENGTH + messages[0]!.payload.length + PREFIX_LENGTH + rng.int(whole.length - (2 * PREFIX_LENGTH + messages[0]!.payload.length) + 1);
      return { messages, sizes: cuts(rng, cutAt), cutAt };
    },
    check: ({ messages, sizes, cutAt }) => {
      const reader = new MessageReader(64, 1);
      const out: number[][] = [];
      let refused: unknown;
      try {
        for (const chunk of chunked(framed(messages).subarray(0, cutAt), sizes)) {
          reader.push(chunk);
          for (let m = reader.next(); m !== undefined; m = reader.next()) out.push([...m.data]);
        }
      } catch (err) {
        refused = err;
      }
      assert.deepEqual(out, [messages[0]!.payload]);
      assert.ok(refused instanceof GrpcError && refused.code === GrpcStatus.UNIMPLEMENTED, `not refused: ${String(refused)}`);
    },
  });
});

test("fuzz: the inbound queue, fed while it has room and drained at random, stays within its bounds", async () => {
  await runProperty({
    name: "grpc inbound queue",
    generate: (rng) => ({
      maxMessages: rng.range(1, 8),
      maxBytes: rng.pick([1, 10, 100, 1000]),
      // Each step: a message arrives off the wire (size, compressed?) or the handler pulls one.
      steps: Array.from({ length: rng.range(1, 60) }, () => (rng.chance(0.6) ? { size: rng.range(0, 300), compressed: rng.chance(0.2) } : { pull: true as const })),
    }),
    check: async ({ maxMessages, maxBytes, steps }) => {
      const LIMIT = 300; // the receive limit: what a compressed message counts until inflated
      let resumed = 0;
      const inbound = new InboundMessages<number>({ maxMessages, maxBytes, resume: () => resumed++ });
      const it = inbound[Symbol.asyncIterator]();
      let held = 0; // messages taken in, not yet pulled
      let heldBytes = 0;
      let waiting = false; // the reader is paused until resume
      let resumesExpected = 0;
      for (const step of steps) {
        if ("pull" in step) {
          if (held === 0) continue;
          const before = resumed;
          const r = await it.next();
          assert.equal(r.done, false);
          held--;
          heldBytes -= r.value!;
          if (resumed > before) {
            assert.ok(waiting, "resumed without having been paused");
            waiting = false;
          }
          continue;
        }
        if (waiting) continue; // paused: the wire is not read
        if (!inbound.hasRoom()) {
          waiting = true;
          resumesExpected++;
          continue;
        }
        const admitted = step.compressed ? LIMIT : step.size;
        inbound.admit(admitted);
        inbound.push(step.size, admitted, step.size);
        held++;
        heldBytes += step.size;
        // Never more than the bounds plus the one message that was let in while under them.
        assert.ok(held <= maxMessages, `${held} messages held (bound ${maxMessages})`);
        assert.ok(heldBytes < maxBytes + LIMIT, `${heldBytes} bytes held (bound ${maxBytes} + one message)`);
      }
      assert.ok(resumed <= resumesExpected);
    },
  });
});
