// A minimal Chrome DevTools Protocol client for browser tests, without an npm dependency: spawns
// headless Chromium with `--remote-debugging-pipe` (it reads NUL-terminated JSON messages on fd 3
// and writes its own on fd 4) and drives pages through flattened target sessions.
//
// Everything is bounded: a hard overall deadline kills the browser and fails every pending call;
// close() (idempotent, also run by withBrowser's finally) kills the process and removes the
// temporary profile whatever happened.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface Pending {
  resolve(value: Record<string, unknown>): void;
  reject(error: Error): void;
  method: string;
}

// Browsers still running when the test process exits (a crash, an unawaited close) die with it.
const live = new Map<ChildProcess, string>();
let exitHookInstalled = false;
function track(child: ChildProcess, profile: string): void {
  live.set(child, profile);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const [c, dir] of live) {
      killGroup(c);
      try {
        rmSync(dir, { recursive: true, force: true });
      } catch {
        // best effort while exiting
      }
    }
  });
}

/** SIGKILL to Chromium's process group (it was spawned detached as its leader): its helpers die too. */
function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // the group is gone already
  }
}

export interface BrowserOptions {
  /** Hard limit for the browser's whole life, in ms (default 60 s): then it is killed. */
  timeoutMs?: number;
}

/** A log line of a page: console calls, uncaught exceptions, and browser log entries (CSP reports). */
export interface PageLog {
  source: string;
  text: string;
}

export class CdpPage {
  readonly logs: PageLog[] = [];

  constructor(
    private readonly browser: CdpBrowser,
    readonly sessionId: string,
  ) {}

  send(method: string, params: Record<string, Json> = {}): Promise<Record<string, unknown>> {
    return this.browser.send(method, params, this.sessionId);
  }

  /** Navigates and resolves once the new document has committed (not necessarily loaded). */
  async navigate(url: string): Promise<void> {
    const r = await this.send("Page.navigate", { url });
    if (typeof r["errorText"] === "string") throw new Error(`navigation to ${url} failed: ${r["errorText"]}`);
  }

  /** The value of `expression` (awaited when it is a promise), as JSON. Throws the page's exception. */
  async evaluate<T = unknown>(expression: string): Promise<T> {
    const r = await this.send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true });
    const exception = r["exceptionDetails"] as { text?: string; exception?: { description?: string } } | undefined;
    if (exception !== undefined) throw new Error(`page exception: ${exception.exception?.description ?? exception.text ?? "unknown"}`);
    return (r["result"] as { value?: T } | undefined)?.value as T;
  }

  /** Polls `expression` until it is truthy (returning its value), or throws after `timeoutMs`. */
  async waitFor<T = unknown>(expression: string, timeoutMs = 10_000, what = expression): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await this.evaluate<T>(expression);
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}\npage logs:\n${this.logText()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Focuses the element matched by `selector` and types `text` into it as keyboard input would. */
  async type(selector: string, text: string): Promise<void> {
    const found = await this.evaluate<boolean>(`(() => { const e = document.querySelector(${JSON.stringify(selector)}); if (!e) return false; e.focus(); return document.activeElement === e; })()`);
    if (!found) throw new Error(`cannot focus ${selector}`);
    await this.send("Input.insertText", { text });
  }

  /** Clicks the element matched by `selector` (a DOM click, so it must exist; visibility not required). */
  async click(selector: string): Promise<void> {
    const found = await this.evaluate<boolean>(`(() => { const e = document.querySelector(${JSON.stringify(selector)}); if (!e) return false; e.click(); return true; })()`);
    if (!found) throw new Error(`nothing to click at ${selector}`);
  }

  logText(): string {
    return this.logs.map((l) => `[${l.source}] ${l.text}`).join("\n") || "(none)";
  }
}

export class CdpBrowser {
  #nextId = 1;
  readonly #pending = new Map<number, Pending>();
  readonly #pages = new Map<string, CdpPage>();
  #buffer: Buffer = Buffer.alloc(0);
  #stderr = "";
  #failure: Error | undefined;
  #closed: Promise<void> | undefined;
  readonly #exited: Promise<void>;
  readonly #deadline: NodeJS.Timeout;

