// Path normalisation tricks against every kind of route (static, parameter, nested, the docs):
// encoded slashes and backslashes, dot segments, NUL, overlong and invalid UTF-8, double
// encoding, over-long segments, fragments and odd request targets. Each is a uniform 4xx:
// nothing is normalised into a different route, nothing reaches a handler with a decoded slash
// or NUL in a parameter.
import assert from "node:assert/strict";
import { http, type HostileCase, type HostileClass } from "../harness.js";

const tricks: Array<[string, (base: string) => string]> = [
  ["encoded slash", (b) => `${b}%2F..%2Fadmin`],
  ["lowercase encoded slash", (b) => `${b}%2f..%2fadmin`],
  ["double-encoded slash", (b) => `${b}%252F..%252Fadmin`],
  ["encoded slash in a parameter", (b) => `${b}/1%2F2`],
  ["double slash", (b) => `/${b}/`],
  ["a trailing double slash", (b) => `${b}//`],
  ["backslash", (b) => `${b}\\..\\admin`],
  ["encoded backslash", (b) => `${b}%5C..%5Cadmin`],
  ["dot-dot segment", (b) => `${b}/../../etc/passwd`],
  ["encoded dot-dot", (b) => `${b}/%2e%2e/%2e%2e/etc/passwd`],
  ["mixed encoded dot-dot", (b) => `${b}/.%2e/.%2E/etc/passwd`],
  ["a dot segment", (b) => `${b}/./1`],
  ["a Tomcat-style ..;/", (b) => `${b}/..;/admin`],
  ["NUL", (b) => `${b}%00`],
  ["NUL in a parameter", (b) => `${b}/1%00`],
  ["NUL then an extension", (b) => `${b}/1%00.json`],
  ["overlong UTF-8 slash", (b) => `${b}/%c0%af`],
  ["overlong UTF-8 dot", (b) => `${b}/%c0%ae%c0%ae`],
  ["three-byte overlong slash", (b) => `${b}/%e0%80%af`],
  ["IIS-style %u002f", (b) => `${b}/%u002f`],
  ["a fullwidth solidus", (b) => `${b}%EF%BC%8F..%EF%BC%8Fadmin`],
  ["invalid percent-encoding", (b) => `${b}/%zz`],
  ["truncated percent-encoding", (b) => `${b}/%4`],
  ["invalid UTF-8 after decoding", (b) => `${b}/%ff%fe`],
  ["a lone surrogate", (b) => `${b}/%ed%a0%80`],
  ["an encoded CRLF", (b) => `${b}/%0d%0aSet-Cookie:%20x=1`],
  ["a 150-character parameter", (b) => `${b}/${"1".repeat(150)}`],
  ["a 5 000-character path", (b) => `${b}/${"a/".repeat(2500)}`],
  ["a fragment", (b) => `${b}#frag`],
  ["an encoded question mark", (b) => `${b}%3Fx=1`],
  ["a semicolon parameter", (b) => `${b};jsessionid=1/../admin`],
  ["a trailing dot", (b) => `${b}.`],
];

const bases = ["/hello", "/users", "/api/v1/users", "/api/v1/jobs", "/docs", "/api/v1/me"];

const raw = (target: string): Buffer => Buffer.from(`GET ${target} HTTP/1.1\r\nHost: keel.test\r\n\r\n`, "latin1");

/** No header was injected through the path: the answer has no cookie of ours. */
const noInjectedCookie = (s: string): void => assert.doesNotMatch(s, /x=1/);

export const paths: HostileClass = {
  name: "paths",
  cases: [
    ...bases.flatMap((b) =>
      tricks.map(([name, f]): HostileCase => {
        const c: HostileCase = { name: `${b}: ${name}`, raw: raw(f(b)) };
        if (name === "an encoded CRLF")
          c.expect = (a) => {
            assert.ok(a.status >= 400 && a.status < 500, `status ${a.status}`);
            noInjectedCookie(a.headers["set-cookie"] ?? "");
          };
        return c;
      }),
    ),
    { name: "absolute-form with a bad port", raw: raw("http://localhost:invalid/admin"), expect: 400 },
    { name: "absolute-form without a host", raw: raw("http:///admin"), expect: 400 },
    { name: "absolute-form with userinfo", raw: raw("http://user:pw@keel.test/hello"), expect: 400 },
    { name: "absolute-form with a backslash authority", raw: raw("http://keel.test\\@evil.example/hello"), expect: 400 },
    { name: "absolute-form with a fragment", raw: raw("http://keel.test/hello#x"), expect: 400 },
    { name: "absolute-form https with a bad port", raw: raw("https://keel.test:99999/hello"), expect: 400 },
    { name: "another scheme", raw: raw("file:///etc/passwd"), expect: 400 },
    { name: "a javascript: target", raw: raw("javascript:alert(1)"), expect: 400 },
    { name: "an asterisk target on GET", raw: raw("*"), expect: 400 },
    { name: "an asterisk target on POST", raw: Buffer.from("POST * HTTP/1.1\r\nHost: keel.test\r\nContent-Length: 0\r\n\r\n", "latin1"), expect: 400 },
    { name: "a relative target", raw: raw("hello"), expect: 400 },
    { name: "a target of only a query", raw: raw("?a=1"), expect: 400 },
    { name: "an authority-form target on GET", raw: raw("keel.test:80"), expect: 400 },
    { name: "a fragment right after the slash", raw: raw("/#/hello"), expect: 400 },
    { name: "a fragment in the query", raw: raw("/hello?a=1#b"), expect: 400 },
    { name: "a parameter of only encoded spaces", raw: http("GET", "/users/%20%20") },
    { name: "a negative id", raw: http("GET", "/users/-1") },
    { name: "a hex id", raw: http("GET", "/users/0x10") },
    { name: "an id with a leading plus", raw: http("GET", "/users/+1") },
    { name: "an id with an encoded digit", raw: http("GET", "/users/%31%00") },
    { name: "an id of Arabic-Indic digits", raw: http("GET", "/users/%D9%A1") },
    { name: "an id of fullwidth digits", raw: http("GET", "/users/%EF%BC%91") },
  ],
};
