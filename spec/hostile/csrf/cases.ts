// CSRF bypass attempts on the sample's protected form (`POST /api/v1/form`, signed double-submit
// cookie `csrf_token` + header `x-csrf-token` or field `_csrf`): missing, forged, mismatched,
// foreign-session and mangled tokens, tokens in the wrong place, method and content-type tricks.
// Each is a uniform 403 (or the route's own 4xx once the check has passed); a valid pair is the control.
import assert from "node:assert/strict";
import { http, type HostileCase, type HostileClass } from "../harness.js";
import { csrfCookie, mintCsrf, validCsrf } from "./tokens.js";

const FORM = "application/x-www-form-urlencoded";
const other = mintCsrf("anonymous", "BBBBBBBBBBBBBBBBBBBBBB");
const [nonce, mac] = validCsrf.split(".") as [string, string];

type Headers = Array<readonly [string, string]>;
const post = (headers: Headers, body = "message=hi", target = "/api/v1/form"): Buffer => http("POST", target, headers, body);
const pair = (cookie: string, header: string): Headers => [["Content-Type", FORM], ["Cookie", csrfCookie(cookie)], ["X-CSRF-Token", header]];

const forged: Array<[string, Headers, string?]> = [
  ["no token at all", [["Content-Type", FORM]]],
  ["a valid cookie, no header", [["Content-Type", FORM], ["Cookie", csrfCookie(validCsrf)]]],
  ["a valid header, no cookie", [["Content-Type", FORM], ["X-CSRF-Token", validCsrf]]],
  ["two valid tokens that differ", pair(validCsrf, other)],
  ["a token for another session in both places", pair(mintCsrf("sub:mallory"), mintCsrf("sub:mallory"))],
  ["a token for an application session in both places", pair(mintCsrf("session-1"), mintCsrf("session-1"))],
  ["a token minted with another key", pair(mintCsrf("anonymous", nonce, "x".repeat(32)), mintCsrf("anonymous", nonce, "x".repeat(32)))],
  ["a token with a changed MAC", pair(`${nonce}.${mac.replace(/^./, mac[0] === "A" ? "B" : "A")}`, `${nonce}.${mac.replace(/^./, mac[0] === "A" ? "B" : "A")}`)],
  ["a token with a changed nonce", pair(`B${nonce.slice(1)}.${mac}`, `B${nonce.slice(1)}.${mac}`)],
  ["a forged token of the right shape", pair(`${"A".repeat(22)}.${"B".repeat(43)}`, `${"A".repeat(22)}.${"B".repeat(43)}`)],
  ["an old-style 43-character token", pair("A".repeat(43), "A".repeat(43))],
  ["the MAC only", pair(mac, mac)],
  ["the nonce only", pair(nonce, nonce)],
  ["a truncated token", pair(validCsrf.slice(0, -1), validCsrf.slice(0, -1))],
  ["a token with one character more", pair(validCsrf + "A", validCsrf + "A")],
  ["a token with base64 padding", pair(validCsrf + "=", validCsrf + "=")],
  ["a token in upper case", pair(validCsrf.toUpperCase(), validCsrf.toUpperCase())],
  ["empty cookie and header", pair("", "")],
  ["the string null in both", pair("null", "null")],
  ["a header that is the cookie with whitespace", pair(validCsrf, ` ${validCsrf} x`)],
  ["a header with two tokens", pair(validCsrf, `${other}, ${validCsrf}`)],
  ["two header lines, forged first", [["Content-Type", FORM], ["Cookie", csrfCookie(validCsrf)], ["X-CSRF-Token", other], ["X-CSRF-Token", validCsrf]]],
  ["two cookies of the same name, a bad one first", [["Content-Type", FORM], ["Cookie", `csrf_token=a; __Host-csrf_token=a; ${csrfCookie(validCsrf)}`], ["X-CSRF-Token", validCsrf]]],
  ["the token under another header name", [["Content-Type", FORM], ["Cookie", csrfCookie(validCsrf)], ["X-XSRF-Token", validCsrf]]],
  ["the token in the query string only", [["Content-Type", FORM], ["Cookie", csrfCookie(validCsrf)]], `/api/v1/form?_csrf=${validCsrf}`],
  ["the token in a text/plain body field", [["Content-Type", "text/plain"], ["Cookie", csrfCookie(validCsrf)]]],
  ["the token in a JSON body", [["Content-Type", "application/json"], ["Cookie", csrfCookie(validCsrf)]]],
  ["a form field of another token", [["Content-Type", FORM], ["Cookie", csrfCookie(validCsrf)]]],
  ["a method-override header", [["X-HTTP-Method-Override", "GET"], ["Content-Type", FORM]]],
  ["no content-type", []],
  ["an odd-case content-type", [["Content-Type", "Application/X-WWW-Form-Urlencoded"]]],
  ["a content-type with parameters", [["Content-Type", `${FORM}; charset=utf-8; boundary=x`]]],
];
/** Body per forged case (by name) where the token travels in the body. */
const bodies: Record<string, string> = {
  "the token in a text/plain body field": `_csrf=${validCsrf}&message=hi`,
  "the token in a JSON body": JSON.stringify({ _csrf: validCsrf, message: "hi" }),
  "a form field of another token": `_csrf=${other}&message=hi`,
  "a method-override header": "_method=GET&message=hi",
};

