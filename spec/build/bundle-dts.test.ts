// The d.ts bundler (scripts/bundle-dts.mjs) on a fixture project that uses every declaration
// form tsc emits for keel: classes with private/#private/protected members, overloads, generics,
// unique symbols, `export { a as b }`, `export *`, `export * as ns`, `export type {}`,
// import() type queries, node imports, module-private names that clash across modules, and an
// exported name that shadows a global. The bundle must typecheck a consumer that checks the
// types precisely (with lines that must fail), and unsupported input must be a clear error.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { STRICT_CONSUMER_OPTIONS } from "../support/strict-consumer.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const tscBin = join(root, "node_modules/typescript/bin/tsc");

interface BundleResult {
  text: string;
  exports: Array<{ name: string; typeOnly: boolean; kinds: string[] }>;
  ambiguous: Array<{ name: string; from: string[] }>;
}
interface BundlerModule {
  bundleDeclarations(options: { declarationDir: string; entry?: string; banner?: string }): BundleResult;
  DtsBundleError: new (message: string) => Error;
}
// A .mjs build script: loaded by URL so the strict project needs no declarations for it.
const bundler = (await import(pathToFileURL(join(root, "scripts/bundle-dts.mjs")).href)) as BundlerModule;

const STRICT = STRICT_CONSUMER_OPTIONS;

const FIXTURE: Record<string, string> = {
  "index.ts": `
export { Box, makeBox, kBrand, Base, type BoxOptions } from "./box.js";
export type { Box as BoxType } from "./box.js";
export { helper as publicHelper, boxed } from "./util.js";
export * from "./shapes/index.js";
export type { Shape as ShapeAlias } from "./shapes/shape.js";
export * as units from "./units.js";
export { Color, Level } from "./enums.js";
export { Response, statusOf } from "./response.js";
export { createStore, type Store, type Emitter, type Unit } from "./store.js";
export { collide as collideA } from "./a.js";
export { collide as collideB } from "./b.js";
export { statusOfGlobal } from "./fetchy.js";
`,
  "box.ts": `
import type { IncomingMessage } from "node:http";
export const kBrand: unique symbol = Symbol("brand");
export interface BoxOptions { readonly label?: string }
/** Base class; the comment mentions import("./nowhere.js") and export { x } on purpose. */
export abstract class Base {
  protected abstract kind(): string;
}
export class Box<T> extends Base {
  readonly [kBrand] = true as const;
  #secret = 1;
  private hidden = "x";
  static count = 0;
  constructor(public value: T, private options: BoxOptions = {}) {
    super();
  }
  protected kind(): string {
    return "box";
  }
  get label(): string {
    return this.options.label ?? this.hidden;
  }
  map<U>(fn: (v: T) => U): Box<U> {
    return new Box(fn(this.value));
  }
  pick(key: "value"): T;
  pick(key: "label"): string;
  pick(key: "value" | "label"): T | string {
    return key === "value" ? this.value : this.label;
  }
  fromRequest(req: IncomingMessage): string | undefined {
    return req.url;
  }
  secret(): number {
    return this.#secret;
  }
}
export function makeBox(): Box<string>;
export function makeBox<T>(value: T): Box<T>;
export function makeBox(value?: unknown): Box<unknown> {
  return new Box(value ?? "empty");
}
`,
  "util.ts": `
import { makeBox } from "./box.js";
type Private = { n: number };
const factor = 2;
function helper(x: number): Private {
  return { n: x * factor };
}
/** Inferred: tsc writes import("./box.js").Box<number> here. */
export const boxed = () => makeBox(2);
export { helper };
`,
  "shapes/index.ts": `
export * from "./shape.js";
export * from "./circle.js";
`,
  "shapes/shape.ts": `
export interface Shape { kind: string }
export type Tag = \`shape:\${string}\`;
export type Route = \`/users/{id}/\${number}\`;
export type Weird = "a;{b" | '}' | "import('./x.js')";
`,
  "shapes/circle.ts": `
import type { Shape } from "./shape.js";
export interface Circle extends Shape { r: number }
export const circle = (r: number): Circle => ({ kind: "circle", r });
`,
  "units.ts": `
export const meter = 1, centimeter = 0.01;
export type Unit = "m" | "cm";
`,
  "enums.ts": `
export enum Color { Red = "red", Blue = "blue" }
export enum Level { Low, High }
`,
  "response.ts": `
export class Response {
  readonly keelResponse = true as const;
}
export const statusOf = (r: Response): boolean => r.keelResponse;
`,
  // Uses the global fetch Response by its bare name: the bundle's own Response must not shadow it.
  "fetchy.ts": `
export function statusOfGlobal(r: Response): number {
  return r.status;
}
`,
  "store.ts": `
import * as units from "./units.js";
import { EventEmitter } from "node:events";
import type { Unit } from "./units.js";
import { statusOfGlobal } from "./fetchy.js";
interface Store {
  unit: Unit;
  scale: typeof units.meter;
  emitter: EventEmitter;
  status: typeof statusOfGlobal;
}
export type Emitter = EventEmitter;
export function createStore(): Store {
  return { unit: "m", scale: units.meter, emitter: new EventEmitter(), status: statusOfGlobal };
}
export type { Store, Unit };
`,
  "a.ts": `
type Internal = { a: 1 };
declare const secret: Internal;
export function collide(): Internal {
  return secret;
}
`,
  "b.ts": `
type Internal = { b: 2 };
declare const secret: Internal;
export function collide(): Internal {
  return secret;
}
`,
};

