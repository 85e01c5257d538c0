// The RESP parser, fuzzed: random and mutated replies cut into random chunks never throw anything
// but a RedisProtocolError and never leave more buffered than the limits allow; valid replies
// parse the same however they are cut; and a reply parses exactly when its size on the wire is
// within maxReplyBytes (its elements within maxReplyElements), so a hostile server can never make
// the client hold more.
import assert from "node:assert/strict";
import { test } from "node:test";
import { RedisError, RedisProtocolError, RespParser, type RespLimits } from "../../lib/redis/index.js";
import { runProperty, shrinkCandidates, type Rng } from "./property.js";

/** Bytes as latin1 text, so inputs shrink as strings. */
interface Input {
  wire: string;
  /** Chunk lengths, used in turn (cycled). */
  cuts: number[];
}

const SMALL: RespLimits = { maxReplyBytes: 2048, maxReplyElements: 64, maxLineBytes: 128 };

const TEXT = ["", "OK", "a", "héllo", "\r", "\n", "\r\n", "x".repeat(40), "\u0000\u00ff", "-1", "12"];

/** One valid RESP2/RESP3 value (no attributes: they annotate the next value and carry its bytes). */
function value(rng: Rng, depth: number): string {
  const bulk = (s: string): string => `$${Buffer.byteLength(s, "latin1")}\r\n${s}\r\n`;
  const plain = (): string => rng.pick(TEXT).replace(/[\r\n]/g, "");
  switch (rng.int(depth > 3 ? 10 : 14)) {
    case 0: return `+${plain()}\r\n`;
    case 1: return `-${rng.pick(["ERR", "WRONGTYPE", "OOM", "READONLY", "BUSY"])} ${plain()}\r\n`;
    case 2: return `:${rng.range(-1000, 1000)}\r\n`;
    case 3: return bulk(rng.pick(TEXT) + (rng.chance(0.1) ? "z".repeat(rng.int(600)) : ""));
    case 4: return "$-1\r\n";
    case 5: return "_\r\n";
    case 6: return rng.chance(0.5) ? "#t\r\n" : "#f\r\n";
    case 7: return `,${rng.pick(["1.5", "-0.25", "inf", "-inf", "nan", "3"])}\r\n`;
    case 8: return `(${rng.pick(["0", "-12345678901234567890", "99999999999999999999"])}\r\n`;
    case 9: return `=${4 + 2}\r\ntxt:ab\r\n`;
    case 10:
    case 11: {
      const n = rng.int(6);
      let s = `${rng.pick(["*", "~", ">"])}${n}\r\n`;
      for (let i = 0; i < n; i++) s += value(rng, depth + 1);
      return s;
    }
    case 12: {
      const n = rng.int(4);
      let s = `%${n}\r\n`;
      for (let i = 0; i < n; i++) s += `+k${i}\r\n` + value(rng, depth + 1);
      return s;
    }
    default: return `!${"ERR x".length}\r\nERR x\r\n`;
  }
}

const NOISE = ["\r\n", "\r", "\n", "$", "*", "%", "|", ">", ":", "-1", "$536870912\r\n", "*1073741824\r\n", "%999999\r\n", "+", "x".repeat(300), "9", "$3\r\nab", "*1\r\n".repeat(20)];

function mutate(rng: Rng, wire: string): string {
  let s = wire;
  for (let i = rng.range(1, 3); i > 0; i--) {
    const at = rng.int(s.length + 1);
    switch (rng.int(3)) {
      case 0: s = s.slice(0, at) + rng.pick(NOISE) + s.slice(at); break;
      case 1: s = s.slice(0, at) + s.slice(at + rng.range(1, 4)); break;
      default: s = s.slice(0, at) + String.fromCharCode(rng.int(256)) + s.slice(at + 1);
    }
  }
  return s;
}

function cuts(rng: Rng): number[] {
  return Array.from({ length: rng.range(1, 6) }, () => (rng.chance(0.3) ? 1 : rng.range(1, 400)));
}