export const csrfClass: HostileClass = {
  name: "csrf",
  cases: [
    { name: "control: a valid cookie and header pass", raw: post(pair(validCsrf, validCsrf)), expect: (a) => assert.equal(a.status, 200) },
    { name: "control: a valid cookie and form field pass", raw: post([["Content-Type", FORM], ["Cookie", csrfCookie(validCsrf)]], `_csrf=${validCsrf}&message=hi`), expect: (a) => assert.equal(a.status, 200) },
    ...forged.map(([name, headers, target]): HostileCase => ({ name, raw: post(headers, bodies[name] ?? "message=hi", target), expect: 403 })),
    // Outside production the cookie is `csrf_token`: a `__Host-` one is someone else's cookie.
    { name: "the cookie under a __Host- name in development", raw: post([["Content-Type", FORM], ["Cookie", `__Host-csrf_token=${validCsrf}`], ["X-CSRF-Token", validCsrf]]), expect: 403, only: "development" },
    { name: "the cookie under the plain name in production", raw: post([["Content-Type", FORM], ["Cookie", `csrf_token=${validCsrf}`], ["X-CSRF-Token", validCsrf]]), expect: 403, only: "production" },
    { name: "two _csrf fields, a forged one first", raw: post([["Content-Type", FORM], ["Cookie", csrfCookie(validCsrf)]], `_csrf=${other}&_csrf=${validCsrf}&message=hi`), expect: 403 },
    { name: "_csrf in a field named with an encoded name", raw: post([["Content-Type", FORM], ["Cookie", csrfCookie(validCsrf)]], `%5Fcsrf=${other}&message=hi`), expect: 403 },
    // Once the token check has passed, the form extractor still refuses other media types.
    { name: "a valid pair with a JSON body", raw: post([...pair(validCsrf, validCsrf).slice(1), ["Content-Type", "application/json"]], '{"message":"hi"}'), expect: 415 },
    { name: "a valid pair with a multipart body", raw: post([...pair(validCsrf, validCsrf).slice(1), ["Content-Type", "multipart/form-data; boundary=b"]], '--b\r\nContent-Disposition: form-data; name="message"\r\n\r\nhi\r\n--b--\r\n'), expect: 415 },
    { name: "a valid pair with a text/plain body", raw: post([...pair(validCsrf, validCsrf).slice(1), ["Content-Type", "text/plain"]], "message=hi"), expect: 415 },
    { name: "a valid pair with an over-long message", raw: post(pair(validCsrf, validCsrf), `message=${"a".repeat(501)}`), expect: 422 },
    ...(["PUT", "PATCH", "DELETE", "PROPFIND"] as const).map((m): HostileCase => ({ name: `${m} on the form without a token`, raw: http(m, "/api/v1/form", [["Content-Type", FORM]], "message=hi"), expect: [403, 405, 501] })),
  ],
};
