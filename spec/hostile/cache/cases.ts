// Web cache deception and poisoning against the sample's response cache (`GET /api/v1/users`,
// 30 s) and its authenticated routes: a path dressed as a static file is a uniform 4xx that is
// not publicly cacheable, and what one request stores (a TOON variant, a credentialed answer,
// unkeyed forwarding headers, a compressed body) never reaches the next client unasked.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { DEV_JWT_SECRET } from "../../../lib/sample/index.js";
import { http, type Answer, type HostileCase, type HostileClass } from "../harness.js";

const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString("base64url");
const now = Math.floor(Date.now() / 1000);
const input = `${b64({ alg: "HS256", typ: "JWT" })}.${b64({ sub: "victim-7f3a", role: "user", iat: now, exp: now + 3600 })}`;
const victimToken = `${input}.${createHmac("sha256", DEV_JWT_SECRET).update(input).digest("base64url")}`;

function notPubliclyCacheable(a: Answer): void {
  assert.ok(a.status >= 400 && a.status < 500, `status ${a.status}`);
  assert.doesNotMatch(a.headers["cache-control"] ?? "", /public|s-maxage/i, "an error page must not be publicly cacheable");
  assert.notEqual(a.headers["x-cache"], "HIT", "an error page came from the cache");
}

const deceptions = [
  "/api/v1/me/x.css",
  "/api/v1/me;x.css",
  "/api/v1/me%2Fx.css",
  "/api/v1/me/.js",
  "/api/v1/me%3Bx.css",
  "/api/v1/me%23x.css",
  "/api/v1/me/..%2Fusers",
  "/api/v1/me.json",
  "/api/v1/me%00.css",
  "/api/v1/me/x.css?x=.css",
  "/api/v1/me/%2e%2e/static/app.js",
  "/api/v1/admin/cache/x.png",
  "/users/1;.css",
  "/users/1/x.css",
  "/users/1.css",
  "/users/1%3B.css",
  "/api/v1/users/x.css",
  "/api/v1/users;.js",
  "/api/v1/users%2F.css",
  "/api/v1/form/x.css",
];

let n = 0;
/** A query no other case uses, so each poisoning attempt has a cache entry of its own. */
const fresh = (): string => `/api/v1/users?limit=${(n++ % 90) + 10}`;

/** First request (hostile headers), then the same URL plainly on a new connection. */
function poison(name: string, hostile: ReadonlyArray<readonly [string, string]>, check: (second: Answer, first: Answer) => void, plain: ReadonlyArray<readonly [string, string]> = [], body = ""): HostileCase {
  const url = fresh();
  return {
    name: `poisoning: ${name}`,
    raw: http("GET", url, hostile, body),
    expect: (a) => assert.ok(a.status < 500, `status ${a.status}`),
    followUp: { raw: http("GET", url, plain), check },
  };
}

export const cache: HostileClass = {
  name: "cache",
  cases: [
    ...deceptions.map((target): HostileCase => ({ name: `deception ${target}`, raw: http("GET", target), expect: notPubliclyCacheable })),
    ...deceptions.slice(0, 12).map(
      (target): HostileCase => ({
        name: `deception with the victim's token ${target}`,
        raw: http("GET", target, [["Authorization", `Bearer ${victimToken}`]]),
        expect: (a) => {
          notPubliclyCacheable(a);
          assert.doesNotMatch(a.body, /victim-7f3a/, "served the victim's data under a static-looking path");
        },
        followUp: { raw: http("GET", target), check: (b) => assert.doesNotMatch(b.body, /victim-7f3a/, "the victim's data was cached") },
      }),
    ),
    {
      name: "the victim's /api/v1/me is not stored for the next caller",
      raw: http("GET", "/api/v1/me", [["Authorization", `Bearer ${victimToken}`]]),
      expect: (a) => assert.equal(a.status, 200),
      followUp: { raw: http("GET", "/api/v1/me"), check: (b) => (assert.equal(b.status, 401), assert.doesNotMatch(b.body, /victim-7f3a/)) },
    },
    poison("a TOON variant served to a JSON client", [["Accept", "application/toon"]], (b) => assert.match(b.headers["content-type"] ?? "", /^application\/json/, `content-type ${b.headers["content-type"]}`)),
    poison("a JSON variant served to a TOON client", [["Accept", "application/json"]], (b) => assert.match(b.headers["content-type"] ?? "", /^application\/toon/, `content-type ${b.headers["content-type"]}`), [["Accept", "application/toon"]]),
    poison("a gzip body served to a client that did not ask", [["Accept-Encoding", "gzip"]], (b) => assert.equal(b.headers["content-encoding"], undefined)),
    poison("a brotli body served to a client that did not ask", [["Accept-Encoding", "br"]], (b) => assert.equal(b.headers["content-encoding"], undefined)),
    poison("an answer to an Authorization header is stored", [["Authorization", `Bearer ${victimToken}`]], (b) => assert.notEqual(b.headers["x-cache"], "HIT", "a credentialed answer was stored")),
    poison("an answer to a Cookie is stored", [["Cookie", "session=victim"]], (b) => assert.notEqual(b.headers["x-cache"], "HIT", "a credentialed answer was stored")),
    poison("X-Forwarded-Host", [["X-Forwarded-Host", "evil.example"]], (b) => assert.doesNotMatch(JSON.stringify(b.headers) + b.body, /evil\.example/)),
    poison("X-Forwarded-Proto and X-Forwarded-Port", [["X-Forwarded-Proto", "javascript"], ["X-Forwarded-Port", "1337"]], (b) => assert.doesNotMatch(JSON.stringify(b.headers) + b.body, /javascript|1337/)),
    poison("X-Original-URL and X-Rewrite-URL", [["X-Original-URL", "/api/v1/admin/cache"], ["X-Rewrite-URL", "/api/v1/broken"]], (b) => assert.equal(b.status, 200)),
    poison("X-HTTP-Method-Override: DELETE", [["X-HTTP-Method-Override", "DELETE"]], (b) => assert.equal(b.status, 200)),
    poison("an unsatisfiable Accept", [["Accept", "image/png"]], (b) => (assert.equal(b.status, 200), assert.match(b.headers["content-type"] ?? "", /^application\/json/))),
    poison("Accept-Language", [["Accept-Language", "xx-EVIL"]], (b) => assert.doesNotMatch(b.body, /xx-EVIL/)),
    poison("a fat GET (a body on the cached GET)", [["Content-Type", "application/json"]], (b) => assert.equal(b.status, 200), [], '{"limit":1}'),
    poison("Range", [["Range", "bytes=0-5"]], (b) => assert.equal(b.status, 200)),
    poison("Cache-Control: max-age=0 from the client with a TOON Accept", [["Cache-Control", "max-age=0"], ["Accept", "application/toon"]], (b) => assert.match(b.headers["content-type"] ?? "", /^application\/json/)),
    poison("an X-Request-Id that would be replayed", [["X-Request-Id", "poisoned-id-123"]], (b) => assert.notEqual(b.headers["x-request-id"], "poisoned-id-123", "a cached answer replays another request's id")),
  ],
};
