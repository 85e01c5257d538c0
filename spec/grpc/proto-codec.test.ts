// The wire codec against bytes worked out by hand from the protobuf encoding guide: each wire
// type, negative int32 as ten bytes, zigzag, packed and unpacked repeated fields, maps, oneofs,
// nested messages, unknown fields (groups included), and every way bytes can be malformed.
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import {
  decode, encode, loadProtoFile, loadProtoSource, MAX_NESTING_DEPTH, ProtobufDecodeError, ProtobufEncodeError, type MessageType,
} from "../../lib/grpc/index.js";

const fixtures = fileURLToPath(new URL("./fixtures/", import.meta.url));
const shop = loadProtoFile(join(fixtures, "kitchen-sink.proto"));
const users = loadProtoFile(join(fixtures, "users.proto"));
const type = (name: string): MessageType => {
  const t = shop.messages.get(name) ?? users.messages.get(name);
  assert.ok(t, name);
  return t;
};
const Scalars = type("shop.v1.Scalars");
const Repeats = type("shop.v1.Repeats");
const Order = type("shop.v1.Order");
const User = type("users.v1.User");

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ""), "hex");
const toHex = (b: Uint8Array): string => Buffer.from(b).toString("hex").replace(/(..)(?!$)/g, "$1 ");
const nullProto = (o: Record<string, unknown>): Record<string, unknown> => Object.assign(Object.create(null) as Record<string, unknown>, o);

function decodeError(t: MessageType, bytes: Uint8Array): ProtobufDecodeError {
  try {
    decode(t, bytes);
  } catch (err) {
    assert.ok(err instanceof ProtobufDecodeError, `expected ProtobufDecodeError, got ${String(err)}`);
    return err;
  }
  assert.fail(`expected ${toHex(bytes)} not to decode`);
}

const SCALAR_DEFAULTS = {
  fDouble: 0, fFloat: 0, fInt32: 0, fInt64: "0", fUint32: 0, fUint64: "0", fSint32: 0, fSint64: "0", fFixed32: 0, fFixed64: "0",
  fSfixed32: 0, fSfixed64: "0", fBool: false, fString: "", fBytes: Buffer.alloc(0),
};

