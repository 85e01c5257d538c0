// Open redirects: targets that a lenient normaliser or a Location built from request headers
// could turn into a redirect off-site. No answer carries a Location that leaves the service:
// a Location, when present, is a path starting with one "/" (never "//" or "/\").
import assert from "node:assert/strict";
import { http, type Answer, type HostileCase, type HostileClass } from "../harness.js";

function noOffsiteLocation(a: Answer): void {
  const loc = a.headers["location"];
  if (loc !== undefined) assert.match(loc, /^\/(?![/\\])/, `redirects off-site: ${loc}`);
}
function refusedWithoutRedirect(a: Answer): void {
  noOffsiteLocation(a);
  assert.ok(a.status >= 400 && a.status < 500, `status ${a.status}`);
}

const targets = [
  "//evil.example",
  "//evil.example/",
  "///evil.example",
  "////evil.example",
  "/\\evil.example",
  "/\\/evil.example",
  "/%2F%2Fevil.example",
  "/%2f/evil.example",
  "/%5Cevil.example",
  "/%5C%5Cevil.example",
  "/%09/evil.example",
  "/%0a/evil.example",
  "/.evil.example",
  "/%2e%2e//evil.example",
  "//evil.example/%2e%2e",
  "//evil.example/..;/",
  "/users/..//evil.example",
  "/docs//evil.example",
  "/docs/%2F%2Fevil.example",
  "/docs/..%2F..%2F%2Fevil.example",
  "/api/v1/users//evil.example",
  "/hello?next=//evil.example",
  "/hello?redirect=https://evil.example",
  "/api/v1/form?return_to=%2F%2Fevil.example",
  "/%E3%80%82evil.example",
  "/https:/evil.example",
  "/https:%2F%2Fevil.example",
];

const creates = (name: string, extra: ReadonlyArray<readonly [string, string]>, target = "/users"): HostileCase => ({
  name: `Location of a created user: ${name}`,
  raw: http("POST", target, [["Content-Type", "application/json"], ...extra], `{"email":"redirect${Math.random().toString(36).slice(2, 8)}@example.com","password":"correct horse"}`),
  expect: (a) => {
    assert.ok(a.status < 500, `status ${a.status}`);
    noOffsiteLocation(a);
    assert.doesNotMatch(a.headers["location"] ?? "", /evil/, `location ${a.headers["location"]}`);
  },
});

export const redirects: HostileClass = {
  name: "redirects",
  cases: [
    ...targets.map((target): HostileCase => ({ name: target, raw: http("GET", target), expect: target.includes("?") ? noOffsiteLocation : refusedWithoutRedirect })),
    creates("X-Forwarded-Host", [["X-Forwarded-Host", "evil.example"]]),
    creates("X-Forwarded-Prefix", [["X-Forwarded-Prefix", "//evil.example"]]),
    creates("X-Original-Host and Forwarded", [["X-Original-Host", "evil.example"], ["Forwarded", "host=evil.example;proto=https"]]),
    creates("an absolute-form target naming another host", [], "http://evil.example/users"),
    {
      name: "Location of a report job with a forwarded host",
      raw: http("POST", "/api/v1/reports", [["Content-Type", "application/json"], ["X-Forwarded-Host", "evil.example"]], '{"kind":"usage","month":"2024-05"}'),
      expect: (a) => (noOffsiteLocation(a), assert.doesNotMatch(a.headers["location"] ?? "", /evil/)),
    },
  ],
};
