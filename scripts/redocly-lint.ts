// Lint the sample service's OpenAPI document with Redocly's recommended ruleset:
//   node --import tsx scripts/redocly-lint.ts
// @redocly/cli is installed on demand into .tmp/redocly (ignored; never a package.json
// dependency). Exits non-zero on any error; warnings are printed.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { silentLogger } from "../lib/index.js";
import { createSampleApp } from "../lib/sample/index.js";
import { production } from "../lib/service/index.js";

const REDOCLY_VERSION = "2.77.0";
const root = fileURLToPath(new URL("..", import.meta.url));
const prefix = join(root, ".tmp", "redocly");
const cli = join(prefix, "node_modules", "@redocly", "cli", "bin", "cli.js");

if (!existsSync(cli)) {
  mkdirSync(prefix, { recursive: true });
  console.log(`installing @redocly/cli@${REDOCLY_VERSION} into .tmp/redocly ...`);
  execFileSync("npm", ["install", "--prefix", prefix, `@redocly/cli@${REDOCLY_VERSION}`, "--no-save", "--no-audit", "--no-fund"], { stdio: "inherit" });
}

// The document as the running service serves it (with the production baseline's probes).
const app = createSampleApp({ logger: silentLogger, env: "development", production: production({ service: "keel-sample", logger: silentLogger }) });
const res = await app.inject({ url: "/docs/openapi.json" });
if (res.status !== 200) throw new Error(`GET /docs/openapi.json answered ${res.status}`);
const dir = mkdtempSync(join(tmpdir(), "keel-redocly-"));
const file = join(dir, "openapi.json");
writeFileSync(file, res.body);
try {
  const lint = spawnSync(process.execPath, [cli, "lint", file, "--extends=recommended", "--format=stylish"], {
    stdio: "inherit",
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
  });
  process.exitCode = lint.status ?? 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