describe("golden bytes, one wire type at a time", () => {
  const golden: Array<[string, Record<string, unknown>, string]> = [
    ["int32 150 (the guide's example)", { fInt32: 150 }, "18 96 01"],
    ["int32 -1 as a ten-byte varint", { fInt32: -1 }, "18 ff ff ff ff ff ff ff ff ff 01"],
    ["int32 min", { fInt32: -2147483648 }, "18 80 80 80 80 f8 ff ff ff ff 01"],
    ["int64 -2", { fInt64: "-2" }, "20 fe ff ff ff ff ff ff ff ff 01"],
    ["int64 max", { fInt64: "9223372036854775807" }, "20 ff ff ff ff ff ff ff ff 7f"],
    ["uint32 max", { fUint32: 4294967295 }, "28 ff ff ff ff 0f"],
    ["uint64 max", { fUint64: "18446744073709551615" }, "30 ff ff ff ff ff ff ff ff ff 01"],
    ["uint64 2^53+1 (beyond doubles)", { fUint64: "9007199254740993" }, "30 81 80 80 80 80 80 80 10"],
    ["sint32 -1 → 1", { fSint32: -1 }, "38 01"],
    ["sint32 1 → 2", { fSint32: 1 }, "38 02"],
    ["sint32 -2 → 3", { fSint32: -2 }, "38 03"],
    ["sint32 max → 2^32-2", { fSint32: 2147483647 }, "38 fe ff ff ff 0f"],
    ["sint32 min → 2^32-1", { fSint32: -2147483648 }, "38 ff ff ff ff 0f"],
    ["sint64 -1 → 1", { fSint64: "-1" }, "40 01"],
    ["sint64 min → 2^64-1", { fSint64: "-9223372036854775808" }, "40 ff ff ff ff ff ff ff ff ff 01"],
    ["sint64 max → 2^64-2", { fSint64: "9223372036854775807" }, "40 fe ff ff ff ff ff ff ff ff 01"],
    ["fixed32 little-endian", { fFixed32: 0x01020304 }, "4d 04 03 02 01"],
    ["fixed64 little-endian", { fFixed64: "72623859790382856" }, "51 08 07 06 05 04 03 02 01"],
    ["sfixed32 -2", { fSfixed32: -2 }, "5d fe ff ff ff"],
    ["sfixed64 -2", { fSfixed64: "-2" }, "61 fe ff ff ff ff ff ff ff"],
    ["double 1", { fDouble: 1 }, "09 00 00 00 00 00 00 f0 3f"],
    ["double -0 (not the default, bitwise)", { fDouble: -0 }, "09 00 00 00 00 00 00 00 80"],
    ["float 1", { fFloat: 1 }, "15 00 00 80 3f"],
    ["float -2.5", { fFloat: -2.5 }, "15 00 00 20 c0"],
    ["bool true", { fBool: true }, "68 01"],
    ["string (the guide's 'testing')", { fString: "testing" }, "72 07 74 65 73 74 69 6e 67"],
    ["string UTF-8", { fString: "é😀" }, "72 06 c3 a9 f0 9f 98 80"],
    ["bytes", { fBytes: Buffer.from([1, 2, 3]) }, "7a 03 01 02 03"],
  ];
  for (const [name, value, bytes] of golden) {
    it(name, () => {
      assert.equal(toHex(encode(Scalars, value)), bytes);
      assert.deepEqual(decode(Scalars, hex(bytes)), { ...SCALAR_DEFAULTS, ...value });
    });
  }

  it("omits implicit-presence defaults and decodes nothing to all defaults", () => {
    assert.equal(encode(Scalars, SCALAR_DEFAULTS).length, 0);
    assert.equal(encode(Scalars, { fInt64: 0n, fUint64: "0", fSint64: "-0", fBytes: "" }).length, 0);
    assert.deepEqual(decode(Scalars, new Uint8Array(0)), SCALAR_DEFAULTS);
  });

  it("accepts 64-bit integers as number, bigint, string and Long-like", () => {
    for (const v of [300, 300n, "300", { low: 300, high: 0 }]) assert.equal(toHex(encode(Scalars, { fInt64: v })), "20 ac 02");
    assert.equal(toHex(encode(Scalars, { fInt64: -1n })), "20 ff ff ff ff ff ff ff ff ff 01");
  });

  it("decodes a 5-byte varint for int32 by keeping the low 32 bits", () => {
    assert.equal(decode(Scalars, hex("18 ff ff ff ff 0f")).fInt32, -1);
  });

  it("decodes bool from any non-zero varint and bytes as a copied Buffer", () => {
    assert.equal(decode(Scalars, hex("68 80 80 80 80 80 80 80 80 80 01")).fBool, true);
    const input = hex("7a 02 aa bb");
    const out = decode(Scalars, input).fBytes as Buffer;
    assert.ok(Buffer.isBuffer(out));
    input[2] = 0;
    assert.deepEqual([...out], [0xaa, 0xbb]);
  });
});

describe("repeated fields", () => {
  it("packs scalars by default (the guide's example) and honours [packed = false]", () => {
    assert.equal(toHex(encode(Repeats, { packedInts: [3, 270, 86942] })), "0a 06 03 8e 02 9e a7 05");
    assert.equal(toHex(encode(Repeats, { unpackedInts: [1, 2] })), "10 01 10 02");
    assert.equal(toHex(encode(Repeats, { zigzags: ["-1", 1, -2n] })), "1a 03 01 02 03");
    assert.equal(toHex(encode(Repeats, { fixeds: [1, 2] })), "42 08 01 00 00 00 02 00 00 00");
    assert.equal(toHex(encode(Repeats, { statuses: ["STATUS_ACTIVE", "STATUS_DELETED", 7] })), "3a 0c 01 ff ff ff ff ff ff ff ff ff 01 07");
    assert.equal(toHex(encode(Repeats, { strings: ["a", ""], blobs: [Buffer.from([9])] })), "2a 01 61 2a 00 32 01 09");
    assert.equal(encode(Repeats, { packedInts: [], strings: [] }).length, 0);
  });

  it("accepts packed and unpacked encodings alike, and both mixed in one message", () => {
    const empty = { packedInts: [], unpackedInts: [], zigzags: [], doubles: [], strings: [], blobs: [], statuses: [], fixeds: [], flags: [] };
    assert.deepEqual(decode(Repeats, hex("08 03 08 8e 02 0a 01 05")), { ...empty, packedInts: [3, 270, 5] });
    assert.deepEqual(decode(Repeats, hex("12 02 01 02 10 03")), { ...empty, unpackedInts: [1, 2, 3] });
    assert.deepEqual(decode(Repeats, hex("3a 02 01 05 4a 02 01 00")), { ...empty, statuses: ["STATUS_ACTIVE", 5], flags: [true, false] });
    assert.deepEqual(decode(Repeats, hex("22 08 00 00 00 00 00 00 f0 3f")), { ...empty, doubles: [1] });
  });

  it("rejects a packed run that ends inside a value", () => {
    assert.match(decodeError(Repeats, hex("0a 01 96")).message, /truncated varint/);
    assert.match(decodeError(Repeats, hex("42 03 01 00 00")).message, /truncated fixed-width/);
  });
});