/** Feeds `wire` in chunks; the replies (errors by message), or the error thrown. */
function parse(input: Input, limits?: RespLimits, afterFeed?: (parser: RespParser) => void): { replies: unknown[]; thrown?: unknown } {
  const replies: unknown[] = [];
  const show = (v: unknown): unknown => (v instanceof RedisError ? `<${v.message}>` : Array.isArray(v) ? v.map(show) : v);
  const parser = new RespParser((v, push) => replies.push([push, show(v)]), limits);
  const bytes = Buffer.from(input.wire, "latin1");
  const sizes = input.cuts.length === 0 ? [bytes.length || 1] : input.cuts.map((c) => Math.max(1, c));
  try {
    for (let at = 0, i = 0; at < bytes.length; i++) {
      const size = sizes[i % sizes.length]!;
      // A fresh copy: the parser may keep views of what it is fed.
      parser.feed(Buffer.from(bytes.subarray(at, at + size)));
      at += size;
      afterFeed?.(parser);
    }
  } catch (thrown) {
    return { replies, thrown };
  }
  return { replies };
}

test("random and mutated replies in random chunks: only RedisProtocolError, never more buffered than the limits", async () => {
  const bound = Math.max(SMALL.maxReplyBytes, SMALL.maxLineBytes);
  await runProperty<Input>({
    name: "resp/hostile-bytes",
    generate: (rng) => {
      let wire = "";
      for (let i = rng.range(1, 4); i > 0; i--) wire += value(rng, 0);
      if (rng.chance(0.7)) wire = mutate(rng, wire);
      if (rng.chance(0.1)) wire = Array.from({ length: rng.range(1, 40) }, () => rng.pick(NOISE)).join("");
      return { wire, cuts: cuts(rng) };
    },
    check: (input) => {
      let most = 0;
      const { thrown } = parse(input, SMALL, (parser) => (most = Math.max(most, parser.bufferedBytes)));
      if (thrown !== undefined) assert.ok(thrown instanceof RedisProtocolError, `threw ${(thrown as Error)?.name}: ${(thrown as Error)?.message}`);
      assert.ok(most <= bound, `buffered ${most} bytes, over ${bound}`);
    },
    shrink: (input) => (shrinkCandidates(input.wire) as string[]).map((wire) => ({ wire, cuts: input.cuts })),
  });
});

test("valid replies parse the same however they are cut", async () => {
  await runProperty<Input>({
    name: "resp/chunking",
    generate: (rng) => {
      let wire = "";
      for (let i = rng.range(1, 5); i > 0; i--) wire += value(rng, 0);
      return { wire, cuts: cuts(rng) };
    },
    check: (input) => {
      const whole = parse({ wire: input.wire, cuts: [] });
      const chunked = parse(input);
      assert.equal(whole.thrown, undefined, String(whole.thrown));
      assert.equal(chunked.thrown, undefined, String(chunked.thrown));
      assert.deepEqual(chunked.replies, whole.replies);
    },
    // Shrinking a valid reply would make it invalid: report the case as found.
    shrink: () => [],
  });
});

test("a reply parses exactly when its wire size is within maxReplyBytes", async () => {
  await runProperty<Input>({
    name: "resp/reply-bytes",
    generate: (rng) => ({ wire: value(rng, 0), cuts: cuts(rng) }),
    check: (input) => {
      const size = Buffer.byteLength(input.wire, "latin1");
      const within = parse(input, { ...SMALL, maxReplyElements: 1e6, maxReplyBytes: size });
      assert.equal(within.thrown, undefined, `at its size (${size}): ${String(within.thrown)}`);
      assert.equal(within.replies.length, 1);
      const over = parse(input, { ...SMALL, maxReplyElements: 1e6, maxReplyBytes: size - 1 });
      assert.ok(over.thrown instanceof RedisProtocolError && /maxReplyBytes/.test(over.thrown.message), `one byte under its size: ${String(over.thrown)}`);
    },
    shrink: () => [],
  });
});