const CONSUMER = `
import * as all from "./bundle.js";
import {
  Box, makeBox, kBrand, Base, publicHelper, boxed, circle, units, Color, Level, Response, statusOf,
  statusOfGlobal, createStore, collideA, collideB,
  type BoxOptions, type BoxType, type Shape, type ShapeAlias, type Circle, type Tag, type Route, type Weird,
  type Store, type Emitter, type Unit,
} from "./bundle.js";
import { EventEmitter } from "node:events";

type Equal<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
const checks: true[] = [];
const b = makeBox(42);
const e: Equal<typeof b, Box<number>> = true;
const empty: Equal<ReturnType<typeof makeBox<string>>, Box<string>> = true;
const brand: true = b[kBrand];
const picked: number = b.pick("value");
const label: string = b.pick("label");
// @ts-expect-error private member
void b.hidden;
// @ts-expect-error protected member
void b.kind();
const mapped: Box<string> = b.map(String);
const base: Base = mapped;
const helperType: Equal<ReturnType<typeof publicHelper>, { n: number }> = true;
const boxedType: Equal<ReturnType<typeof boxed>, Box<number>> = true;
const c: Circle = circle(2);
const s: Shape = c;
const sa: ShapeAlias = c;
const meter: number = units.meter + units.centimeter;
const unit: units.Unit = "cm";
// @ts-expect-error not a unit
const badUnit: units.Unit = "km";
const col: Color = Color.Red;
const lv: Level = Level.High;
const ours: true = new Response().keelResponse;
const okStatus: boolean = statusOf(new Response());
const globalStatus: number = statusOfGlobal(new globalThis.Response("x"));
// @ts-expect-error keel's Response is not the global one
statusOfGlobal(new Response());
const store: Store = createStore();
const storeUnit: Unit = store.unit;
const emitter: Emitter = new EventEmitter();
const ca: Equal<ReturnType<typeof collideA>, { a: 1 }> = true;
const cb: Equal<ReturnType<typeof collideB>, { b: 2 }> = true;
const tag: Tag = "shape:round";
// @ts-expect-error template literal type
const badTag: Tag = "circle";
const route: Route = "/users/{id}/3";
const weird: Weird[] = ["a;{b", "}", "import('./x.js')"];
const opts: BoxOptions = { label: "l" };
const typeOnly: BoxType<number> = b;
// @ts-expect-error exported with export type: no value
new BoxType(1);
// @ts-expect-error module-private names are not exported
void all.helper;
// @ts-expect-error not exported from the entry
void all.secret;
checks.push(e, empty, brand, helperType, boxedType, ca, cb, ours);
export { picked, label, s, sa, meter, unit, badUnit, col, lv, okStatus, globalStatus, storeUnit, emitter, tag, badTag, route, weird, opts, typeOnly, checks };
`;

function writeTree(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
}

