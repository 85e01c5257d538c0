// Cross-check against protobufjs (the library under @grpc/proto-loader): the kitchen-sink values
// encode to the same bytes, and each side decodes the other's bytes. protobufjs is installed on
// demand into .tmp/test-peers/protobufjs (never a dependency); without npm or a network the test
// is skipped, visibly.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { decode, encode, loadProtoFile } from "../../lib/grpc/index.js";
import { testPeer } from "../support/test-peers.js";

const repo = resolve(fileURLToPath(new URL(".", import.meta.url)), "../..");
const fixture = join(repo, "spec/grpc/fixtures/kitchen-sink.proto");

interface PbType {
  fromObject(v: unknown): unknown;
  encode(m: unknown): { finish(): Uint8Array };
  decode(b: Uint8Array): unknown;
  toObject(m: unknown, o: Record<string, unknown>): Record<string, unknown>;
}
interface PbRoot {
  lookupType(name: string): PbType;
}

/** protobufjs pinned (7.x keys 64-bit maps by raw bytes; see longMapKeys), installed on demand. */
async function loadProtobufjs(): Promise<{ loadSync(path: string): PbRoot } | string> {
  const dir = await testPeer("protobufjs", "7.6.6");
  if (dir === null) return "protobufjs@7.6.6 could not be installed into .tmp/test-peers (offline?)";
  try {
    return createRequire(join(dir, "package.json"))(dir) as { loadSync(path: string): PbRoot };
  } catch (err) {
    return `protobufjs did not load: ${(err as Error).message}`;
  }
}

const protobufjs = await loadProtobufjs();
const skip = typeof protobufjs === "string" ? protobufjs : false;

// Every field set to a non-default value: protobufjs writes fields that are set even when they
// hold the default, keel leaves defaults out, so only non-defaults compare byte for byte.
const VALUES: Array<[string, Record<string, unknown>]> = [
  [
    "shop.v1.Scalars",
    {
      fDouble: -1.25, fFloat: 3.5, fInt32: -7, fInt64: "-9223372036854775808", fUint32: 4294967295, fUint64: "18446744073709551615",
      fSint32: -2147483648, fSint64: "-3", fFixed32: 123456, fFixed64: "9007199254740993", fSfixed32: -2, fSfixed64: "-9007199254740993",
      fBool: true, fString: "héllo 😀", fBytes: Buffer.from([0, 1, 255]),
    },
  ],
  [
    "shop.v1.Repeats",
    {
      packedInts: [1, -1, 300], unpackedInts: [5, -5], zigzags: ["-1", "1", "-9223372036854775808"], doubles: [0.5, -0],
      strings: ["a", "", "b"], blobs: [Buffer.from("x"), Buffer.alloc(0)], statuses: ["STATUS_ACTIVE", "STATUS_DELETED"], fixeds: [7, 4294967295], flags: [true, false, true],
    },
  ],
  [
    "shop.v1.Order",
    {
      id: "o-1",
      lines: [{ sku: "a", quantity: 2, price: { currencyCode: "EUR", units: "12", nanos: 500000000 }, kind: "KIND_DIGITAL" }],
      labels: { k: "v", "": "empty key" },
      linesByPosition: { 1: { sku: "p" }, "-2": { quantity: 3 } },
      flags: { true: "5" },
      statusById: { "18446744073709551615": "STATUS_DELETED" },
      status: "STATUS_ACTIVE",
      note: "n",
      priority: 9,
      bankTransfer: { cents: "250" },
      createdAt: { seconds: "1700000000", nanos: 1 },
      defaultKind: "KIND_PHYSICAL",
      parent: { id: "p-0", cardToken: "tok" },
    },
  ],
];

/**
 * protobufjs keys a map with 64-bit keys by the key's 8 raw bytes (its "long hash") when the
 * `long` package is not loaded, and by the decimal text when it is; read either as the decimal.
 */
function longMapKeys(view: unknown): unknown {
  if (typeof view !== "object" || view === null || Array.isArray(view) || Buffer.isBuffer(view)) return view;
  const keys = Object.keys(view);
  if (keys.length === 0 || !keys.every((k) => k.length === 8 && /[^0-9]/.test(k))) return view;
  const out: Record<string, unknown> = {};
  for (const k of keys) out[Buffer.from(k, "latin1").readBigUInt64LE().toString()] = (view as Record<string, unknown>)[k];
  return out;
}

describe("protobufjs cross-check", { skip }, () => {
  const ours = loadProtoFile(fixture);
  const theirs = (protobufjs as { loadSync(path: string): PbRoot }).loadSync(fixture);

  for (const [name, value] of VALUES) {
    it(`${name}: same bytes, and each decodes the other's`, () => {
      const type = ours.messages.get(name)!;
      const pbType = theirs.lookupType(name);
      const ourBytes = encode(type, value);
      const theirBytes = pbType.encode(pbType.fromObject(value)).finish();
      assert.equal(Buffer.from(ourBytes).toString("hex"), Buffer.from(theirBytes).toString("hex"));
      const options = { longs: String, enums: String, bytes: Buffer, defaults: true, oneofs: true };
      // protobufjs decoding our bytes and we decoding theirs agree on every field we sent.
      const theirView = pbType.toObject(pbType.decode(ourBytes), options);
      const ourView = decode(type, theirBytes);
      for (const key of Object.keys(value)) {
        assert.deepEqual(JSON.parse(JSON.stringify(ourView[key])), JSON.parse(JSON.stringify(longMapKeys(theirView[key]))), `${name}.${key}`);
      }
    });
  }
});
