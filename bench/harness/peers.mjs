// The comparison peers (Fastify and the official plugins of the `real` scenario, Hono,
// find-my-way, ajv, ws) live in the git-ignored bench/.peers,
// installed on demand and never declared in package.json. One npm command installs them all:
// `--no-save` installs prune whatever else is in the folder, so the list is always complete.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runCommand } from "./processes.mjs";

// The @fastify/* majors are the ones for Fastify 5 (issue 34's `real` scenario).
export const PEER_PACKAGES = ["fastify@5", "@fastify/jwt@10", "@fastify/rate-limit@11", "@fastify/cors@11", "@fastify/helmet@13", "hono@4", "@hono/node-server", "find-my-way", "ajv", "ajv-formats", "ws@8"];
const NEEDED = ["fastify", "@fastify/jwt", "@fastify/rate-limit", "@fastify/cors", "@fastify/helmet", "hono", "@hono/node-server", "find-my-way", "ajv", "ajv-formats", "ws"];

function versionOf(peersDir, name) {
  try {
    return JSON.parse(readFileSync(join(peersDir, "node_modules", name, "package.json"), "utf8")).version;
  } catch {
    return null;
  }
}

export function peerVersions(peersDir) {
  const out = {};
  for (const name of NEEDED) out[name] = versionOf(peersDir, name);
  return out;
}

/** Install the peers when any is missing. Never throws: returns { ok, versions, note }. */
export async function ensurePeers(peersDir, log) {
  const missing = NEEDED.filter((n) => !existsSync(join(peersDir, "node_modules", n, "package.json")));
  if (missing.length > 0) {
    log(`installing benchmark peers into ${peersDir} (missing: ${missing.join(", ")}) ...`);
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    const r = await runCommand(npm, ["install", "--prefix", peersDir, ...PEER_PACKAGES, "--no-save", "--no-audit", "--no-fund"], { timeoutMs: 180_000 });
    if (r.code !== 0) {
      const why = (r.stderr || r.stdout).trim().split("\n").slice(-3).join(" ");
      log(`peer install failed, continuing with keel vs raw only: ${why}`);
      return { ok: false, versions: peerVersions(peersDir), note: `peer install failed: ${why}` };
    }
  }
  const versions = peerVersions(peersDir);
  const ok = NEEDED.every((n) => versions[n] !== null);
  return { ok, versions, note: ok ? "" : "some peers are missing after install" };
}
