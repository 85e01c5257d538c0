// keel with declared response schemas on the benchmark routes: the compiled serializers write
// the bodies. Compared with servers/keel.ts (JSON.stringify) in the full run (`--impls keel,keel-schemas,raw`).
process.argv.push("--response-schemas");
await import("./keel.js");
