// The protobuf codec, fuzzed: random proto3 schemas with random values round-trip
// encode → decode unchanged, and random or mutated bytes decode or throw ProtobufDecodeError,
// never anything else and never slowly.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { decode, encode, loadProtoFile, loadProtoSource, ProtobufDecodeError, type MessageType, type ScalarType, type ValueType } from "../../lib/grpc/index.js";
import { Rng, runProperty } from "./property.js";

const kitchenSink = loadProtoFile(join(fileURLToPath(new URL("../grpc/fixtures/", import.meta.url)), "kitchen-sink.proto"));

const SCALARS: ScalarType[] = ["double", "float", "int32", "int64", "uint32", "uint64", "sint32", "sint64", "fixed32", "fixed64", "sfixed32", "sfixed64", "bool", "string", "bytes"];
const KEY_SCALARS: ScalarType[] = SCALARS.filter((s) => s !== "double" && s !== "float" && s !== "bytes");
const STRINGS = ["", "a", "é", "😀", "x y", "\u0000", "\ufeff", "long ".repeat(30), "__proto__", "constructor"];

/** A random proto3 file: a few messages referring to each other (recursion included) and an enum. */
function randomSchema(rng: Rng): string {
  const messages = rng.range(1, 3);
  const type = (allowMap: boolean): string => {
    const r = rng.int(10);
    if (r < 6) return rng.pick(SCALARS);
    if (r < 8) return "E";
    if (allowMap && r === 8) return `map<${rng.pick(KEY_SCALARS)}, ${type(false)}>`;
    return `M${rng.int(messages)}`;
  };
  let src = 'syntax = "proto3";\npackage fuzz;\nenum E { E_ZERO = 0; E_ONE = 1; E_NEG = -5; E_ALIAS = 1; option allow_alias = true; }\n';
  for (let m = 0; m < messages; m++) {
    src += `message M${m} {\n`;
    const used = new Set<number>();
    const num = () => {
      let n: number;
      do n = rng.chance(0.8) ? rng.range(1, 20) : rng.pick([15, 16, 2047, 2048, 18999, 20000, 536870911]);
      while (used.has(n));
      used.add(n);
      return n;
    };
    const fields = rng.range(0, 6);
    for (let f = 0; f < fields; f++) {
      const t = type(true);
      const label = t.startsWith("map<") ? "" : rng.pick(["", "", "repeated ", "optional "]);
      src += `  ${label}${t} f${f} = ${num()};\n`;
    }
    if (rng.chance(0.5)) {
      src += "  oneof choice {\n";
      for (let f = 0; f < rng.range(1, 3); f++) src += `    ${type(false)} o${f} = ${num()};\n`;
      src += "  }\n";
    }
    src += "}\n";
  }
  return src;
}

function scalarValue(rng: Rng, s: ScalarType): unknown {
  const int = (min: number, max: number) => (rng.chance(0.3) ? rng.pick([min, max, 0, -1, 1].filter((v) => v >= min && v <= max)) : rng.range(Math.max(min, -1e6), Math.min(max, 1e6)));
  const big = (signed: boolean) => {
    if (rng.chance(0.3)) return rng.pick(signed ? ["0", "-1", "1", "9223372036854775807", "-9223372036854775808", "-4294967296"] : ["0", "1", "18446744073709551615", "4294967296", "9007199254740993"]);
    const v = (BigInt(rng.next()) << 32n) | BigInt(rng.next());
    return (signed ? BigInt.asIntN(64, v) : v).toString();
  };
  switch (s) {
    case "double": return rng.pick([0, -0, 1.5, -1e300, Number.MIN_VALUE, NaN, Infinity, -Infinity, rng.next() / 7]);
    case "float": return Math.fround(rng.pick([0, -0, 1.5, -3.25e38, 1e-45, NaN, -Infinity, rng.next() / 7]));
    case "int32": case "sint32": case "sfixed32": return int(-2147483648, 2147483647);
    case "uint32": case "fixed32": return int(0, 4294967295);
    case "int64": case "sint64": case "sfixed64": return big(true);
    case "uint64": case "fixed64": return big(false);
    case "bool": return rng.chance(0.5);
    case "string": return rng.pick(STRINGS);
    case "bytes": return Buffer.from(Array.from({ length: rng.int(5) }, () => rng.int(256)));
  }
}

/** A value of type `t` in exactly the shape decode() returns. */
function value(rng: Rng, t: ValueType, depth: number): unknown {
  if (t.kind === "scalar") return scalarValue(rng, t.scalar);
  if (t.kind === "enum") return rng.chance(0.8) ? rng.pick([...t.enum.nameOf.values()]) : rng.pick([7, -100, 2147483647]);
  return message(rng, t.message, depth + 1);
}

