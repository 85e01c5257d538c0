// The RESP parser and encoder on hand-written frames: every type, every split point (fed one byte
// at a time and in random chunks), and the bounds that make a hostile server a protocol error.
import { test } from "node:test";
import assert from "node:assert/strict";
import { RespParser, MAX_DEPTH } from "../../../lib/redis/client/resp-parser.js";
import { encodeCommand } from "../../../lib/redis/client/resp-encoder.js";
import { RedisError, RedisProtocolError } from "../../../lib/redis/client/errors.js";

interface Frame {
  value: unknown;
  push: boolean;
  nested: string | undefined;
}

/** Error replies compared by message (deepEqual would compare their stacks). */
function plain(value: unknown): unknown {
  if (value instanceof RedisError) return `<error ${value.message}>`;
  if (Array.isArray(value)) return value.map(plain);
  return value;
}

function collector(): { parser: RespParser; frames: Frame[] } {
  const frames: Frame[] = [];
  const parser = new RespParser((value, push, nested) => frames.push({ value: plain(value), push, nested: nested?.message }));
  return { parser, frames };
}

function nullProto(entries: [string, unknown][]): Record<string, unknown> {
  const map = Object.create(null) as Record<string, unknown>;
  for (const [key, value] of entries) map[key] = value;
  return map;
}

const STREAM =
  "+OK\r\n" +
  "-ERR bad thing\r\n" +
  ":42\r\n" +
  ":-7\r\n" +
  ":12345678901234567890\r\n" +
  "$5\r\nh\r\nl\n\r\n" +
  "$0\r\n\r\n" +
  "$-1\r\n" +
  "*-1\r\n" +
  "*0\r\n" +
  "*3\r\n:1\r\n*2\r\n+a\r\n$1\r\nb\r\n$-1\r\n" +
  "_\r\n" +
  "#t\r\n#f\r\n" +
  ",3.25\r\n,inf\r\n,-inf\r\n" +
  "(3492890328409238509324850943850943825024385\r\n" +
  "!21\r\nSYNTAX invalid syntax\r\n" +
  "=15\r\ntxt:Some string\r\n" +
  "%2\r\n+first\r\n:1\r\n$9\r\n__proto__\r\n#t\r\n" +
  "~2\r\n+x\r\n+y\r\n" +
  "|1\r\n+ttl\r\n:3600\r\n+after-attribute\r\n" +
  ">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$3\r\nhi!\r\n" +
  "*2\r\n+fine\r\n-WRONGTYPE nested\r\n" +
  "$4\r\n\u00e9\u00e9\r\n";

function expected(): Frame[] {
  const f = (value: unknown, push = false, nested?: string): Frame => ({ value, push, nested });
  return [
    f("OK"),
    f("<error ERR bad thing>"),
    f(42),
    f(-7),
    f(12345678901234567890n),
    f("h\r\nl\n"),
    f(""),
    f(null),
    f(null),
    f([]),
    f([1, ["a", "b"], null]),
    f(null),
    f(true),
    f(false),
    f(3.25),
    f(Infinity),
    f(-Infinity),
    f(3492890328409238509324850943850943825024385n),
    f("<error SYNTAX invalid syntax>"),
    f("Some string"),
    f(nullProto([["first", 1], ["__proto__", true]])),
    f(["x", "y"]),
    f("after-attribute"),
    f(["message", "ch", "hi!"], true),
    f(["fine", "<error WRONGTYPE nested>"], false, "WRONGTYPE nested"),
    f("éé"),
  ];
}

test("every RESP2 and RESP3 type, fed whole", () => {
  const { parser, frames } = collector();
  parser.feed(Buffer.from(STREAM, "utf8"));
  assert.deepEqual(frames, expected());
  assert.equal(new RedisError("ERR bad thing").code, "ERR");
  assert.equal(Object.getPrototypeOf(frames[20]!.value), null);
});

test("fed one byte at a time: the same frames", () => {
  const { parser, frames } = collector();
  const bytes = Buffer.from(STREAM, "utf8");
  for (let i = 0; i < bytes.length; i++) parser.feed(bytes.subarray(i, i + 1));
  assert.deepEqual(frames, expected());
});

