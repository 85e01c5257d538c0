// Headless Chromium for browser tests, without an npm dependency: find Debian's binary and dump
// the DOM of a page after its scripts ran. Tests skip visibly when it is absent.
import { execFile } from "node:child_process";
import { accessSync, constants, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";

/** Path of a Chromium binary (KEEL_CHROMIUM, or chromium / chromium-browser / google-chrome on PATH). */
export function findChromium(): string | undefined {
  const candidates = process.env["KEEL_CHROMIUM"] ? [process.env["KEEL_CHROMIUM"]] : [];
  for (const dir of (process.env["PATH"] ?? "").split(delimiter)) {
    for (const name of ["chromium", "chromium-browser", "google-chrome"]) if (dir !== "") candidates.push(join(dir, name));
  }
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * The DOM of `url` after its scripts ran (virtual time budget 5 s), from a fresh profile.
 * Asynchronous on purpose: the servers answering Chromium usually live in the test process.
 */
export function dumpDom(chromium: string, url: string): Promise<string> {
  const profile = mkdtempSync(join(tmpdir(), "keel-chromium-"));
  const args = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", `--user-data-dir=${profile}`, "--virtual-time-budget=5000", "--dump-dom", url,
  ];
  return new Promise<string>((resolve, reject) => {
    execFile(chromium, args, { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      rmSync(profile, { recursive: true, force: true });
      if (error) reject(new Error(`chromium failed: ${error.message}\n${String(stderr).slice(-2000)}`));
      else resolve(String(stdout));
    });
  });
}
