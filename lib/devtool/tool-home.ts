// Where this tool's keel is: the checkout (or installed package) it runs from. Built, the tool is
// dist/cli.js beside dist/keel.js; from source it is lib/devtool/*.ts, two levels under the root.
// Found by walking up to the package.json named "keel", so both layouts need no configuration.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export interface ToolHome {
  /** The keel checkout's root, or null when no keel package.json is above this file. */
  root: string | null;
  /** Its package.json (name, version, engines...), or {}. */
  pkg: { name?: string; version?: string; engines?: { node?: string }; exports?: Record<string, unknown> };
  /** Where the built files are: the folder holding this tool when built, else <root>/dist. */
  dist: string;
}

export function toolHome(from: string = fileURLToPath(import.meta.url)): ToolHome {
  const here = dirname(from);
  let dir = here;
  for (let i = 0; i < 4; i++) {
    const file = join(dir, "package.json");
    if (existsSync(file)) {
      try {
        const pkg = JSON.parse(readFileSync(file, "utf8")) as ToolHome["pkg"];
        if (pkg.name === "keel") return { root: dir, pkg, dist: existsSync(join(here, "keel.js")) ? here : join(dir, "dist") };
      } catch {
        // not JSON: keep looking
      }
    }
    dir = dirname(dir);
  }
  return { root: null, pkg: {}, dist: here };
}
