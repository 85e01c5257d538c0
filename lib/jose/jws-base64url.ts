// base64url (RFC 4648 §5) without padding, as JOSE requires (RFC 7515 §2). Decoding is strict:
// only the 64 URL-safe characters, no '=' padding, no '+' or '/', no whitespace, and the unused
// low bits of the last character must be zero, so every byte string has exactly one encoding.

const ALPHABET_VALUE = new Int8Array(128).fill(-1);
{
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  for (let i = 0; i < alphabet.length; i++) ALPHABET_VALUE[alphabet.charCodeAt(i)] = i;
}

export function base64urlEncode(data: Uint8Array | string): string {
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64url");
}

// The alphabet check runs as a sticky regular expression: irregexp's compiled loop costs a few
// instructions a character, where a charCodeAt loop over a token cut from a header (a sliced
// string) cost ~45 (an HS256 token's signature and payload: ~6,800 instructions a token).
// The class has no backtracking; lastIndex says how far the alphabet reached.
const ALPHABET_RUN = /[A-Za-z0-9_-]*/y;

/** True when `text[start, end)` is canonical unpadded base64url. Linear. */
export function isBase64url(text: string, start = 0, end = text.length): boolean {
  const length = end - start;
  if (length < 0 || length % 4 === 1) return false;
  if (length === 0) return true;
  ALPHABET_RUN.lastIndex = start;
  ALPHABET_RUN.test(text);
  if (ALPHABET_RUN.lastIndex < end) return false;
  // 2 chars carry 12 bits for 1 byte (4 spare), 3 chars carry 18 bits for 2 bytes (2 spare).
  const last = ALPHABET_VALUE[text.charCodeAt(end - 1)]!;
  if (length % 4 === 2) return (last & 0x0f) === 0;
  if (length % 4 === 3) return (last & 0x03) === 0;
  return true;
}

/** Strict decode; returns undefined for anything that is not canonical unpadded base64url. */
export function base64urlDecode(text: string, start = 0, end = text.length): Buffer | undefined {
  if (!isBase64url(text, start, end)) return undefined;
  return Buffer.from(start === 0 && end === text.length ? text : text.slice(start, end), "base64url");
}