  private constructor(
    private readonly child: ChildProcess,
    private readonly profile: string,
    timeoutMs: number,
  ) {
    const input = child.stdio[3] as Writable;
    const output = child.stdio[4] as Readable;
    this.#exited = new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once("exit", () => resolve());
    });
    child.once("exit", (code, signal) => this.#fail(new Error(`chromium exited (code ${code}, signal ${signal})\n${this.#stderr.slice(-2000)}`)));
    child.once("error", (err) => this.#fail(new Error(`chromium failed to start: ${err.message}`)));
    child.stderr?.on("data", (chunk: Buffer) => {
      this.#stderr = (this.#stderr + chunk.toString("utf8")).slice(-20_000);
    });
    input.on("error", (err) => this.#fail(new Error(`CDP pipe write failed: ${err.message}`)));
    output.on("data", (chunk: Buffer) => this.#receive(chunk));
    this.#deadline = setTimeout(() => {
      this.#fail(new Error(`the browser ran past its ${timeoutMs} ms limit and was killed`));
      void this.close();
    }, timeoutMs);
  }

  /** Starts Chromium with a fresh temporary profile. */
  static async launch(chromium: string, options: BrowserOptions = {}): Promise<CdpBrowser> {
    const profile = mkdtempSync(join(tmpdir(), "keel-cdp-"));
    const args = [
      "--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe", `--user-data-dir=${profile}`,
      "--no-first-run", "--no-default-browser-check", "--disable-background-networking", "--disable-component-update",
      "--disable-sync", "--disable-extensions", "--disable-quic", "--mute-audio", "--password-store=basic", "about:blank",
    ];
    let child: ChildProcess;
    try {
      // detached: its own process group, so close() can kill the renderers and helpers with it.
      child = spawn(chromium, args, { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"], detached: true });
    } catch (err) {
      rmSync(profile, { recursive: true, force: true });
      throw err;
    }
    track(child, profile);
    const browser = new CdpBrowser(child, profile, options.timeoutMs ?? 60_000);
    try {
      await browser.send("Browser.getVersion");
      return browser;
    } catch (err) {
      await browser.close();
      throw err;
    }
  }

  /** Sends one command (to the browser, or to a page session) and resolves with its result. */
  send(method: string, params: Record<string, Json> = {}, sessionId?: string): Promise<Record<string, unknown>> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    const id = this.#nextId++;
    const message = JSON.stringify({ id, method, params, ...(sessionId === undefined ? {} : { sessionId }) });
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, method });
      (this.child.stdio[3] as Writable).write(message + "\0");
    });
  }

  /** A new tab with its own flattened session; console output, exceptions and log entries are recorded. */
  async newPage(): Promise<CdpPage> {
    const { targetId } = (await this.send("Target.createTarget", { url: "about:blank" })) as { targetId: string };
    const { sessionId } = (await this.send("Target.attachToTarget", { targetId, flatten: true })) as { sessionId: string };
    const page = new CdpPage(this, sessionId);
    this.#pages.set(sessionId, page);
    await Promise.all([page.send("Page.enable"), page.send("Runtime.enable"), page.send("Log.enable")]);
    return page;
  }

  /** Kills the browser (its whole process group) and removes its profile. Safe to call more than once. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      clearTimeout(this.#deadline);
      // The profile is thrown away, so there is nothing to shut down gracefully: kill the group.
      this.#fail(new Error("the browser was closed"));
      killGroup(this.child);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.#exited, new Promise((r) => (timer = setTimeout(r, 5_000)))]);
      clearTimeout(timer);
      for (const stream of this.child.stdio) stream?.destroy();
      live.delete(this.child);
      // A helper may still be flushing a file into the profile for a moment: retry (ENOTEMPTY).
      await rm(this.profile, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
    })();
    return this.#closed;
  }

  /** The tail of Chromium's stderr (for failure messages). */
  stderrTail(): string {
    return this.#stderr.slice(-2000);
  }

  #fail(error: Error): void {
    if (this.#failure === undefined) this.#failure = error;
    for (const [id, p] of this.#pending) {
      this.#pending.delete(id);
      p.reject(new Error(`${p.method}: ${this.#failure.message}`));
    }
  }

  #receive(chunk: Buffer): void {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    for (let end = this.#buffer.indexOf(0); end !== -1; end = this.#buffer.indexOf(0)) {
      const text = this.#buffer.subarray(0, end).toString("utf8");
      this.#buffer = this.#buffer.subarray(end + 1);
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(text) as Record<string, unknown>;
      } catch {
        continue;
      }
      this.#dispatch(message);
    }
  }

  #dispatch(message: Record<string, unknown>): void {
    if (typeof message["id"] === "number") {
      const p = this.#pending.get(message["id"]);
      if (p === undefined) return;
      this.#pending.delete(message["id"]);
      const error = message["error"] as { message?: string; data?: string } | undefined;
      if (error !== undefined) p.reject(new Error(`${p.method}: ${error.message ?? "error"}${error.data ? ` (${error.data})` : ""}`));
      else p.resolve((message["result"] as Record<string, unknown> | undefined) ?? {});
      return;
    }
    const page = typeof message["sessionId"] === "string" ? this.#pages.get(message["sessionId"]) : undefined;
    if (page === undefined) return;
    const params = (message["params"] ?? {}) as Record<string, any>;
    switch (message["method"]) {
      case "Runtime.consoleAPICalled":
        page.logs.push({ source: `console.${params["type"]}`, text: (params["args"] ?? []).map((a: any) => a.value ?? a.description ?? "").join(" ") });
        break;
      case "Runtime.exceptionThrown":
        page.logs.push({ source: "exception", text: params["exceptionDetails"]?.exception?.description ?? params["exceptionDetails"]?.text ?? "" });
        break;
      case "Log.entryAdded":
        page.logs.push({ source: `log.${params["entry"]?.source}.${params["entry"]?.level}`, text: String(params["entry"]?.text ?? "") });
        break;
      default:
        break;
    }
  }
}

/** Runs `fn` with a fresh browser that is always closed (process killed, profile removed) afterwards. */
export async function withBrowser<T>(chromium: string, fn: (browser: CdpBrowser) => Promise<T>, options: BrowserOptions = {}): Promise<T> {
  const browser = await CdpBrowser.launch(chromium, options);
  try {
    return await fn(browser);
  } finally {
    await browser.close();
  }
}