test("split at every point into two chunks, and in random chunks", () => {
  const bytes = Buffer.from(STREAM, "utf8");
  for (let cut = 1; cut < bytes.length; cut++) {
    const { parser, frames } = collector();
    parser.feed(bytes.subarray(0, cut));
    parser.feed(bytes.subarray(cut));
    assert.deepEqual(frames, expected(), `cut at ${cut}`);
  }
  let seed = 7;
  const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let run = 0; run < 50; run++) {
    const { parser, frames } = collector();
    for (let at = 0; at < bytes.length; ) {
      const size = 1 + Math.floor(random() * 40);
      parser.feed(bytes.subarray(at, at + size));
      at += size;
    }
    assert.deepEqual(frames, expected());
  }
});

test("bulk strings decode as Buffers when asked, per reply", () => {
  const { parser, frames } = collector();
  parser.buffers = true;
  parser.feed(Buffer.from("$3\r\n\x00\xff\r\r\n", "latin1"));
  parser.buffers = false;
  parser.feed(Buffer.from("$2\r\nok\r\n"));
  assert.deepEqual(frames[0]!.value, Buffer.from([0, 255, 13]));
  assert.equal(frames[1]!.value, "ok");
});

test("a large bulk string in many chunks is joined once and exactly", () => {
  const { parser, frames } = collector();
  const payload = Buffer.alloc(1_000_000, 0x61);
  const wire = Buffer.concat([Buffer.from(`$${payload.length}\r\n`), payload, Buffer.from("\r\n:1\r\n")]);
  for (let at = 0; at < wire.length; at += 1000) parser.feed(wire.subarray(at, at + 1000));
  assert.equal(frames.length, 2);
  assert.equal((frames[0]!.value as string).length, payload.length);
  assert.equal(frames[1]!.value, 1);
});

test("hostile frames are protocol errors", () => {
  const cases = [
    "$536870913\r\n", // one byte over 512 MiB
    "*99999999999999\r\n",
    "$abc\r\n",
    "$-5\r\n",
    ":12x\r\n",
    "?\r\n",
    "+no-cr\n",
    "#x\r\n",
    "$3\r\nabcd\r\n",
    "*1\r\n".repeat(MAX_DEPTH + 1),
  ];
  for (const wire of cases) {
    const { parser } = collector();
    assert.throws(() => parser.feed(Buffer.from(wire)), RedisProtocolError, JSON.stringify(wire.slice(0, 30)));
  }
  const { parser, frames } = collector();
  parser.feed(Buffer.from("*1\r\n".repeat(MAX_DEPTH - 1) + ":1\r\n"));
  assert.equal(frames.length, 1, "nesting up to the limit is fine");
});

test("reset() drops a half-read frame", () => {
  const { parser, frames } = collector();
  parser.feed(Buffer.from("*2\r\n:1\r\n$10\r\nabc"));
  parser.reset();
  parser.feed(Buffer.from(":5\r\n"));
  assert.deepEqual(frames, [{ value: 5, push: false, nested: undefined }]);
});

test("the encoder writes arrays of bulk strings: UTF-8 strings, Buffers as-is, numbers as text", () => {
  const wire = encodeCommand(["SET", "clé", Buffer.from([0, 13, 10]), 42, -1.5, Infinity]);
  const expectedWire = Buffer.concat([
    Buffer.from("*6\r\n$3\r\nSET\r\n$4\r\nclé\r\n$3\r\n"),
    Buffer.from([0, 13, 10]),
    Buffer.from("\r\n$2\r\n42\r\n$4\r\n-1.5\r\n$4\r\n+inf\r\n"),
  ]);
  assert.deepEqual(wire, expectedWire);
  const many = Array.from({ length: 300 }, (_, i) => `a${i}`);
  const text = encodeCommand(many).toString();
  assert.ok(text.startsWith("*300\r\n$2\r\na0\r\n"));
  assert.ok(text.endsWith("$4\r\na299\r\n"));
  assert.throws(() => encodeCommand([]), TypeError);
  assert.throws(() => encodeCommand(["GET", null as never]), TypeError);
});
