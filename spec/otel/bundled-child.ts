// A server script bundled as a service ships it (esbuild, one ESM file) and run in a child node
// with V8 flags, then loaded with GET /hello from this process: for the tests that read what V8
// did in the server's isolate (inlining, type feedback). A TypeScript loader in the child would
// bring classes and threads of its own into what is looked at.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before } from "node:test";
import { fileURLToPath } from "node:url";
import { build as esbuild } from "esbuild";
import { startReceiver, type Receiver } from "./otlp-receiver.js";

/** A lib/ source file as a string literal for a script's import. */
export const libPath = (path: string): string => JSON.stringify(fileURLToPath(new URL(`../../lib/${path}`, import.meta.url)));

/** What the hooks of `bundledServerFixture` set up: read it inside tests, after `before` ran. */
export interface BundledServer {
  /** A temp folder of the file's own (the bundle, the child's printed output). */
  dir: string;
  bundle: string;
  /** An OTLP receiver for the child's exporter to send to. */
  receiver: Receiver;
}

/** Register the file's hooks: before, an OTLP receiver and `script` bundled into a temp folder; after, both gone. */
export function bundledServerFixture(tmpPrefix: string, script: string): BundledServer {
  const fixture = {} as BundledServer;
  before(async () => {
    fixture.receiver = await startReceiver();
    fixture.dir = mkdtempSync(join(tmpdir(), tmpPrefix));
    fixture.bundle = await bundleServer(fixture.dir, script);
  });
  after(() => {
    rmSync(fixture.dir, { recursive: true, force: true });
    return fixture.receiver.close();
  });
  return fixture;
}

/** Write `script` to `dir`/server.ts and bundle it; the bundle's path. */
async function bundleServer(dir: string, script: string): Promise<string> {
  writeFileSync(join(dir, "server.ts"), script);
  const bundle = join(dir, "server.mjs");
  await esbuild({ entryPoints: [join(dir, "server.ts")], bundle: true, platform: "node", format: "esm", target: "node20", outfile: bundle, logLevel: "error" });
  return bundle;
}

export interface ChildRun {
  /** `node` flags before the bundle. */
  flags: readonly string[];
  env: Record<string, string>;
  /** Where the child's C stdout goes (V8's traces and %DebugPrint write there): a file, as a pipe is non-blocking in node and C's writes to it can be lost. */
  stdoutFile: string;
  /** GET /hello sent on 4 keep-alive connections once the child prints "PORT <n>" on stderr. */
  requests: number;
  /** Written to the child's stdin after the requests: the script reports and ends on it. */
  stdinLine: string;
}

/** Run the bundle in a child, load it, tell it to end; its stderr once it exited 0. */
export async function runLoadedChild(bundle: string, run: ChildRun): Promise<string> {
  const fd = openSync(run.stdoutFile, "w");
  const child = spawn(process.execPath, [...run.flags, bundle], { env: { ...process.env, ...run.env }, stdio: ["pipe", fd, "pipe"] });
  closeSync(fd);
  let lines = "";
  const stderr = child.stderr!;
  stderr.setEncoding("utf8");
  // "close", not "exit": stderr is read to its end.
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  const port = await new Promise<number>((resolve, reject) => {
    stderr.on("data", (d: string) => {
      lines += d;
      const m = /PORT (\d+)\n/.exec(lines);
      if (m !== null) resolve(Number(m[1]));
    });
    child.on("exit", (code) => reject(new Error(`child exited (${String(code)}) before listening: ${lines}`)));
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  let next = 0;
  const one = (): Promise<void> =>
    new Promise((resolve, reject) => {
      http.get(`http://127.0.0.1:${port}/hello`, { agent }, (res) => {
        res.resume();
        res.on("end", resolve);
      }).on("error", reject);
    });
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < run.requests) {
        next++;
        await one();
      }
    }),
  );
  agent.destroy();
  child.stdin!.end(run.stdinLine);
  assert.equal(await exited, 0, lines);
  return lines;
}
