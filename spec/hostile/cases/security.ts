// Authentication and browser security: JWT algorithm confusion, `crit`, `kid` and key-URL
// tricks; cache deception; open redirects; CSRF and CORS bypass attempts.
import { createHmac } from "node:crypto";
import assert from "node:assert/strict";
import { DEV_JWT_SECRET } from "../../../lib/sample/index.js";
import { http, type Answer, type HostileClass, type HostileCase } from "../harness.js";

const b64 = (v: unknown): string => Buffer.from(typeof v === "string" ? v : JSON.stringify(v)).toString("base64url");
const now = Math.floor(Date.now() / 1000);
const claims = { sub: "mallory", roles: ["admin"], iat: now, exp: now + 3600 };

/** A token signed with the sample's development secret (a valid MAC), with any header. */
function signed(header: Record<string, unknown>, payload: Record<string, unknown> = claims, secret: string | Buffer = DEV_JWT_SECRET): string {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${createHmac("sha256", secret).update(input).digest("base64url")}`;
}
const unsigned = (header: Record<string, unknown>, payload: Record<string, unknown> = claims, sig = ""): string => `${b64(header)}.${b64(payload)}.${sig}`;

const tokens: Array<[string, string]> = [
  ['alg "none"', unsigned({ alg: "none", typ: "JWT" })],
  ['alg "None"', unsigned({ alg: "None" })],
  ['alg "NONE" with a signature', unsigned({ alg: "NONE" }, claims, "AAAA")],
  ["alg missing", signed({ typ: "JWT" })],
  ["alg HS512 signed with HS256", signed({ alg: "HS512" })],
  ["alg RS256 with an HMAC signature (key confusion)", signed({ alg: "RS256" })],
  ["alg ES256 with an HMAC signature", signed({ alg: "ES256" })],
  ["alg PS256 with an HMAC signature", signed({ alg: "PS256" })],
  ["alg EdDSA with an HMAC signature", signed({ alg: "EdDSA" })],
  ['crit ["exp"] (a registered claim is not an extension)', signed({ alg: "HS256", crit: ["exp"] })],
  ['crit ["x"] with x present', signed({ alg: "HS256", crit: ["x"], x: 1 })],
  ["crit empty", signed({ alg: "HS256", crit: [] })],
  ["crit not an array", signed({ alg: "HS256", crit: "x" })],
  ["kid path traversal", signed({ alg: "HS256", kid: "../../../../dev/null" }, claims, "")],
  ["kid SQL injection", signed({ alg: "HS256", kid: "' UNION SELECT 'secret' --" }, claims, "secret")],
  ["jku pointing elsewhere", signed({ alg: "HS256", jku: "https://evil.example/jwks.json" }, claims, "attacker")],
  ["x5u pointing elsewhere", signed({ alg: "HS256", x5u: "https://evil.example/cert.pem" }, claims, "attacker")],
  ["an embedded jwk", signed({ alg: "HS256", jwk: { kty: "oct", k: b64("attacker") } }, claims, "attacker")],
  ["the right alg, a wrong key", signed({ alg: "HS256" }, claims, "x".repeat(40))],
  ["an expired token", signed({ alg: "HS256" }, { ...claims, exp: now - 3600 })],
  ["a token not valid yet", signed({ alg: "HS256" }, { ...claims, nbf: now + 3600 })],
  ["exp as a string", signed({ alg: "HS256" }, { ...claims, exp: String(now + 3600) })],
  ["a signature with padding", signed({ alg: "HS256" }) + "="],
  ["a signature in standard base64", signed({ alg: "HS256" }).replace(/-/g, "+").replace(/_/g, "/") + "+/"],
  ["four segments", signed({ alg: "HS256" }) + ".extra"],
  ["five segments (JWE shape)", "a.b.c.d.e"],
  ["an empty token", ""],
  ["a header that is not JSON", `${b64("not json")}.${b64(claims)}.sig`],
  ["a payload that is an array", signed({ alg: "HS256" }, [1, 2] as unknown as Record<string, unknown>)],
  ["a 20 KB token", signed({ alg: "HS256", pad: "p".repeat(20_000) })],
  ["the header with a __proto__ member", signed({ alg: "HS256", ["__proto__"]: { polluted: true } } as Record<string, unknown>, claims, "nope")],
];

const authSchemes: Array<[string, string]> = [
  ["Basic credentials", "Basic bWFsbG9yeTpwdw=="],
  ["Bearer with two spaces", `Bearer  ${signed({ alg: "HS256" }, claims, "nope")}`],
  ["two Bearer tokens", `Bearer a.b.c, Bearer d.e.f`],
  ["a lowercase scheme with a forged token", `bearer ${unsigned({ alg: "none" })}`],
];

function noAllowOrigin(a: Answer): void {
  assert.equal(a.headers["access-control-allow-origin"], undefined, `reflected ${a.headers["access-control-allow-origin"]}`);
  assert.equal(a.headers["access-control-allow-credentials"], undefined);
  assert.ok(a.status < 500);
}

function notPubliclyCacheable(a: Answer): void {
  assert.ok(a.status >= 400 && a.status < 500, `status ${a.status}`);
  assert.doesNotMatch(a.headers["cache-control"] ?? "", /public/i, "an error page must not be publicly cacheable");
}

function noOffsiteRedirect(a: Answer): void {
  const loc = a.headers["location"];
  if (loc !== undefined) assert.match(loc, /^\/(?![/\\])/, `redirects off-site: ${loc}`);
  assert.ok(a.status >= 400 && a.status < 500, `status ${a.status}`);
}

const ORIGIN = "https://app.example";
// (Trailing whitespace is not a variant: field values are trimmed, so "https://app.example " is
// the allowed origin itself.)
const corsOrigins = ["null", "https://app.example.evil.com", "https://evil.com?https://app.example", "https://evil.com#https://app.example", "HTTPS://APP.EXAMPLE", "https://app.example:443", "https://app.example.", "https://app.example, https://evil.com", "http://app.example", "https://sub.app.example", "https://app-example", "https://app.exampl", "//app.example", "https://app.example/"];

export const security: HostileClass = {
  name: "security",
  cases: [
    // A token past the head size limit is refused before any parsing: 431.
    ...tokens.map(([name, token]): HostileCase => ({ name: `JWT: ${name}`, raw: http("GET", "/api/v1/me", [["Authorization", `Bearer ${token}`]]), expect: token.length > 16_000 ? 431 : 401 })),
    ...tokens.slice(0, 10).map(([name, token]): HostileCase => ({ name: `JWT on the admin route: ${name}`, raw: http("DELETE", "/api/v1/admin/cache", [["Authorization", `Bearer ${token}`]]), expect: [401, 403] as const })),
    ...authSchemes.map(([name, value]): HostileCase => ({ name: `Authorization: ${name}`, raw: http("GET", "/api/v1/me", [["Authorization", value]]), expect: 401 })),
    { name: "no Authorization at all", raw: http("GET", "/api/v1/me"), expect: 401 },
    ...["/api/v1/me/x.css", "/api/v1/me;x.css", "/api/v1/me%2Fx.css", "/api/v1/me/.js", "/api/v1/me%3Bx.css", "/api/v1/me/..%2Fusers", "/api/v1/me.json", "/api/v1/me%00.css"].map(
      (target): HostileCase => ({ name: `cache deception ${target}`, raw: http("GET", target), expect: notPubliclyCacheable }),
    ),
    ...["//evil.example", "/\\evil.example", "/%2F%2Fevil.example", "/%5Cevil.example", "//evil.example/%2e%2e", "/users/..//evil.example", "///evil.example", "/%09/evil.example", "/docs//evil.example", "/docs/%2F%2Fevil.example"].map(
      (target): HostileCase => ({ name: `open redirect ${target}`, raw: http("GET", target), expect: noOffsiteRedirect }),
    ),
    { name: "CSRF: a form post without any token", raw: http("POST", "/api/v1/form", [["Content-Type", "application/x-www-form-urlencoded"]], "name=a"), expect: 403 },
    { name: "CSRF: a forged token of the right shape", raw: http("POST", "/api/v1/form", [["Content-Type", "application/x-www-form-urlencoded"], ["Cookie", `csrf_token=${"A".repeat(22)}.${"B".repeat(43)}`], ["X-CSRF-Token", `${"A".repeat(22)}.${"B".repeat(43)}`]], "name=a"), expect: 403 },
    { name: "CSRF: an old-style 43-character token", raw: http("POST", "/api/v1/form", [["Content-Type", "application/x-www-form-urlencoded"], ["Cookie", `csrf_token=${"A".repeat(43)}`], ["X-CSRF-Token", "A".repeat(43)]], "name=a"), expect: 403 },
    { name: "CSRF: the token only in the query string", raw: http("POST", `/api/v1/form?_csrf=${"A".repeat(22)}.${"B".repeat(43)}`, [["Content-Type", "application/x-www-form-urlencoded"], ["Cookie", `csrf_token=${"A".repeat(22)}.${"B".repeat(43)}`]], "name=a"), expect: 403 },
    { name: "CSRF: a text/plain body", raw: http("POST", "/api/v1/form", [["Content-Type", "text/plain"]], "_csrf=x&name=a"), expect: 403 },
    { name: "CSRF: no content-type", raw: http("POST", "/api/v1/form", [], "_csrf=x&name=a"), expect: 403 },
    { name: "CSRF: a method-override header", raw: http("POST", "/api/v1/form", [["X-HTTP-Method-Override", "GET"], ["Content-Type", "application/x-www-form-urlencoded"]], "name=a"), expect: 403 },
    { name: "CSRF: the cookie under a __Host- name over plain HTTP", raw: http("POST", "/api/v1/form", [["Content-Type", "application/x-www-form-urlencoded"], ["Cookie", `__Host-csrf_token=${"A".repeat(22)}.${"B".repeat(43)}`], ["X-CSRF-Token", `${"A".repeat(22)}.${"B".repeat(43)}`]], "name=a"), expect: 403 },
    { name: "CSRF: two cookies of the same name", raw: http("POST", "/api/v1/form", [["Content-Type", "application/x-www-form-urlencoded"], ["Cookie", `csrf_token=a; csrf_token=${"A".repeat(22)}.${"B".repeat(43)}`], ["X-CSRF-Token", `${"A".repeat(22)}.${"B".repeat(43)}`]], "name=a"), expect: 403 },
    ...corsOrigins.map((origin): HostileCase => ({ name: `CORS: Origin ${JSON.stringify(origin)}`, raw: http("GET", "/api/v1/ping", [["Origin", origin]]), expect: noAllowOrigin })),
    ...corsOrigins.slice(0, 8).map((origin): HostileCase => ({
      name: `CORS preflight: Origin ${JSON.stringify(origin)}`,
      raw: http("OPTIONS", "/api/v1/users", [["Origin", origin], ["Access-Control-Request-Method", "POST"]]),
      expect: noAllowOrigin,
    })),
    { name: "CORS: the allowed origin is reflected (control case)", raw: http("GET", "/api/v1/ping", [["Origin", ORIGIN]]), expect: (a) => assert.equal(a.headers["access-control-allow-origin"], ORIGIN) },
  ],
};
