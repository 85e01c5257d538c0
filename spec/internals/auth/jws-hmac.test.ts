// lib/jose/hmac.ts computes HMAC from per-key pads with two one-shot digests; node's createHmac
// is the oracle. Covers every HS* hash, keys shorter than, equal to and longer than the block
// (the long ones are hashed first), messages past the reused scratch buffer, and several keys in
// turn (the pads and the scratch are shared state).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createHmac, createSecretKey, randomBytes } from "node:crypto";
import { hmac, hmacMatches } from "../../../lib/jose/hmac.js";

const HASHES = ["sha256", "sha384", "sha512"] as const;

describe("jose hmac", () => {
  it("equals createHmac for every hash, key length and message length", () => {
    for (const hash of HASHES) {
      for (const keyBytes of [1, 32, 63, 64, 65, 127, 128, 129, 300]) {
        const secret = randomBytes(keyBytes);
        const key = createSecretKey(secret);
        for (const messageBytes of [0, 1, 55, 56, 64, 200, 4096 - 128, 4096 - 64, 4096, 10_000]) {
          const message = randomBytes(messageBytes);
          const expected = createHmac(hash, secret).update(message).digest();
          assert.deepEqual(hmac(hash, key, message), expected, `${hash}, key ${keyBytes} B, message ${messageBytes} B`);
          // Twice: the second call reads the memoized pads.
          assert.deepEqual(hmac(hash, key, message), expected, `${hash}, key ${keyBytes} B, message ${messageBytes} B, again`);
        }
      }
    }
  });

  it("keeps keys apart when calls alternate, and a key's hashes apart", () => {
    const a = createSecretKey(randomBytes(32));
    const b = createSecretKey(randomBytes(32));
    const message = Buffer.from("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0");
    for (let i = 0; i < 3; i++) {
      for (const key of [a, b]) {
        for (const hash of HASHES) assert.deepEqual(hmac(hash, key, message), createHmac(hash, key).update(message).digest());
      }
    }
  });

  it("hands out a buffer of its own each time (the tag buffer kept with the pads is reused)", () => {
    const key = createSecretKey(randomBytes(32));
    const first = hmac("sha256", key, Buffer.from("first"));
    const copy = Buffer.from(first);
    hmac("sha256", key, Buffer.from("second"));
    assert.deepEqual(first, copy);
  });

  it("hmacMatches accepts the tag and refuses a changed byte, a short tag and a long one", () => {
    for (const hash of HASHES) {
      const secret = randomBytes(48);
      const key = createSecretKey(secret);
      const message = Buffer.from("header.payload");
      const tag = createHmac(hash, secret).update(message).digest();
      assert.equal(hmacMatches(hash, key, message, tag), true, hash);
      for (const at of [0, tag.length >> 1, tag.length - 1]) {
        const changed = Buffer.from(tag);
        changed[at]! ^= 1;
        assert.equal(hmacMatches(hash, key, message, changed), false, `${hash}, byte ${at}`);
      }
      assert.equal(hmacMatches(hash, key, message, tag.subarray(0, tag.length - 1)), false, `${hash}, short`);
      assert.equal(hmacMatches(hash, key, message, Buffer.concat([tag, Buffer.alloc(1)])), false, `${hash}, long`);
      assert.equal(hmacMatches(hash, key, Buffer.from("header.payloaD"), tag), false, `${hash}, other message`);
    }
  });

  it("matches RFC 4231 test case 2 (a key shorter than the block)", () => {
    const key = createSecretKey(Buffer.from("Jefe"));
    const message = Buffer.from("what do ya want for nothing?");
    assert.equal(hmac("sha256", key, message).toString("hex"), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  });
});
