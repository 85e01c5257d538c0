// fastNullProtoMap: the reply headers' map. It must behave like Object.create(null) for any key a
// client or handler can send (no inherited names, "__proto__" an own key, nothing polluted) while
// staying in V8's fast mode (checked with %HasFastProperties in a child with natives syntax).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { it } from "node:test";
import { fastNullProtoMap } from "../../lib/util/fast-map.js";

it("has no inherited names and keeps __proto__ as an own key", () => {
  const h = fastNullProtoMap<string>();
  for (const name of ["constructor", "toString", "hasOwnProperty", "__proto__", "valueOf", "__defineGetter__"]) assert.equal(h[name], undefined, name);
  h["__proto__"] = "x";
  h["constructor"] = "y";
  assert.deepEqual(Object.keys(h), ["__proto__", "constructor"]);
  assert.equal(Object.getPrototypeOf(Object.getPrototypeOf(h)), null);
  assert.equal(({} as Record<string, unknown>)["x"], undefined);
  const keys: string[] = [];
  for (const k in h) keys.push(k);
  assert.deepEqual(keys, ["__proto__", "constructor"]);
});

it("stays in fast mode, unlike Object.create(null)", () => {
  const module = new URL("../../lib/util/fast-map.ts", import.meta.url).href;
  const script = `import { fastNullProtoMap } from ${JSON.stringify(module)}; const h = fastNullProtoMap(); h["content-type"] = "a"; h["content-length"] = 1; console.log(%HasFastProperties(h), %HasFastProperties(Object.create(null)));`;
  const out = execFileSync(process.execPath, ["--import", "tsx", "--allow-natives-syntax", "--input-type=module", "-e", script], { encoding: "utf8" });
  assert.equal(out.trim(), "true false");
});