function tsc(cwd: string): { status: number | null; output: string } {
  const r = spawnSync(process.execPath, [tscBin, "-p", "tsconfig.json"], { cwd, encoding: "utf8" });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** Emit the fixture's declarations with tsc, then bundle them. */
function emitAndBundle(dir: string, files: Record<string, string>): BundleResult {
  writeTree(join(dir, "src"), files);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module", private: true }));
  const config = {
    compilerOptions: { ...STRICT, rootDir: "src", outDir: "out", declaration: true, emitDeclarationOnly: true },
    files: ["src/index.ts"],
  };
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(config, null, 2));
  const emitted = tsc(dir);
  assert.equal(emitted.status, 0, `fixture declaration emit failed:\n${emitted.output}`);
  return bundler.bundleDeclarations({ declarationDir: join(dir, "out"), entry: "index.d.ts", banner: "// fixture bundle" });
}

describe("d.ts bundler", () => {
  const scratch = mkdtempSync(join(tmpdir(), "keel-dts-"));
  after(() => rmSync(scratch, { recursive: true, force: true }));
  let fullBundle: BundleResult | undefined;
  const full = (): BundleResult => (fullBundle ??= emitAndBundle(join(scratch, "full"), FIXTURE));

  it("bundles every declaration form into one file a strict consumer typechecks precisely", () => {
    const bundle = full();
    const consumer = join(scratch, "full", "consumer");
    writeTree(consumer, {
      "bundle.d.ts": bundle.text,
      "main.ts": CONSUMER,
      "package.json": JSON.stringify({ type: "module", private: true }),
      "tsconfig.json": JSON.stringify({ compilerOptions: { ...STRICT, noEmit: true }, files: ["main.ts"] }),
    });
    const checked = tsc(consumer);
    assert.equal(checked.status, 0, `consumer typecheck failed:\n${checked.output}\n--- bundle.d.ts\n${bundle.text}`);

    // Self-contained: the only module specifiers left are node builtins.
    const code = bundle.text
      .split("\n")
      .filter((line) => !/^\s*(?:\/\/|\/\*|\*)/.test(line))
      .join("\n");
    const specifiers = [...code.matchAll(/(?:from\s*|import\(\s*)"([^"]+)"/g)].map((m) => m[1]);
    assert.ok(specifiers.length > 0);
    for (const spec of specifiers) assert.match(String(spec), /^node:/);
    assert.ok(bundle.text.startsWith("// fixture bundle\n"));
    assert.match(bundle.text, /\/\/\/ <reference types="node" \/>/);
    assert.doesNotMatch(bundle.text, /^\s*declare\s+(?:const|function|class)\b/m, "no nested `declare` inside namespaces");
  });

  it("reports the entry's exports with type-only-ness and declaration kinds", () => {
    const bundle = full();
    const byName = new Map(bundle.exports.map((e) => [e.name, e]));
    assert.deepEqual(byName.get("Box"), { name: "Box", typeOnly: false, kinds: ["class"] });
    assert.deepEqual(byName.get("BoxType"), { name: "BoxType", typeOnly: true, kinds: ["class"] });
    assert.deepEqual(byName.get("makeBox")?.kinds, ["function"]);
    assert.deepEqual(byName.get("Circle")?.kinds, ["interface"], "names from export * are included");
    assert.deepEqual(byName.get("units")?.kinds, [], "export * as ns");
    assert.equal(byName.get("Store")?.typeOnly, true);
    assert.ok(!byName.has("Internal") && !byName.has("helper"), "module-private names stay private");
  });

  // Hand-written declaration files from here on: the shapes tsc emits, without a tsc run each.
  const bundleFiles = (name: string, files: Record<string, string>): BundleResult => {
    const dir = join(scratch, name.replace(/\W+/g, "-"));
    writeTree(dir, files);
    return bundler.bundleDeclarations({ declarationDir: dir, entry: "index.d.ts" });
  };

  it("refuses what it cannot bundle faithfully, naming the file", () => {
    const cases: Array<[string, Record<string, string>, RegExp]> = [
      [
        "a dependency import",
        { "index.d.ts": `export type { Foo } from "./dep.js";\n`, "dep.d.ts": `import type { Agent } from "undici";\nexport type Foo = Agent;\n` },
        /^dep\.d\.ts: .*"undici"/,
      ],
      ["a global augmentation", { "index.d.ts": `export declare const x = 1;\ndeclare global {\n    interface KeelMarker {\n        x: 1;\n    }\n}\n` }, /^index\.d\.ts: declare global.*global augmentations/],
      ["a default export", { "index.d.ts": `export default function f(): number;\n` }, /^index\.d\.ts: .*named exports only/],
      ["import = require", { "index.d.ts": `import fs = require("node:fs");\nexport type F = typeof fs;\n` }, /^index\.d\.ts: .*require\(\) is not supported/],
      ["export * from node", { "index.d.ts": `export * from "node:http";\n` }, /^index\.d\.ts: .*export \* from a node module/],
      ["a missing module", { "index.d.ts": `export { a } from "./gone.js";\n` }, /^index\.d\.ts: cannot find declarations for "\.\/gone\.js"/],
      ["an unknown re-export", { "index.d.ts": `export { nope } from "./a.js";\n`, "a.d.ts": `export declare const a: 1;\n` }, /index\.d\.ts: a\.d\.ts does not export nope/],
    ];
    for (const [name, files, message] of cases) {
      assert.throws(() => bundleFiles(name, files), (err: unknown) => {
        assert.ok(err instanceof bundler.DtsBundleError, `${name}: expected a DtsBundleError, got ${String(err)}`);
        assert.match(err.message, message, name);
        return true;
      });
    }
  });

  it("keeps multi-line literals intact and skips comments and strings when scanning", () => {
    const bundle = bundleFiles("literals", {
      "index.d.ts": [
        `/** export { nope } from "./missing.js"; import("./missing.js") */`,
        "export type Multi = `line one",
        "line two ${string}",
        "  indented {`;",
        `export declare const brace: "}{;";`,
        "// export { alsoNope };",
        `export declare const nested: \`\${"a" | \`{\${number}}\`}\`;`,
        "",
      ].join("\n"),
    });
    assert.ok(bundle.text.includes("`line one\nline two ${string}\n  indented {`"), bundle.text);
    assert.ok(bundle.text.includes(`export const brace: "}{;";`), bundle.text);
    assert.deepEqual(
      bundle.exports.map((e) => e.name),
      ["Multi", "brace", "nested"],
    );
  });

  it("reports names two `export *` lines provide from different declarations (ES leaves them out)", () => {
    const bundle = bundleFiles("ambiguous", {
      "index.d.ts": `export * from "./a.js";\nexport * from "./b.js";\nexport * from "./shared-again.js";\n`,
      "a.d.ts": `export declare const clash: 1;\nexport * from "./shared.js";\nexport declare const onlyA: 1;\n`,
      "b.d.ts": `export declare const clash: 2;\nexport * from "./shared.js";\n`,
      "shared.d.ts": `export declare const same: 3;\n`,
      "shared-again.d.ts": `export { same } from "./shared.js";\n`,
    });
    assert.deepEqual(bundle.ambiguous, [{ name: "clash", from: ["a.d.ts", "b.d.ts"] }]);
    assert.deepEqual(bundle.exports.map((e) => e.name).sort(), ["onlyA", "same"], "one declaration reached twice is not ambiguous");
  });

  it("resolves aliases through chains of re-exports, stars and namespace imports", () => {
    const bundle = bundleFiles("chains", {
      "index.d.ts": `export { Deep as Renamed } from "./mid.js";\nexport * from "./mid.js";\nexport type { Ns } from "./ns.js";\n`,
      "mid.d.ts": `import { Deep } from "./deep.js";\nexport { Deep };\nexport * from "./deep.js";\n`,
      "deep.d.ts": `export declare class Deep {\n    x: 1;\n}\nexport declare const other: 2;\n`,
      "ns.d.ts": `import * as mid from "./mid.js";\nexport type Ns = typeof mid;\nexport type Viaimport = import("./mid.js").Deep;\n`,
    });
    assert.deepEqual(
      bundle.exports.map((e) => [e.name, e.typeOnly, e.kinds.join()]),
      [["Renamed", false, "class"], ["Ns", true, "type"], ["Deep", false, "class"], ["other", false, "const"]],
    );
    assert.match(bundle.text, /import __keelexp_Renamed = __keel_deep\.Deep;/);
    assert.match(bundle.text, /import mid = __keelns_mid;/);
    assert.match(bundle.text, /declare namespace __keelns_mid \{\n    export import Deep = __keel_deep\.Deep;\n    export import other = __keel_deep\.other;\n\}/);
  });
});