describe("messages, maps, oneofs, optional", () => {
  const ORDER_DEFAULTS = {
    id: "", lines: [], labels: nullProto({}), linesByPosition: nullProto({}), flags: nullProto({}), statusById: nullProto({}),
    status: "STATUS_UNSPECIFIED", createdAt: null, defaultKind: "KIND_UNSPECIFIED", parent: null,
  };

  it("decodes nothing to defaults: null messages, empty lists and maps, optional and oneof absent", () => {
    const out = decode(Order, new Uint8Array(0));
    assert.deepEqual(out, ORDER_DEFAULTS);
    assert.ok(!("note" in out) && !("payment" in out) && !("cardToken" in out));
    assert.equal(Object.getPrototypeOf(out["labels"]), null);
  });

  it("nests messages with length prefixes", () => {
    const bytes = encode(Order, { lines: [{ sku: "a", quantity: 2 }] });
    assert.equal(toHex(bytes), "12 05 0a 01 61 10 02");
    assert.deepEqual(decode(Order, bytes).lines, [{ sku: "a", quantity: 2, price: null, kind: "KIND_UNSPECIFIED" }]);
    // A nested message longer than 127 bytes needs a two-byte length.
    const long = encode(Order, { id: "x".repeat(200), parent: { id: "y".repeat(200) } });
    assert.equal(toHex(long.subarray(203, 206)), "72 cb 01");
    assert.equal((decode(Order, long).parent as { id: string }).id, "y".repeat(200));
  });

  it("writes an empty sub-message that is set, and merges a sub-message sent twice", () => {
    assert.equal(toHex(encode(Order, { createdAt: {} })), "62 00");
    const merged = decode(Order, hex("62 02 08 05 62 02 10 07"));
    assert.deepEqual(merged.createdAt, { seconds: "5", nanos: 7 });
  });

  it("encodes maps as entry messages and decodes them to null-prototype objects", () => {
    assert.equal(toHex(encode(Order, { labels: { k: "v" } })), "1a 06 0a 01 6b 12 01 76");
    assert.equal(toHex(encode(Order, { flags: { true: 5, false: "-1" } })), "2a 04 08 01 10 05 2a 0d 08 00 10 ff ff ff ff ff ff ff ff ff 01");
    assert.equal(toHex(encode(Order, { statusById: new Map([["18446744073709551615", "STATUS_ACTIVE"]]) })), "7a 0d 08 ff ff ff ff ff ff ff ff ff 01 10 01");
    const out = decode(Order, encode(Order, { labels: { k: "v", __proto__x: "p" }, linesByPosition: { "-3": { sku: "s" } }, flags: { true: 5 } }));
    assert.deepEqual(out.labels, nullProto({ k: "v", __proto__x: "p" }));
    assert.deepEqual(out.linesByPosition, nullProto({ "-3": { sku: "s", quantity: 0, price: null, kind: "KIND_UNSPECIFIED" } }));
    assert.deepEqual(out.flags, nullProto({ true: "5" }));
  });

  it("decodes a map key named __proto__ as data, and entries missing their key or value as defaults", () => {
    const out = decode(Order, hex("1a 0d 0a 09 5f 5f 70 72 6f 74 6f 5f 5f 12 00 1a 03 12 01 76 22 02 08 07"));
    assert.equal(Object.getPrototypeOf(out.labels), null);
    assert.deepEqual(Object.keys(out.labels as object), ["__proto__", ""]);
    assert.equal((out.labels as Record<string, string>)[""], "v");
    assert.deepEqual(out.linesByPosition, nullProto({ 7: { sku: "", quantity: 0, price: null, kind: "KIND_UNSPECIFIED" } }));
  });

  it("names the set oneof member in the virtual field, last one on the wire wins", () => {
    assert.equal(toHex(encode(Order, { cardToken: "x" })), "4a 01 78");
    assert.deepEqual(decode(Order, hex("4a 01 78")), { ...ORDER_DEFAULTS, cardToken: "x", payment: "cardToken" });
    const last = decode(Order, hex("4a 01 78 5a 00"));
    assert.equal(last.payment, "free");
    assert.deepEqual(last.free, {});
    assert.ok(!("cardToken" in last));
    // A member holding its default is still sent: oneof members have presence.
    assert.equal(toHex(encode(Order, { cardToken: "" })), "4a 00");
    // With the virtual field set, only that member is written.
    assert.equal(toHex(encode(Order, { payment: "bankTransfer", cardToken: "x", bankTransfer: { cents: 5 } })), "52 02 08 05");
  });

  it("keeps optional fields absent unless sent, and sends them even when zero", () => {
    assert.equal(toHex(encode(Order, { priority: 0, note: "" })), "3a 00 40 00");
    const out = decode(Order, hex("40 00"));
    assert.equal(out.priority, 0);
    assert.ok(!("note" in out));
  });

  it("encodes enums by name or number and decodes unknown numbers as numbers", () => {
    assert.equal(toHex(encode(Order, { status: "STATUS_ENABLED" })), "30 01");
    assert.equal(toHex(encode(Order, { status: -1 })), "30 ff ff ff ff ff ff ff ff ff 01");
    assert.equal(encode(Order, { status: "STATUS_UNSPECIFIED" }).length, 0);
    assert.equal(decode(Order, hex("30 01")).status, "STATUS_ACTIVE");
    assert.equal(decode(Order, hex("30 63")).status, 99);
  });
});

