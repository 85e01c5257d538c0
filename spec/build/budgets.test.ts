// Size budgets as tests (h3's bundle test is the model), so the kernel cannot grow unnoticed:
// minified by esbuild and gzip -9, as `npm run sizes` prints them.
//   - the hello app: App, route and listen from the kernel entry, tree-shaken; what the kernel
//     costs an app that uses nothing else;
//   - the kernel build: `npm run build -- --features kernel --minify`, every name of `keel`.
// A budget moves only in a commit that says why. The targets of issue 31 are 15 KB (hello app)
// and 25 KB (kernel); the budgets below step down towards them as capabilities leave the kernel
// (each step is in the CHANGELOG with the measured figure). Steps so far (bytes, gzip -9):
//   hello 36,006 -> 16,859: SSE, the html tag, HTTPS/HTTP/2, the upgrade mechanics and the full
//     JSON Schema engine left the kernel; response contracts reach their compilers only through
//     what builds schemas (t, the schema extractors, keel/schema), so an app without a schema
//     carries no serializer or validator;
//   kernel 42,518 -> 32,106: the same moves (the kernel build keeps t, the kernel's schema
//     compiler and the serializer, which are 11 KB of it);
//   then +226 (hello 17,085) and +201 (kernel 32,307): one Accept parser, one tchar table and one
//     JSON media-type test for the whole tree (each feature's own copy went; the kernel carries
//     the shared ones);
//   then +11 (hello 17,109; kernel unchanged within its budget): route.query, the builder for the
//     QUERY method (issue 33; route.method("QUERY") was already there, the warning about methods
//     node:http cannot deliver went to keel/service rather than the kernel's listen);
//   then +12 (hello 17,121) and +1,346 (kernel 33,663, with the fetch feature's two keel/plugin
//     exports): Standard Schema (issue 33). The hello app gains only App.route's refusal of a schema that is neither JSON Schema nor Standard Schema
//     (naming the route); the kernel build carries every `t` schema's `~standard` (Standard
//     Schema and Standard JSON Schema out, vendor "keel"), the extractors' foreign-schema path
//     (issues to the uniform 422) and the foreign response serializer behind the contract slot.
//   then +470 and +485: the tracing channels of issue 33 (lib/core/tracing.ts: keel.request/keel.handler TracingChannels, route registration; an
//     APM agent subscribes without the app's help, so they cannot be a feature the app imports).
//     Measured after all three (issue 33 so far): hello 17,591, kernel 34,148; then +10 (hello
//     17,601, kernel 34,163): the writer drops a late stream answer for a gone client, and its
//     failure line is one function (logStreamFailure) the fetch bridge calls too.
//   then +20 (hello 17,619) and +21 (kernel 34,177, within its budget): the error-reply hook
//     keel/messages installs (issue 37: `runtime.localize`, null by default, one test per error
//     reply), so 422 messages are translated where the body is made; the catalogues, templates
//     and Accept-Language choice are the feature's.
//   then +309 (hello 17,908) and +280 (kernel 34,436): the error paths of issue 34 (the uniform
//     body written by hand with JSON.stringify's bytes, ids sliced from a text of 256, the 404
//     decided by one all-methods routing table, +70/+50 of it): the 404 went from 64,580 to
//     58,786 instructions per request and the 422 from 111,284 to 104,865 (bench/instructions.mjs,
//     Node 20.20, --semi-space 16, 5 windows of 3,000).
//   both together: hello 17,928, kernel 34,457.
//   then +43 (hello 17,971) and -42 (kernel 34,415): the error body's JSON string writer and the
//     response serializer's copy of it became one (lib/util/json-string.ts); the hello app now
//     carries the serializer's one-regex path for long strings.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
// @ts-expect-error plain .mjs script without declarations
import { bundleFeatures, sizeOf } from "../../scripts/build.mjs";
// @ts-expect-error plain .mjs script without declarations
import { resolveFeatures } from "../../scripts/features.mjs";
// @ts-expect-error plain .mjs script without declarations
import { measureHelloApp } from "../../scripts/sizes.mjs";

/** Bytes, minified + gzip -9. */
const BUDGETS = {
  helloApp: 17_980,
  kernel: 34_480,
} as const;

interface Metafile {
  outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
}

/** The heaviest inputs of a bundle, for the failure message. */
function heaviest(metafile: Metafile, n = 8): string {
  const inputs = Object.values(metafile.outputs)[0]!.inputs;
  return Object.entries(inputs)
    .sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput)
    .slice(0, n)
    .map(([file, v]) => `  ${file}: ${v.bytesInOutput} B minified`)
    .join("\n");
}

describe("size budgets (minified, gzip -9)", () => {
  it(`the hello app (App, route, listen; tree-shaken) is at most ${BUDGETS.helloApp} bytes`, async () => {
    const hello = (await measureHelloApp()) as { raw: number; gzipped: number; metafile: Metafile };
    assert.ok(hello.raw > 1000, "the hello app bundled");
    assert.ok(hello.gzipped <= BUDGETS.helloApp, `hello app: ${hello.gzipped} B > ${BUDGETS.helloApp} B budget; heaviest inputs:\n${heaviest(hello.metafile)}`);
  });

  it(`the kernel build (--features kernel --minify) is at most ${BUDGETS.kernel} bytes`, async () => {
    const bundle = (await bundleFeatures(resolveFeatures(["kernel"]), { minify: true })) as { text: string; metafile: Metafile };
    const { gzipped } = sizeOf(bundle.text) as { gzipped: number };
    assert.ok(gzipped <= BUDGETS.kernel, `kernel: ${gzipped} B > ${BUDGETS.kernel} B budget; heaviest inputs:\n${heaviest(bundle.metafile)}`);
  });
});
