// `engines` states exactly the Node lines the suite runs on (issue 33): the CI machine's Node 20
// plus the majors .ci/run runs the whole suite under again (scripts/node-versions.mjs), and the
// README names the same lines. Drift between the three fails here, not in a user's install.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

const root = new URL("../../", import.meta.url);
const read = (name: string): string => readFileSync(new URL(name, root), "utf8");

/** The CI machine's own Node line, which runs `npm test` first. */
const MACHINE_MAJOR = 20;

test("engines lists the CI machine's Node and every major .ci/run tests, nothing else", () => {
  const engines = (JSON.parse(read("package.json")) as { engines: { node: string } }).engines.node;
  const declared = engines.split("||").map((range) => {
    const m = /^\s*(\d+)\.x\s*$/.exec(range);
    assert.ok(m, `engines range ${JSON.stringify(range)} is not a whole major (N.x)`);
    return Number(m[1]);
  });
  const loop = /^for major in ([\d ]+); do$/m.exec(read(".ci/run"));
  assert.ok(loop, ".ci/run has a `for major in ...; do` loop over the tested Node majors");
  const tested = [MACHINE_MAJOR, ...loop[1]!.trim().split(/\s+/).map(Number)].sort((a, b) => a - b);
  assert.deepEqual([...declared].sort((a, b) => a - b), tested);
  const install = /node scripts\/node-versions\.mjs ([\d ]+)$/m.exec(read(".ci/run"));
  assert.deepEqual(install?.[1]?.trim().split(/\s+/).map(Number), tested.slice(1), ".ci/run installs the majors it tests");
  assert.ok(read("README.md").includes(`\`engines\` says \`${engines}\``), `README states engines as ${engines}`);
});
