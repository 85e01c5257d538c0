// JWT attacks on the sample's HS256 routes (`GET /api/v1/me`, `DELETE /api/v1/admin/cache`):
// alg none and algorithm confusion, `crit`, `kid` path and SQL tricks, key URLs and embedded
// keys, signature encoding tricks, bad claims, malformed tokens and Authorization headers. Each
// is a uniform 401 (431 for a token past the head limit); a correctly signed token is the control.
import { createHmac } from "node:crypto";
import assert from "node:assert/strict";
import { DEV_JWT_SECRET } from "../../../lib/sample/index.js";
import { http, type HostileCase, type HostileClass } from "../harness.js";

const b64 = (v: unknown): string => Buffer.from(typeof v === "string" ? v : JSON.stringify(v)).toString("base64url");
const now = Math.floor(Date.now() / 1000);
const claims = { sub: "mallory", role: "admin", roles: ["admin"], iat: now, exp: now + 3600 };
const HS256 = { alg: "HS256", typ: "JWT" };

/** A token with any header, signed (a valid MAC when `secret` is the sample's). */
function signed(header: Record<string, unknown>, payload: unknown = claims, secret: string | Buffer = DEV_JWT_SECRET): string {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${createHmac("sha256", secret).update(input).digest("base64url")}`;
}
const unsigned = (header: Record<string, unknown>, payload: unknown = claims, sig = ""): string => `${b64(header)}.${b64(payload)}.${sig}`;
const good = signed(HS256);
const [gh, gp, gs] = good.split(".") as [string, string, string];
const flip = (s: string, i: number): string => s.slice(0, i) + (s[i] === "A" ? "B" : "A") + s.slice(i + 1);
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
/** The same 32 bytes with one of the two unused low bits of the last character set: non-canonical. */
const spareBits = (s: string): string => s.slice(0, -1) + ALPHABET[ALPHABET.indexOf(s.slice(-1)) ^ 1]!;

const tokens: Array<[string, string]> = [
  ['alg "none"', unsigned({ alg: "none", typ: "JWT" })],
  ['alg "None"', unsigned({ alg: "None" })],
  ['alg "nOnE"', unsigned({ alg: "nOnE" })],
  ['alg "NONE" with a signature', unsigned({ alg: "NONE" }, claims, "AAAA")],
  ['alg "none" without the last dot', `${b64({ alg: "none" })}.${b64(claims)}`],
  ["alg missing", signed({ typ: "JWT" })],
  ["alg empty", signed({ alg: "" })],
  ["alg null", signed({ alg: null })],
  ['alg "hs256" (lowercase)', signed({ alg: "hs256" })],
  ['alg "HS256 " (trailing space)', signed({ alg: "HS256 " })],
  ['alg ["HS256"] (an array)', signed({ alg: ["HS256"] })],
  ["alg HS384 signed with HS256", signed({ alg: "HS384" })],
  ["alg HS512 signed with HS256", signed({ alg: "HS512" })],
  ["alg RS256 with an HMAC signature (key confusion)", signed({ alg: "RS256" })],
  ["alg RS256 with an HMAC over the secret as a PEM", signed({ alg: "RS256" }, claims, `-----BEGIN PUBLIC KEY-----\n${DEV_JWT_SECRET}\n-----END PUBLIC KEY-----\n`)],
  ["alg ES256 with an HMAC signature", signed({ alg: "ES256" })],
  ["alg PS256 with an HMAC signature", signed({ alg: "PS256" })],
  ["alg EdDSA with an HMAC signature", signed({ alg: "EdDSA" })],
  ["alg dir (a JWE algorithm)", signed({ alg: "dir", enc: "A128GCM" })],
  ['crit ["exp"] (a registered claim is not an extension)', signed({ ...HS256, crit: ["exp"] })],
  ['crit ["x"] with x present', signed({ ...HS256, crit: ["x"], x: 1 })],
  ['crit ["x"] without x', signed({ ...HS256, crit: ["x"] })],
  ['crit ["b64"] with b64 false (RFC 7797)', signed({ ...HS256, crit: ["b64"], b64: false })],
  ["b64 false without crit", signed({ ...HS256, b64: false })],
  ["crit empty", signed({ ...HS256, crit: [] })],
  ["crit not an array", signed({ ...HS256, crit: "x" })],
  ["crit with a duplicate", signed({ ...HS256, crit: ["x", "x"], x: 1 })],
  ["kid path traversal, empty key", signed({ ...HS256, kid: "../../../../dev/null" }, claims, "")],
  ["kid /dev/null, empty key", signed({ ...HS256, kid: "/dev/null" }, claims, "")],
  ["kid path traversal with a NUL", signed({ ...HS256, kid: "../../etc/passwd\u0000" }, claims, "")],
  ["kid SQL injection", signed({ ...HS256, kid: "' UNION SELECT 'secret' --" }, claims, "secret")],
  ["kid SQL injection returning an empty key", signed({ ...HS256, kid: "x' OR '1'='1" }, claims, "")],
  ["kid command injection", signed({ ...HS256, kid: "x|id;" }, claims, "")],
  ["kid of 10 000 characters", signed({ ...HS256, kid: "k".repeat(10_000) }, claims, "")],
  ["kid as an object", signed({ ...HS256, kid: { $ne: null } }, claims, "")],
  ["kid with a CRLF", signed({ ...HS256, kid: "a\r\nSet-Cookie: x=1" }, claims, "")],
  ["jku pointing elsewhere", signed({ ...HS256, jku: "https://evil.example/jwks.json" }, claims, "attacker")],
  ["x5u pointing elsewhere", signed({ ...HS256, x5u: "https://evil.example/cert.pem" }, claims, "attacker")],
  ["an embedded x5c", signed({ ...HS256, x5c: ["MIIB"] }, claims, "attacker")],
  ["an embedded jwk", signed({ ...HS256, jwk: { kty: "oct", k: b64("attacker") } }, claims, "attacker")],
  ["the right alg, a wrong key", signed(HS256, claims, "x".repeat(40))],
  ["signed with the secret base64url-decoded", signed(HS256, claims, Buffer.from(DEV_JWT_SECRET, "base64url"))],
  ["signed with an empty key", signed(HS256, claims, "")],
  ["an expired token", signed(HS256, { ...claims, exp: now - 3600 })],
  ["expired a second ago", signed(HS256, { ...claims, exp: now - 120 })],
  ["a token not valid yet", signed(HS256, { ...claims, nbf: now + 3600 })],
  ["exp as a string", signed(HS256, { ...claims, exp: String(now + 3600) })],
  ["exp null", signed(HS256, { ...claims, exp: null })],
  ["nbf as a string", signed(HS256, { ...claims, nbf: "0" })],
  ["a payload that is an array", signed(HS256, [1, 2])],
  ["a payload that is a string", signed(HS256, "sub")],
  ["a payload that is not JSON", `${b64(HS256)}.${b64("not json")}.${createHmac("sha256", DEV_JWT_SECRET).update(`${b64(HS256)}.${b64("not json")}`).digest("base64url")}`],
  ["a header that is not JSON", `${b64("not json")}.${b64(claims)}.sig`],
  ["a header that is an array", signed([HS256] as unknown as Record<string, unknown>)],
  ["the payload swapped under a valid signature", `${gh}.${b64({ ...claims, sub: "admin" })}.${gs}`],
  ["the header swapped under a valid signature", `${b64({ ...HS256, kid: "x" })}.${gp}.${gs}`],
  ["a signature with one character changed", `${gh}.${gp}.${flip(gs, 5)}`],
  ["a signature one character short", `${gh}.${gp}.${gs.slice(0, -1)}`],
  ["a signature with one character more", `${gh}.${gp}.${gs}A`],
  ["a signature with its last character's spare bits set", `${gh}.${gp}.${spareBits(gs)}`],
  ["a signature with padding", good + "="],
  ["a payload segment with padding", `${gh}.${gp}=.${gs}`],
  ["a signature in standard base64", good.replace(/-/g, "+").replace(/_/g, "/") + "+/"],
  ["a signature with whitespace inside", `${gh}.${gp}.${gs.slice(0, 10)} ${gs.slice(10)}`],
  ["the signature only, no header or payload", `..${gs}`],
  ["a missing signature", `${gh}.${gp}.`],
  ["two segments", `${gh}.${gp}`],
  ["four segments", good + ".extra"],
  ["five segments (JWE shape)", "a.b.c.d.e"],
  ["an empty token", ""],
  ["only dots", ".."],
  ["a JWS JSON serialization", JSON.stringify({ payload: gp, protected: gh, signature: gs })],
  ["a 20 KB token", signed({ ...HS256, pad: "p".repeat(20_000) })],
  ["the header with a __proto__ member", signed({ ...HS256, ["__proto__"]: { polluted: true } }, claims, "nope")],
];

const authSchemes: Array<[string, string]> = [
  ["Basic credentials", "Basic bWFsbG9yeTpwdw=="],
  ["Bearer with two spaces and a forged token", `Bearer  ${signed(HS256, claims, "nope")}`],
  ["two Bearer tokens, a forged one first", `Bearer ${signed(HS256, claims, "nope")}, Bearer ${good}`],
  ["a lowercase scheme with a forged token", `bearer ${unsigned({ alg: "none" })}`],
  ["the scheme only", "Bearer"],
  ["the scheme and a space", "Bearer "],
  ["a token with no scheme", good.replace(/.$/, "A")],
  ["Token scheme", `Token ${signed(HS256, claims, "nope")}`],
];

const admin = (name: string, token: string, status = 401): HostileCase => ({ name: `admin route: ${name}`, raw: http("DELETE", "/api/v1/admin/cache", [["Authorization", `Bearer ${token}`]]), expect: status });

export const jwtClass: HostileClass = {
  name: "jwt",
  cases: [
    // Header parameters a JWS does not define are ignored unless listed in crit (RFC 7515 §4), and
    // a NumericDate has no upper bound: correctly signed, these are accepted or refused.
    { name: 'zip "DEF" (a JWE header) on a signed token', raw: http("GET", "/api/v1/me", [["Authorization", `Bearer ${signed({ ...HS256, zip: "DEF" })}`]]), expect: [200, 401] },
    { name: "exp of 1e308 on a signed token", raw: http("GET", "/api/v1/me", [["Authorization", `Bearer ${signed(HS256, { ...claims, exp: 1e308 })}`]]), expect: [200, 401] },
    { name: "control: a correctly signed token is accepted", raw: http("GET", "/api/v1/me", [["Authorization", `Bearer ${good}`]]), expect: (a) => assert.equal(a.status, 200) },
    // A token past the head size limit is refused before any parsing: 431.
    ...tokens.map(([name, token]): HostileCase => ({ name, raw: http("GET", "/api/v1/me", [["Authorization", `Bearer ${token}`]]), expect: token.length > 16_000 ? 431 : 401 })),
    ...tokens.slice(0, 20).map(([name, token]) => admin(name, token)),
    admin("a valid token with role user", signed(HS256, { ...claims, role: "user", roles: ["user"] }), 403),
    ...authSchemes.map(([name, value]): HostileCase => ({ name: `Authorization: ${name}`, raw: http("GET", "/api/v1/me", [["Authorization", value]]), expect: 401 })),
    { name: "two Authorization headers, the forged one first", raw: http("GET", "/api/v1/me", [["Authorization", `Bearer ${signed(HS256, claims, "nope")}`], ["Authorization", `Bearer ${good}`]]), expect: [400, 401] },
    { name: "the token in a cookie instead", raw: http("GET", "/api/v1/me", [["Cookie", `token=${good}; access_token=${good}`]]), expect: 401 },
    { name: "the token in the query instead", raw: http("GET", `/api/v1/me?access_token=${good}`), expect: 401 },
    { name: "no Authorization at all", raw: http("GET", "/api/v1/me"), expect: 401 },
  ],
};
