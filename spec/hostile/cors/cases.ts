// CORS bypass attempts against the sample with `corsOrigins: ["https://app.example"]` and
// credentials: origins that a prefix, suffix, regex or case-insensitive match would wrongly allow,
// and preflights asking for more than the configuration allows. None gets an
// `access-control-allow-origin` (these answers may be 2xx without it); the allowed origin is the control.
import assert from "node:assert/strict";
import { http, type Answer, type HostileCase, type HostileClass } from "../harness.js";

const ORIGIN = "https://app.example";

function noAllowOrigin(a: Answer): void {
  assert.ok(a.status < 500, `status ${a.status}`);
  assert.equal(a.headers["access-control-allow-origin"], undefined, `reflected ${a.headers["access-control-allow-origin"]}`);
  assert.equal(a.headers["access-control-allow-credentials"], undefined);
}

/** A preflight from the allowed origin asking for something outside the configuration. */
function refusesRequest(method: string, header: string | undefined) {
  return (a: Answer): void => {
    assert.ok(a.status < 500, `status ${a.status}`);
    if (a.headers["access-control-allow-origin"] === undefined) return;
    const methods = (a.headers["access-control-allow-methods"] ?? "").toLowerCase().split(/\s*,\s*/);
    const headers = (a.headers["access-control-allow-headers"] ?? "").toLowerCase().split(/\s*,\s*/);
    assert.ok(!methods.includes(method.toLowerCase()) && !methods.includes("*"), `allowed method ${method}: ${a.headers["access-control-allow-methods"]}`);
    if (header !== undefined) assert.ok(!headers.includes(header.toLowerCase()) && !headers.includes("*"), `allowed header ${header}: ${a.headers["access-control-allow-headers"]}`);
  };
}

// (Trailing whitespace is not a variant: field values are trimmed, so "https://app.example " is
// the allowed origin itself.)
const origins = [
  "null",
  "*",
  "",
  "https://app.example.evil.com",
  "https://app.example.evil.com:443",
  "https://evil.com?https://app.example",
  "https://evil.com#https://app.example",
  "https://evil.com/https://app.example",
  "https://app.example@evil.com",
  "https://app.example%60.evil.com",
  "https://app.example%2F.evil.com",
  "https://app.example`.evil.com",
  "https://app.example_.evil.com",
  "https://evilapp.example",
  "https://evil-app.example",
  "HTTPS://APP.EXAMPLE",
  "https://APP.example",
  "https://app.example:443",
  "https://app.example:8443",
  "https://app.example.",
  "https://app.example, https://evil.com",
  "https://evil.com, https://app.example",
  "https://app.example https://evil.com",
  "http://app.example",
  "ws://app.example",
  "https://sub.app.example",
  "https://app-example",
  "https://appXexample",
  "https://app.exampl",
  "https://app.examplee",
  "//app.example",
  "app.example",
  "https://app.example/",
  "https://app.example/path",
  "https://xn--pp-8ja.example",
  "https://app.example\u00a0",
  "https://app.example\u0009x",
  "file://",
  "chrome-extension://abcdefghijklmnop",
];

export const corsClass: HostileClass = {
  name: "cors",
  cases: [
    { name: "control: the allowed origin is reflected with Vary: Origin", raw: http("GET", "/api/v1/ping", [["Origin", ORIGIN]]), expect: (a) => (assert.equal(a.headers["access-control-allow-origin"], ORIGIN), assert.match(a.headers["vary"] ?? "", /origin/i)) },
    ...origins.map((o): HostileCase => ({ name: `simple request, Origin ${JSON.stringify(o)}`, raw: Buffer.from(`GET /api/v1/ping HTTP/1.1\r\nHost: keel.test\r\nOrigin: ${o}\r\n\r\n`, "latin1"), expect: noAllowOrigin })),
    ...origins.slice(0, 24).map(
      (o): HostileCase => ({
        name: `preflight, Origin ${JSON.stringify(o)}`,
        raw: Buffer.from(`OPTIONS /api/v1/users HTTP/1.1\r\nHost: keel.test\r\nOrigin: ${o}\r\nAccess-Control-Request-Method: POST\r\n\r\n`, "latin1"),
        expect: noAllowOrigin,
      }),
    ),
    { name: "an allowed Origin header, then a second evil one", raw: http("GET", "/api/v1/ping", [["Origin", ORIGIN], ["Origin", "https://evil.com"]]), expect: noAllowOrigin },
    { name: "an evil Origin header, then the allowed one", raw: http("GET", "/api/v1/ping", [["Origin", "https://evil.com"], ["Origin", ORIGIN]]), expect: noAllowOrigin },
    { name: "an evil origin on an error answer (404)", raw: http("GET", "/no-such-route", [["Origin", "https://evil.com"]]), expect: (a) => (noAllowOrigin(a), assert.equal(a.status, 404)) },
    { name: "an evil origin on an error answer (401)", raw: http("GET", "/api/v1/me", [["Origin", "https://evil.com"]]), expect: (a) => (noAllowOrigin(a), assert.equal(a.status, 401)) },
    { name: "an evil origin on a credentialed POST", raw: http("POST", "/users", [["Origin", "https://evil.com"], ["Cookie", "session=x"], ["Content-Type", "text/plain"]], "{}"), expect: (a) => (noAllowOrigin(a), assert.equal(a.status, 415)) },
    { name: "a Referer of the allowed origin without an Origin", raw: http("GET", "/api/v1/ping", [["Referer", `${ORIGIN}/page`]]), expect: noAllowOrigin },
    // (The sample allows GET, HEAD, PUT, PATCH, POST and DELETE: asking for those is no bypass.)
    ...(["TRACE", "CONNECT", "PROPFIND", "put", "GET2"] as const).map(
      (m): HostileCase => ({ name: `preflight from the allowed origin for method ${m}`, raw: http("OPTIONS", "/api/v1/users", [["Origin", ORIGIN], ["Access-Control-Request-Method", m]]), expect: refusesRequest(m, undefined) }),
    ),
    ...(["x-evil", "cookie", "x-forwarded-host", "authorization, x-evil", "content-type,x-evil"] as const).map(
      (h): HostileCase => ({
        name: `preflight from the allowed origin for header ${h}`,
        raw: http("OPTIONS", "/api/v1/users", [["Origin", ORIGIN], ["Access-Control-Request-Method", "POST"], ["Access-Control-Request-Headers", h]]),
        expect: refusesRequest("PUT-not-asked", h.split(",").map((x) => x.trim()).find((x) => x !== "authorization" && x !== "content-type")),
      }),
    ),
    { name: "a preflight with Access-Control-Request-Private-Network", raw: http("OPTIONS", "/api/v1/users", [["Origin", "https://evil.com"], ["Access-Control-Request-Method", "GET"], ["Access-Control-Request-Private-Network", "true"]]), expect: (a) => (noAllowOrigin(a), assert.equal(a.headers["access-control-allow-private-network"], undefined)) },
  ],
};
