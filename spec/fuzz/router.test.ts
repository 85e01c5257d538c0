// Router paths, fuzzed through a whole App: random targets never crash it, never give a 5xx,
// every refusal is the uniform error body; and a path built from a route template with random
// parameter values (percent-encoded as a client would) matches that route and hands the values
// back decoded — the reference decision.
import assert from "node:assert/strict";
import { test } from "node:test";
import { App, path, route, silentLogger } from "../../lib/index.js";
import { runProperty, type Rng } from "./property.js";

const TEMPLATES = ["/a/{x}", "/a/{x}/b", "/a/{x}/b/{y}", "/files/{*rest}", "/users/{id}/posts/{post}", "/s/static", "/s/{x}", "/{x}/tail"];

function fuzzApp(): App {
  const app = new App({ logger: silentLogger, env: "production" });
  for (const t of TEMPLATES) {
    const names = [...t.matchAll(/\{\*?(\w+)\}/g)].map((m) => m[1]!);
    app.route(route.get(t, names.map((n) => path(n)), (...values: unknown[]) => ({ route: t, params: Object.fromEntries(names.map((n, i) => [n, values[i]])) })));
  }
  return app;
}

const PIECES = ["a", "b", "s", "static", "files", "users", "posts", "tail", "/", "//", ".", "..", "%2F", "%2f", "%5C", "\\", "%00", "%", "%zz", "%c0%af", "%e2%82%ac", "%ff", "é", "😀", "?", "?x=1", "#", ";", "*", "{x}", " ", "%20", "+", "~", "-", "_", "A".repeat(120)];
const VALUE_CHARS = [..."abcXYZ019-._~!$&'()*+,;=:@ /?#[]%", "é", "ß", "😀", "\u0000", "\u007f"];

const uniform = (body: string): void => {
  const b = JSON.parse(body) as { error?: { type?: string; message?: string }; error_id?: string };
  assert.equal(typeof b.error?.type, "string");
  assert.equal(typeof b.error?.message, "string");
  assert.match(String(b.error_id), /^err_[0-9a-f]{32}$/);
};

test("random targets: no crash, no 5xx, uniform errors", async () => {
  const app = fuzzApp();
  await runProperty({
    name: "router/random-targets",
    generate: (rng: Rng) => "/" + Array.from({ length: rng.range(0, 8) }, () => rng.pick(PIECES)).join(rng.chance(0.7) ? "/" : ""),
    check: async (url) => {
      const r = await app.inject({ url });
      assert.ok(r.status < 500, `${url} -> ${r.status} ${r.body}`);
      if (r.status >= 400) uniform(r.body);
    },
  });
});

test("template paths with random values match their route and decode their values", async () => {
  const app = fuzzApp();
  await runProperty({
    name: "router/template-paths",
    generate: (rng: Rng) => {
      const template = rng.pick(TEMPLATES.filter((t) => t !== "/s/static"));
      const values: Record<string, string> = {};
      for (const m of template.matchAll(/\{(\*?)(\w+)\}/g)) {
        // A catch-all may hold slashes; a segment value is at least one character (max 100 by default).
        let v = "";
        while (v === "") v = rng.string(VALUE_CHARS, m[1] === "*" ? 30 : 12);
        values[m[2]!] = v;
      }
      return { template, values };
    },
    check: async ({ template, values }) => {
      const url = template.replace(/\{(\*?)(\w+)\}/g, (_all, star: string, name: string) => {
        const v = values[name]!;
        return star === "*" ? v.split("/").map(encodeURIComponent).join("/") : encodeURIComponent(v);
      });
      const r = await app.inject({ url });
      // The one legitimate refusal: a static sibling wins ("/s/static") or a value is "static".
      if (template === "/s/{x}" && values["x"] === "static") return;
      if (template === "/{x}/tail" && ["a", "s", "files"].includes(values["x"]!)) return;
      assert.equal(r.status, 200, `${url} (${template} ${JSON.stringify(values)}) -> ${r.status} ${r.body}`);
      const got = r.json<{ route: string; params: Record<string, string> }>();
      assert.equal(got.route, template, url);
      assert.deepEqual(got.params, values, url);
    },
  });
});
