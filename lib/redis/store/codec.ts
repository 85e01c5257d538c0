// How redisStore turns values into Redis strings and back. The default is JSON that also carries
// bytes (idempotency keeps response bodies as Uint8Array/Buffer, the cache too): a byte array is
// written as a one-key object whose key starts with a NUL character, `{"\u0000buf":"<base64>"}`
// for a Buffer and `{"\u0000u8":"<base64>"}` for another Uint8Array. A plain object with such a
// key is refused on write, so reading one back is never ambiguous. Anything JSON would silently
// change (functions, symbols, undefined in an array, BigInt, NaN/Infinity, cycles, a Map, Set or
// other class instance) is refused with a TypeError instead, so what reads back is what was
// written. Two exceptions JSON itself makes: a property set to undefined reads back absent, and
// a value with toJSON (a Date) reads back as what toJSON gave (an ISO string).

export interface StoreCodec<V> {
  encode(value: V): string;
  decode(text: string): V;
}

const BUFFER_TAG = "\u0000buf";
const BYTES_TAG = "\u0000u8";

function refuse(what: string): never {
  throw new TypeError(`redisStore: a value holding ${what} cannot be stored as JSON`);
}

// `this` is the holder: JSON.stringify has already called toJSON (a Buffer's turns it into
// {type,data}), so the original value is read from the holder.
function replacer(this: unknown, key: string, value: unknown): unknown {
  const original = (this as Record<string, unknown>)[key];
  if (original instanceof Uint8Array) {
    const b64 = Buffer.from(original.buffer, original.byteOffset, original.byteLength).toString("base64");
    return Buffer.isBuffer(original) ? { [BUFFER_TAG]: b64 } : { [BYTES_TAG]: b64 };
  }
  switch (typeof value) {
    case "function":
      return refuse("a function");
    case "symbol":
      return refuse("a symbol");
    case "bigint":
      return refuse("a BigInt");
    case "undefined":
      // An object's property set to undefined is dropped and reads back absent (still undefined);
      // in an array JSON would turn it into null. Top level undefined is refused by encode.
      return Array.isArray(this) ? refuse("undefined in an array") : undefined;
    case "number":
      return Number.isFinite(value) ? value : refuse(String(value));
    case "object":
      if (value === null || Array.isArray(value)) return value;
      if (Object.hasOwn(value, BUFFER_TAG) || Object.hasOwn(value, BYTES_TAG)) return refuse("a key reserved for bytes");
      {
        // A Map, Set or class instance would come back as a plain object (or {}): refused.
        const proto = Object.getPrototypeOf(value) as unknown;
        if (proto !== Object.prototype && proto !== null) return refuse(`a ${(value as object).constructor?.name ?? "class instance"}`);
      }
      return value;
    default:
      return value;
  }
}

function reviver(_key: string, value: unknown): unknown {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const tagged = value as Record<string, unknown>;
    const buf = tagged[BUFFER_TAG];
    if (typeof buf === "string") return Buffer.from(buf, "base64");
    const bytes = tagged[BYTES_TAG];
    if (typeof bytes === "string") return new Uint8Array(Buffer.from(bytes, "base64"));
  }
  return value;
}

/** JSON with bytes (see the top of the file). */
export const jsonBytesCodec: StoreCodec<unknown> = {
  encode(value: unknown): string {
    if (value === undefined) refuse("undefined");
    // A property explicitly set to undefined is refused by the replacer; JSON.stringify throws its own TypeError on cycles.
    return JSON.stringify(value, replacer) as string;
  },
  decode(text: string): unknown {
    // The tags are the only place JSON.stringify writes a NUL escape from a key we chose; values
    // with "\u0000" in their own strings take the reviver path too and come back unchanged.
    return text.indexOf("\\u0000") === -1 ? JSON.parse(text) : JSON.parse(text, reviver);
  },
};