describe("unknown fields are skipped", () => {
  const known = "0a 02 69 64"; // id = "id"
  const unknowns: Array<[string, string]> = [
    ["varint", "a0 06 96 01"], // field 100
    ["fixed64", "a1 06 01 02 03 04 05 06 07 08"],
    ["length-delimited", "a2 06 03 61 62 63"],
    ["fixed32", "a5 06 01 02 03 04"],
    ["group with nested fields and a nested group", "9b 06 08 01 a3 06 10 02 a4 06 12 01 61 9c 06"],
    ["empty group", "9b 06 9c 06"],
    ["known number with the wrong wire type", "0d 01 02 03 04"],
  ];
  for (const [name, bytes] of unknowns) {
    it(name, () => {
      assert.deepEqual(decode(User, hex(`${bytes} ${known} ${bytes}`)), { id: "id", name: "", email: "", createdAt: "0" });
    });
  }
});

describe("malformed bytes give ProtobufDecodeError", () => {
  const bad: Array<[string, string, RegExp]> = [
    ["truncated varint", "08 96", /truncated varint/],
    ["varint of 11 bytes", "20 ff ff ff ff ff ff ff ff ff ff 01", /longer than 10 bytes/],
    ["varint beyond 64 bits", "20 ff ff ff ff ff ff ff ff ff 02", /overflows 64 bits/],
    ["length past the end", "0a 05 61", /runs past the end/],
    ["length of 2^32-1 (no allocation)", "0a ff ff ff ff 0f", /runs past the end/],
    ["length beyond 2^32", "0a ff ff ff ff ff 01", /beyond 2\^32/],
    ["field number 0", "00 01", /invalid tag/],
    ["tag wider than 32 bits", "80 80 80 80 80 01 00", /invalid tag/],
    ["wire type 6", "0e", /invalid wire type 6/],
    ["wire type 7", "0f", /invalid wire type 7/],
    ["end-group without a start", "0c", /unexpected end-group/],
    ["group never ended", "9b 06 08 01", /has no end/],
    ["group ended by another number", "9b 06 a4 06", /ended by end-group 100/],
    ["truncated fixed32", "a5 06 01 02", /truncated fixed-width/],
    ["invalid UTF-8 (lone continuation byte)", "0a 01 80", /not valid UTF-8/],
    ["invalid UTF-8 (overlong NUL)", "0a 02 c0 80", /not valid UTF-8/],
    ["invalid UTF-8 (encoded surrogate)", "0a 03 ed a0 80", /not valid UTF-8/],
    ["invalid UTF-8 (truncated sequence)", "0a 02 e2 82", /not valid UTF-8/],
  ];
  for (const [name, bytes, message] of bad) {
    it(name, () => assert.match(decodeError(User, hex(bytes)).message, message));
  }

  it("keeps a valid BOM and a NUL in strings", () => {
    assert.equal(decode(User, hex("0a 04 ef bb bf 00")).id, "\ufeff\0");
  });

  it("rejects a nested message whose length overruns its parent", () => {
    assert.match(decodeError(Order, hex("12 02 0a 05 61 61 61 61 61")).message, /runs past the end/);
  });

  it("rejects a non-Uint8Array input", () => {
    assert.throws(() => decode(User, "0a00" as unknown as Uint8Array), ProtobufDecodeError);
  });
});

