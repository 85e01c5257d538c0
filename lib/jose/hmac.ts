// HMAC (RFC 2104) for the JWS HS* algorithms, with each key's inner and outer pads computed once.
// node's `createHmac` builds an Hmac stream object and runs OpenSSL's HMAC init (the digest
// lookup and both pads) for every token. Here a token costs two one-shot digests,
// H((K ^ opad) || H((K ^ ipad) || message)), with `crypto.hash` (Node 20.12 and 21.7+; read at run
// time, so older Node falls back to `createHmac`): 20,100 instructions an HS256 tag instead of
// 30,800 (callgrind, Node 20.20). The digests come back as latin1 ("binary") text, written into buffers
// kept with the pads: node's "buffer" output lowercases the encoding name and allocates a
// backing store per call, which cost more than the text.
import * as nodeCrypto from "node:crypto";
import type { KeyObject } from "node:crypto";

type HmacHash = "sha256" | "sha384" | "sha512";
type OneShotHash = typeof nodeCrypto.hash;

// Absent before Node 20.12, whatever the types say.
const oneShotHash: OneShotHash | undefined = typeof nodeCrypto.hash === "function" ? nodeCrypto.hash : undefined;

/** SHA-256's block is 64 bytes; SHA-384's and SHA-512's 128. */
function blockBytes(hash: HmacHash): number {
  return hash === "sha256" ? 64 : 128;
}

function digestBytes(hash: HmacHash): number {
  return hash === "sha256" ? 32 : hash === "sha384" ? 48 : 64;
}

interface Pads {
  /** The key XOR 0x36, one block. */
  readonly inner: Buffer;
  /** The key XOR 0x5c, one block, then room for the inner digest (written per call). */
  readonly outer: Buffer;
  /** The last tag computed with these pads (overwritten per call). */
  readonly tag: Buffer;
}

/** A key's pads per hash. Keyed by the KeyObject, so they live exactly as long as the key. */
const padsByKey = new WeakMap<KeyObject, Partial<Record<HmacHash, Pads>>>();

function padsOf(key: KeyObject, hash: HmacHash): Pads {
  let byHash = padsByKey.get(key);
  if (byHash === undefined) padsByKey.set(key, (byHash = {}));
  const known = byHash[hash];
  if (known !== undefined) return known;
  const block = blockBytes(hash);
  let secret = key.export();
  // A key longer than the block is replaced by its digest (RFC 2104 §2).
  if (secret.byteLength > block) secret = nodeCrypto.createHash(hash).update(secret).digest();
  const inner = Buffer.alloc(block, 0x36);
  const outer = Buffer.alloc(block + digestBytes(hash), 0x5c);
  for (let i = 0; i < secret.byteLength; i++) {
    inner[i]! ^= secret[i]!;
    outer[i]! ^= secret[i]!;
  }
  secret.fill(0);
  const pads: Pads = { inner, outer, tag: Buffer.alloc(digestBytes(hash)) };
  byHash[hash] = pads;
  return pads;
}

/**
 * The inner digest's input, (K ^ ipad) || message, built in a buffer reused across calls (the
 * digests are synchronous, so no other call can see it half-written). Messages longer than
 * SCRATCH_BYTES minus a block get a buffer of their own, so the scratch never grows.
 */
const SCRATCH_BYTES = 4096;
const scratch = Buffer.allocUnsafe(SCRATCH_BYTES);

/** The tag into the pads' `tag` buffer, valid until the next call with the same key and hash. */
function computeTag(hash: HmacHash, key: KeyObject, message: Uint8Array, digest: OneShotHash): Buffer {
  const pads = padsOf(key, hash);
  const block = pads.inner.byteLength;
  const length = block + message.byteLength;
  const input = length <= SCRATCH_BYTES ? scratch.subarray(0, length) : Buffer.allocUnsafe(length);
  pads.inner.copy(input, 0);
  input.set(message, block);
  pads.outer.write(digest(hash, input, "binary"), block, "latin1");
  pads.tag.write(digest(hash, pads.outer, "binary"), 0, "latin1");
  return pads.tag;
}

/** HMAC of `message` under `key` (a secret KeyObject) with `hash`: a buffer of its own. */
export function hmac(hash: HmacHash, key: KeyObject, message: Uint8Array): Buffer {
  if (oneShotHash === undefined) return nodeCrypto.createHmac(hash, key).update(message).digest();
  return Buffer.from(computeTag(hash, key, message, oneShotHash));
}

/** True when `tag` is the HMAC of `message`: the length first (public: the hash size), then a constant-time compare. */
export function hmacMatches(hash: HmacHash, key: KeyObject, message: Uint8Array, tag: Uint8Array): boolean {
  const expected = oneShotHash === undefined ? nodeCrypto.createHmac(hash, key).update(message).digest() : computeTag(hash, key, message, oneShotHash);
  return tag.byteLength === expected.byteLength && nodeCrypto.timingSafeEqual(tag, expected);
}
