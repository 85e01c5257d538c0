// 64-bit integers without a Long library: values arrive as number, bigint, decimal string (or a
// Long-like { low, high }), travel as two unsigned 32-bit halves, and decode to decimal strings
// (proto-loader's `longs: String`).
import { ProtobufEncodeError } from "./errors.js";

const TWO_32 = 4294967296;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** Any accepted integer form as a bigint, or an encode error. */
export function toBigInt(value: unknown, path: string): bigint {
  if (typeof value === "bigint") return value;
  if (typeof value === "number") {
    if (!Number.isInteger(value)) throw new ProtobufEncodeError(path, `expected an integer, got ${value}`);
    return BigInt(value);
  }
  if (typeof value === "string") {
    if (!/^[+-]?\d{1,20}$/.test(value)) throw new ProtobufEncodeError(path, `expected an integer string, got ${JSON.stringify(value.slice(0, 40))}`);
    return BigInt(value);
  }
  if (value !== null && typeof value === "object") {
    const { low, high, unsigned } = value as { low?: unknown; high?: unknown; unsigned?: unknown };
    if (typeof low === "number" && typeof high === "number") {
      const u = (BigInt(high >>> 0) << 32n) | BigInt(low >>> 0);
      return unsigned === true ? u : BigInt.asIntN(64, u);
    }
  }
  throw new ProtobufEncodeError(path, `expected an integer (number, bigint or string), got ${typeof value}`);
}

/** Range-checked 64-bit value as unsigned halves [lo, hi] (two's complement for signed). */
export function int64Halves(value: unknown, signed: boolean, path: string): [number, number] {
  // Fast path without bigint.
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return [value % TWO_32, Math.floor(value / TWO_32)];
  const v = toBigInt(value, path);
  if (signed ? v < INT64_MIN || v > INT64_MAX : v < 0n || v > UINT64_MAX) {
    throw new ProtobufEncodeError(path, `${v} is out of range for ${signed ? "int64" : "uint64"}`);
  }
  const u = BigInt.asUintN(64, v);
  return [Number(u & 0xffffffffn), Number(u >> 32n)];
}

/** Zigzag (sint64): n → (n << 1) ^ (n >> 63), as halves. */
export function zigzag64Halves(value: unknown, path: string): [number, number] {
  const v = toBigInt(value, path);
  if (v < INT64_MIN || v > INT64_MAX) throw new ProtobufEncodeError(path, `${v} is out of range for sint64`);
  const z = BigInt.asUintN(64, (v << 1n) ^ (v >> 63n));
  return [Number(z & 0xffffffffn), Number(z >> 32n)];
}

export function uint64String(lo: number, hi: number): string {
  if (hi < 0x200000) return String(hi * TWO_32 + lo); // below 2^53: exact as a number
  return ((BigInt(hi) << 32n) | BigInt(lo)).toString();
}

export function int64String(lo: number, hi: number): string {
  if (hi < 0x80000000) return uint64String(lo, hi);
  return BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(lo)).toString();
}

export function zigzag64String(lo: number, hi: number): string {
  const z = (BigInt(hi) << 32n) | BigInt(lo);
  return ((z >> 1n) ^ -(z & 1n)).toString();
}
