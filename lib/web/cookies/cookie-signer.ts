// Signed cookie values: `value.<mac>`, the mac being HMAC-SHA256 over the cookie's name and its
// value, base64url without padding (43 characters). Binding the name means a value signed for
// one cookie (`role`) is refused when presented under another (`sid`), even with the same keys.
// Key rotation: the first key signs, any key verifies, so a new key can be put first and the old
// one kept until the cookies it signed have expired.
// The value is not encrypted: anyone can read it, nobody can change it without a key.
import { createHmac, timingSafeEqual } from "node:crypto";
import { isBase64urlText } from "../../plugin.js";

/** Shortest key accepted, in bytes (the output size of SHA-256). */
export const MIN_COOKIE_KEY_BYTES = 32;
const MAC_LENGTH = 43; // base64url of 32 bytes, unpadded

export interface CookieSigner {
  /**
   * `value.<mac>`. `name` is the cookie the value is meant for (default ""; a cookie name is
   * never empty, so an unnamed signature verifies for no named cookie and the reverse).
   */
  sign(value: string, name?: string): string;
  /** The value when the mac is right for `name` under any key; null otherwise (never throws). */
  verify(signed: string, name?: string): string | null;
}

function keyBytes(key: unknown, index: number): Buffer {
  let bytes: Buffer;
  if (typeof key === "string") bytes = Buffer.from(key, "utf8");
  else if (key instanceof Uint8Array) bytes = Buffer.from(key); // a copy: later changes to the caller's buffer do not count
  else throw new TypeError(`cookieSigner: key ${index} must be a string or a Buffer`);
  if (bytes.length < MIN_COOKIE_KEY_BYTES) {
    throw new TypeError(`cookieSigner: key ${index} must be at least ${MIN_COOKIE_KEY_BYTES} bytes (got ${bytes.length})`);
  }
  return bytes;
}

function mac(key: Buffer, name: string, value: string): Buffer {
  // The name is length-prefixed, so no (name, value) pair can be read as another.
  return Buffer.from(
    createHmac("sha256", key).update("keel-cookie-v1\0").update(`${name.length}:${name}\0`).update(value).digest("base64url"),
    "latin1",
  );
}

/**
 * Signs cookie values with HMAC-SHA256 bound to the cookie name; the first key signs, any key
 * verifies (rotation). Read them back with signedCookie(name, signer).
 *
 * @example
 * const signer = cookieSigner([newKey, oldKey]);
 * reply({ ok: true }).setCookie("theme", signer.sign("dark", "theme"), { httpOnly: true });
 * route.get("/theme", [signedCookie("theme", signer)], (theme) => ({ theme }));
 *
 * @see docs/features/web.md
 */
export function cookieSigner(keys: readonly (string | Buffer)[]): CookieSigner {
  if (!Array.isArray(keys) || keys.length === 0) throw new TypeError("cookieSigner: keys must be a non-empty list");
  const macKeys = keys.map(keyBytes);
  const signingKey = macKeys[0]!;
  return {
    sign(value: string, name = ""): string {
      if (typeof value !== "string") throw new TypeError("cookieSigner: the value must be a string");
      if (typeof name !== "string") throw new TypeError("cookieSigner: the name must be a string");
      return value + "." + mac(signingKey, name, value).toString("latin1");
    },
    verify(signed: string, name = ""): string | null {
      if (typeof signed !== "string" || typeof name !== "string") return null;
      const dot = signed.lastIndexOf(".");
      if (dot === -1) return null;
      const given = signed.slice(dot + 1);
      if (!isBase64urlText(given, MAC_LENGTH)) return null;
      const value = signed.slice(0, dot);
      const presented = Buffer.from(given, "latin1");
      // Every key is tried, so the time taken does not tell which one matched.
      let ok = false;
      for (let i = 0; i < macKeys.length; i++) {
        if (timingSafeEqual(presented, mac(macKeys[i]!, name, value))) ok = true;
      }
      return ok ? value : null;
    },
  };
}
