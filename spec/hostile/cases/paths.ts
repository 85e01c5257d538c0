// Path normalisation tricks against every kind of route (static, parameter, nested): encoded
// slashes and backslashes, dot segments, NUL, overlong and invalid UTF-8, over-long segments,
// fragments and odd targets. Each is a 4xx in the uniform body: nothing is normalised into a
// different route, nothing reaches a handler with a decoded slash or NUL in a parameter.
import { http, type HostileClass } from "../harness.js";

const tricks: Array<[string, (base: string) => string]> = [
  ["encoded slash", (b) => `${b}%2F..%2Fadmin`],
  ["encoded slash in a parameter", (b) => `${b}/1%2F2`],
  ["double slash", (b) => `/${b}/`],
  ["backslash", (b) => `${b}\\..\\admin`],
  ["encoded backslash", (b) => `${b}%5C..%5Cadmin`],
  ["dot-dot segment", (b) => `${b}/../../etc/passwd`],
  ["encoded dot-dot", (b) => `${b}/%2e%2e/%2e%2e/etc/passwd`],
  ["NUL", (b) => `${b}%00`],
  ["NUL in a parameter", (b) => `${b}/1%00`],
  ["overlong UTF-8 slash", (b) => `${b}/%c0%af`],
  ["overlong UTF-8 dot", (b) => `${b}/%c0%ae%c0%ae`],
  ["invalid percent-encoding", (b) => `${b}/%zz`],
  ["truncated percent-encoding", (b) => `${b}/%4`],
  ["invalid UTF-8 after decoding", (b) => `${b}/%ff%fe`],
  ["a lone surrogate", (b) => `${b}/%ed%a0%80`],
  ["a 150-character parameter", (b) => `${b}/${"1".repeat(150)}`],
  ["a 5 000-character path", (b) => `${b}/${"a/".repeat(2500)}`],
  ["a fragment", (b) => `${b}#frag`],
  ["a semicolon parameter", (b) => `${b};jsessionid=1/../admin`],
  ["a trailing dot", (b) => `${b}.`],
];

const bases = ["/hello", "/users", "/api/v1/users", "/api/v1/jobs", "/docs"];

const raw = (target: string): Buffer => Buffer.from(`GET ${target} HTTP/1.1\r\nHost: keel.test\r\n\r\n`, "latin1");

export const paths: HostileClass = {
  name: "paths",
  cases: [
    ...bases.flatMap((b) => tricks.map(([name, f]) => ({ name: `${b}: ${name}`, raw: raw(f(b)) }))),
    { name: "absolute-form with a bad port", raw: raw("http://localhost:invalid/admin"), expect: 400 },
    { name: "absolute-form without a host", raw: raw("http:///admin"), expect: 400 },
    { name: "absolute-form with userinfo", raw: raw("http://user:pw@keel.test/hello"), expect: 400 },
    { name: "another scheme", raw: raw("file:///etc/passwd"), expect: 400 },
    { name: "an asterisk target on GET", raw: raw("*"), expect: 400 },
    { name: "a relative target", raw: raw("hello"), expect: 400 },
    { name: "an authority-form target on GET", raw: raw("keel.test:80"), expect: 400 },
    { name: "a parameter of only encoded spaces", raw: http("GET", "/users/%20%20") },
    { name: "a negative id", raw: http("GET", "/users/-1") },
    { name: "a hex id", raw: http("GET", "/users/0x10") },
  ],
};