function mapKey(rng: Rng, s: ScalarType): string {
  return String(scalarValue(rng, s));
}

function message(rng: Rng, type: MessageType, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const deep = depth > 3;
  for (const f of type.fields) {
    if (f.oneof !== undefined) continue;
    if (f.label === "repeated") out[f.jsName] = deep ? [] : Array.from({ length: rng.int(4) }, () => value(rng, f.type, depth));
    else if (f.label === "map") {
      const map = Object.create(null) as Record<string, unknown>;
      if (!deep) for (let i = rng.int(4); i > 0; i--) map[mapKey(rng, f.mapKey!)] = value(rng, f.type, depth);
      out[f.jsName] = map;
    } else if (f.type.kind === "message") {
      const v = deep || rng.chance(0.4) ? null : value(rng, f.type, depth);
      if (f.label === "implicit" || v !== null) out[f.jsName] = v;
    } else if (f.label === "optional") {
      if (rng.chance(0.5)) out[f.jsName] = value(rng, f.type, depth);
    } else {
      out[f.jsName] = value(rng, f.type, depth);
    }
  }
  for (const o of type.oneofs) {
    if (rng.chance(0.3)) continue;
    const member = rng.pick(o.fields);
    if (member.type.kind === "message" && deep) continue;
    out[member.jsName] = value(rng, member.type, depth);
    out[o.jsName] = member.jsName;
  }
  return out;
}

interface Case {
  schema: string;
  typeName: string;
  seed: number;
}

function materialize(c: Case): { type: MessageType; value: Record<string, unknown> } {
  const root = c.schema === "" ? kitchenSink : loadProtoSource(c.schema);
  const type = root.messages.get(c.typeName)!;
  // The value comes from its own seed, so a failing case prints as a small replayable record.
  return { type, value: message(new Rng(c.seed), type, 0) };
}

function generateCase(rng: Rng): Case {
  if (rng.chance(0.3)) {
    return { schema: "", typeName: rng.pick(["shop.v1.Scalars", "shop.v1.Repeats", "shop.v1.Order", "shop.v1.Order.Line"]), seed: rng.next() };
  }
  const schema = randomSchema(rng);
  const count = (schema.match(/^message /gm) ?? []).length;
  return { schema, typeName: `fuzz.M${rng.int(count)}`, seed: rng.next() };
}

test("random values of random message types round-trip through encode and decode", async () => {
  await runProperty<Case>({
    name: "protobuf/round-trip",
    generate: generateCase,
    shrink: () => [],
    check: (c) => {
      const { type, value: v } = materialize(c);
      const bytes = encode(type, v);
      assert.deepStrictEqual(decode(type, bytes), v);
      // Encoding is deterministic and the decoded value re-encodes to the same bytes.
      assert.deepStrictEqual(encode(type, decode(type, bytes)), bytes);
    },
  });
});

function mutate(rng: Rng, bytes: Buffer): Buffer {
  const b = [...bytes];
  for (let i = rng.range(1, 4); i > 0; i--) {
    const at = rng.int(b.length + 1);
    switch (rng.int(5)) {
      case 0: if (b.length > 0) b[Math.min(at, b.length - 1)] = rng.int(256); break;
      case 1: b.splice(at, rng.range(1, 4)); break;
      case 2: b.splice(at, 0, ...Array.from({ length: rng.range(1, 4) }, () => rng.pick([0x00, 0x7f, 0x80, 0xff, 0x0a, 0x0b, 0x0c, 0x0f, rng.int(256)]))); break;
      case 3: b.length = at; break;
      default: b.splice(at, 0, ...b.slice(at, at + rng.range(1, 10))); break;
    }
  }
  return Buffer.from(b);
}

test("random and mutated bytes: only ProtobufDecodeError, never a hang", async () => {
  await runProperty<Case & { noise: number[] }>({
    name: "protobuf/decode-mutations",
    generate: (rng) => {
      const c = generateCase(rng);
      const { type, value: v } = materialize(c);
      const noise = rng.chance(0.8) ? [...mutate(rng, encode(type, v))] : Array.from({ length: rng.int(40) }, () => rng.int(256));
      return { ...c, noise };
    },
    shrink: (c) => c.noise.map((_, i) => ({ ...c, noise: [...c.noise.slice(0, i), ...c.noise.slice(i + 1)] })),
    check: (c) => {
      const { type } = materialize(c);
      const started = Date.now();
      try {
        const out = decode(type, Buffer.from(c.noise));
        // Whatever decodes must encode again.
        encode(type, out);
      } catch (err) {
        assert.ok(err instanceof ProtobufDecodeError, `threw ${(err as Error)?.name}: ${(err as Error)?.message}`);
      }
      assert.ok(Date.now() - started < 1000, "a decode took over a second");
    },
  });
});
