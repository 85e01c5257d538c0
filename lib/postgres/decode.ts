// Text-format column values to JS values by type OID (pg_type.oid: stable across versions).
// Decisions (docs/features/postgres.md):
// - int8 → string by default (a bigint column's values can exceed 2^53); `int8: "bigint"` → bigint.
// - numeric → string (exact: no float rounding); float4/float8 → number.
// - timestamptz → Date; timestamp (no zone) → Date read as UTC; date → Date at UTC midnight.
//   ±infinity → Infinity/-Infinity (numbers), as pg does.
// - json/jsonb → parsed; bytea (hex format) → Buffer; uuid and text types → string.
// - Arrays of all of these → (nested) JS arrays. Any other type → its text.
import { parseArray } from "./array.js";

export type Int8Mode = "string" | "bigint";
export type Decoder = (text: string) => unknown;

const identity: Decoder = (text) => text;
const int: Decoder = (text) => Number(text);
const float: Decoder = (text) => Number(text);
const bool: Decoder = (text) => text === "t";
const json: Decoder = (text) => JSON.parse(text);
const bytea: Decoder = (text) => {
  // bytea_output = hex (the default since 9.0): "\x" then two hex digits a byte.
  if (text.startsWith("\\x")) return Buffer.from(text.slice(2), "hex");
  throw new Error("bytea in escape format: set bytea_output = hex");
};
const bigint: Decoder = (text) => BigInt(text);

function infinity(text: string): number | null {
  if (text === "infinity") return Infinity;
  if (text === "-infinity") return -Infinity;
  return null;
}

/** "2024-01-02 03:04:05.123+05:30" (DateStyle ISO) → Date; zone-less text is UTC. */
const timestamp: Decoder = (text) => {
  const inf = infinity(text);
  if (inf !== null) return inf;
  let iso = text.replace(" ", "T");
  if (iso.endsWith(" BC")) return new Date(NaN); // years BC do not fit ISO text; rare enough to refuse quietly
  const zone = /([+-])(\d\d)(?::?(\d\d))?(?::?(\d\d))?$/.exec(iso.slice(19));
  if (zone === null) iso += "Z";
  else iso = iso.slice(0, 19 + zone.index) + `${zone[1]}${zone[2]}:${zone[3] ?? "00"}`;
  return new Date(iso);
};
const date: Decoder = (text) => {
  const inf = infinity(text);
  return inf !== null ? inf : new Date(text + "T00:00:00Z");
};

/** Scalar decoders by OID. */
const SCALARS = new Map<number, Decoder>([
  [16, bool],
  [17, bytea],
  [18, identity], // "char"
  [19, identity], // name
  [21, int], // int2
  [23, int], // int4
  [25, identity], // text
  [26, int], // oid
  [114, json],
  [700, float],
  [701, float],
  [1042, identity], // bpchar
  [1043, identity], // varchar
  [1082, date],
  [1114, timestamp],
  [1184, timestamp],
  [1700, identity], // numeric: exact, as text
  [2950, identity], // uuid
  [3802, json], // jsonb
]);

/** Array OID → element OID. */
const ARRAYS = new Map<number, number>([
  [1000, 16], [1001, 17], [1002, 18], [1003, 19], [1005, 21], [1007, 23], [1009, 25], [1028, 26],
  [199, 114], [1021, 700], [1022, 701], [1014, 1042], [1015, 1043], [1182, 1082], [1115, 1114],
  [1185, 1184], [1231, 1700], [2951, 2950], [3807, 3802], [1016, 20],
]);

/** The decoder for a column of type `oid`. */
export function decoderFor(oid: number, int8: Int8Mode): Decoder {
  if (oid === 20) return int8 === "bigint" ? bigint : identity;
  const scalar = SCALARS.get(oid);
  if (scalar !== undefined) return scalar;
  const element = ARRAYS.get(oid);
  if (element !== undefined) {
    const parse = decoderFor(element, int8);
    return (text) => parseArray(text, parse);
  }
  return identity;
}

/** OIDs whose parameters take JSON text: a JS array sent to one is JSON, not an array literal. */
export function isJsonType(oid: number): boolean {
  return oid === 114 || oid === 3802;
}
