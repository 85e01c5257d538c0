// `keel new <dir>`: a starter project that passes its own tests (`npm test`) and runs
// (`npm start`) with nothing installed: the built single-file keel (dist/keel.js, or --kernel
// <file>) copied to vendor/ with its declarations when they are beside it (they only serve the
// editor: the starter is JavaScript), a small app, a server, a test.
// A folder that holds anything is refused: nothing of the user's is ever overwritten.
import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import type { CommandIo, ExitCode } from "./io.js";
import { STARTER_APP, STARTER_PACKAGE, STARTER_README, STARTER_SERVER, STARTER_TEST } from "./starter-files.js";
import type { ToolHome } from "./tool-home.js";

/** A package name from a folder name (lowercase, URL-safe), "keel-app" when nothing is left. */
function packageName(dir: string): string {
  const name = basename(dir).toLowerCase().replace(/[^a-z0-9._-]+/g, "-").replace(/^[._-]+|-+$/g, "");
  return name === "" ? "keel-app" : name.slice(0, 214);
}

export function runNew(io: CommandIo, home: ToolHome, target: string, kernel?: string): ExitCode {
  const dir = resolve(io.cwd, target);
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    io.stderr(`keel new: ${dir} is not empty; give a new or empty folder\n`);
    return 1;
  }
  const js = kernel === undefined ? join(home.dist, "keel.js") : resolve(io.cwd, kernel);
  const dts = js.replace(/\.js$/, ".d.ts");
  if (!existsSync(js)) {
    io.stderr(`keel new: ${js} does not exist: build keel first (npm run build in the keel checkout), or name the bundle with --kernel <file.js>\n`);
    return 1;
  }
  const vendored = existsSync(dts) ? ["vendor/keel.js", "vendor/keel.d.ts"] : ["vendor/keel.js"];
  const files: Array<[string, string]> = [
    ["package.json", STARTER_PACKAGE(packageName(dir), home.pkg.engines?.node ?? ">=20")],
    ["app.js", STARTER_APP],
    ["server.js", STARTER_SERVER],
    ["test/app.test.js", STARTER_TEST],
    ["README.md", STARTER_README(packageName(dir))],
  ];
  mkdirSync(join(dir, "vendor"), { recursive: true });
  mkdirSync(join(dir, "test"), { recursive: true });
  copyFileSync(js, join(dir, "vendor/keel.js"));
  if (vendored.length > 1) copyFileSync(dts, join(dir, "vendor/keel.d.ts"));
  for (const [name, text] of files) writeFileSync(join(dir, name), text, { flag: "wx" });
  io.stdout(`created ${dir}: ${[...vendored, ...files.map(([n]) => n)].join(", ")}\nnext: cd ${target} && npm test && npm start\n`);
  return 0;
}