describe("nesting depth limit", () => {
  const Node = loadProtoSource('syntax = "proto3"; message Node { Node child = 1; int32 v = 2; }').messages.get("Node")!;
  const nestedBytes = (levels: number): Buffer => {
    let inner = Buffer.alloc(0);
    for (let i = 0; i < levels; i++) inner = Buffer.concat([Buffer.from([0x0a]), encodeLength(inner.length), inner]);
    return inner;
  };
  const nestedValue = (levels: number): Record<string, unknown> => {
    let v: Record<string, unknown> = { v: 1 };
    for (let i = 0; i < levels; i++) v = { child: v };
    return v;
  };

  it(`decodes ${MAX_NESTING_DEPTH} nested messages and refuses ${MAX_NESTING_DEPTH + 1}`, () => {
    assert.equal(MAX_NESTING_DEPTH, 100);
    let node = decode(Node, nestedBytes(100)) as { child: unknown };
    for (let i = 0; i < 100; i++) node = node.child as { child: unknown };
    assert.equal(node.child, null);
    assert.match(decodeError(Node, nestedBytes(101)).message, /nest deeper than 100/);
  });

  it(`encodes ${MAX_NESTING_DEPTH} nested messages and refuses ${MAX_NESTING_DEPTH + 1} (a cycle cannot loop)`, () => {
    assert.ok(encode(Node, nestedValue(100)).length > 0);
    assert.throws(() => encode(Node, nestedValue(101)), ProtobufEncodeError);
    const cyclic: Record<string, unknown> = {};
    cyclic["child"] = cyclic;
    assert.throws(() => encode(Node, cyclic), /nest deeper than 100/);
  });

  it("limits nested unknown groups the same way", () => {
    const groups = (n: number) => Buffer.concat([Buffer.alloc(n, 0x1b), Buffer.alloc(n, 0x1c)]); // field 3 start/end
    assert.deepEqual(decode(Node, groups(100)), { child: null, v: 0 });
    assert.match(decodeError(Node, groups(101)).message, /nesting deeper than 100/);
  });
});

function encodeLength(n: number): Buffer {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return Buffer.from(out);
}

describe("values that do not fit give ProtobufEncodeError naming the field", () => {
  const cases: Array<[MessageType, Record<string, unknown>, RegExp]> = [
    [Scalars, { fInt32: 2147483648 }, /^Scalars\.fInt32: 2147483648 is out of range/],
    [Scalars, { fInt32: 1.5 }, /fInt32/],
    [Scalars, { fUint32: -1 }, /out of range for a 32-bit unsigned/],
    [Scalars, { fUint64: "-1" }, /out of range for uint64/],
    [Scalars, { fUint64: "18446744073709551616" }, /out of range for uint64/],
    [Scalars, { fInt64: "9223372036854775808" }, /out of range for int64/],
    [Scalars, { fInt64: "12abc" }, /expected an integer string/],
    [Scalars, { fBool: 1 }, /expected a boolean/],
    [Scalars, { fString: 5 }, /expected a string/],
    [Scalars, { fString: "a\ud800b" }, /lone surrogate/],
    [Scalars, { fDouble: "1" }, /expected a number/],
    [Scalars, { fBytes: 5 }, /expected bytes/],
    [Order, { status: "NOPE" }, /^Order\.status: "NOPE" is not a value of shop\.v1\.Status/],
    [Order, { lines: {} }, /expected an array/],
    [Order, { lines: [null] }, /^Order\.lines\[0\]: repeated fields cannot hold null/],
    [Order, { lines: [{ quantity: -1 }] }, /^Order\.lines\[0\]\.quantity:/],
    [Order, { parent: "x" }, /expected an object/],
    [Order, { flags: { maybe: 1 } }, /invalid bool map key/],
    [Order, { linesByPosition: { "1.5": {} } }, /invalid integer map key/],
  ];
  for (const [t, value, message] of cases) {
    it(JSON.stringify(value), () => {
      assert.throws(() => encode(t, value), (err: unknown) => err instanceof ProtobufEncodeError && message.test(err.message));
    });
  }
});
