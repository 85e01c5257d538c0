// A command as RESP: an array of bulk strings, encoded straight into one Buffer sized in a first
// pass. The byte lengths of the first pass go to a scratch array reused by every call, so the
// only allocation per command is the Buffer itself.
import type { RedisArg } from "./types.js";

const STAR = 42;
const DOLLAR = 36;
const CR = 13;
const LF = 10;

let lengths = new Int32Array(64);

function numberText(n: number): string {
  if (Number.isFinite(n)) return String(n);
  if (n === Infinity) return "+inf";
  if (n === -Infinity) return "-inf";
  throw new TypeError("Redis command arguments cannot be NaN");
}

function digitCount(n: number): number {
  let count = 1;
  while (n >= 10) {
    n = Math.floor(n / 10);
    count++;
  }
  return count;
}

/** Writes `<prefix><n>\r\n` at `offset`, returns the offset after it. */
function writeHeader(out: Buffer, offset: number, prefix: number, n: number): number {
  out[offset++] = prefix;
  const digits = digitCount(n);
  let at = offset + digits - 1;
  do {
    out[at--] = 48 + (n % 10);
    n = Math.floor(n / 10);
  } while (n > 0);
  offset += digits;
  out[offset++] = CR;
  out[offset++] = LF;
  return offset;
}

/** The RESP encoding of one command. Throws TypeError for an argument that is not a string, number or Buffer. */
export function encodeCommand(args: readonly RedisArg[]): Buffer {
  const count = args.length;
  if (count === 0) throw new TypeError("A Redis command needs at least its name");
  if (lengths.length < count) lengths = new Int32Array(Math.max(count, lengths.length * 2));
  let total = 3 + digitCount(count);
  for (let i = 0; i < count; i++) {
    const arg = args[i];
    let length: number;
    if (typeof arg === "string") length = Buffer.byteLength(arg, "utf8");
    else if (typeof arg === "number") length = numberText(arg).length;
    else if (Buffer.isBuffer(arg)) length = arg.length;
    else throw new TypeError(`Redis command argument ${i} is ${arg === null ? "null" : typeof arg}: expected a string, number or Buffer`);
    lengths[i] = length;
    total += 5 + digitCount(length) + length;
  }

  const out = Buffer.allocUnsafe(total);
  let offset = writeHeader(out, 0, STAR, count);
  for (let i = 0; i < count; i++) {
    const arg = args[i] as RedisArg;
    const length = lengths[i] as number;
    offset = writeHeader(out, offset, DOLLAR, length);
    if (typeof arg === "string") out.write(arg, offset, length, "utf8");
    else if (typeof arg === "number") out.write(numberText(arg), offset, length, "latin1");
    else arg.copy(out, offset);
    offset += length;
    out[offset++] = CR;
    out[offset++] = LF;
  }
  return out;
}
