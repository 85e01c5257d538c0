// Flags and environment of the sample service: precedence, defaults, --help, exit code 2.
import assert from "node:assert/strict";
import { availableParallelism } from "node:os";
import { after, describe, it } from "node:test";
import { CliUsageError, parseCli, integerIn } from "../../../lib/service/cli/cli-options.js";
import { loadServiceConfig, parseServiceConfig, resolveWorkerCount, serviceHelp, type ServiceConfig } from "../../../lib/service/cli/service-config.js";
import { startService, type RunningService } from "../../service/fixtures/spawn-service.js";

const started: RunningService[] = [];
after(() => {
  for (const s of started) s.kill("SIGKILL");
});

function parse(argv: string[], env: Record<string, string> = {}): ServiceConfig {
  const c = parseServiceConfig(argv, env);
  assert.notEqual(c, "help");
  return c as ServiceConfig;
}

function usageError(argv: string[], env: Record<string, string> = {}): string {
  try {
    parseServiceConfig(argv, env);
  } catch (e) {
    assert.ok(e instanceof CliUsageError);
    assert.equal(e.exitCode, 2);
    return e.message;
  }
  assert.fail("expected a usage error");
}

describe("parseServiceConfig", () => {
  it("has defaults", () => {
    assert.deepEqual(parse([]), {
      host: "127.0.0.1",
      port: 8080,
      env: "development",
      workers: null,
      logLevel: 30,
      shutdownTimeoutMs: 10_000,
      trustRequestId: true,
      settings: {},
    });
  });

  it("reads environment variables, and flags win over them", () => {
    const env = { HOST: "0.0.0.0", PORT: "3000", KEEL_ENV: "production", WORKERS: "4", LOG_LEVEL: "warn", SHUTDOWN_TIMEOUT_MS: "2500", TRUST_REQUEST_ID: "false" };
    assert.deepEqual(parse([], env), { host: "0.0.0.0", port: 3000, env: "production", workers: 4, logLevel: 40, shutdownTimeoutMs: 2500, trustRequestId: false, settings: {} });
    const c = parse(["--port", "9000", "--workers=0", "--log-level", "debug", "--host", "[::1]", "--trust-request-id", "yes"], env);
    assert.equal(c.port, 9000);
    assert.equal(c.workers, 0);
    assert.equal(c.logLevel, 20);
    assert.equal(c.host, "::1");
    assert.equal(c.trustRequestId, true);
    assert.equal(c.env, "production", "unset flags fall back to the environment");
  });

  it("validates KEEL_ENV: a typo is a usage error listing the allowed values, never a half-applied production", () => {
    assert.match(usageError([], { KEEL_ENV: "producton" }), /^KEEL_ENV: expected one of development, dev, test, production, prod, got "producton"$/);
    assert.equal(parse([], { KEEL_ENV: "PROD" }).env, "prod");
  });

  it("treats empty environment variables as unset", () => {
    assert.equal(parse([], { PORT: "" }).port, 8080);
  });

  it("rejects bad values with a message naming the flag or variable and the expectation", () => {
    assert.match(usageError([], { PORT: "eighty" }), /^PORT: expected an integer from 0 to 65535, got "eighty"$/);
    assert.match(usageError(["--port", "70000"]), /^--port: expected an integer from 0 to 65535, got "70000"$/);
    assert.match(usageError(["--port", "-1"]), /--port needs a value|--port: expected/);
    assert.match(usageError([], { WORKERS: "two" }), /^WORKERS: expected an integer/);
    assert.match(usageError([], { WORKERS: "1.5" }), /^WORKERS: /);
    assert.match(usageError([], { LOG_LEVEL: "loud" }), /^LOG_LEVEL: expected trace, debug, info, warn, error, fatal or silent, got "loud"$/);
    assert.match(usageError(["--host", "bad host!"]), /^--host: expected a host name or IP address/);
    assert.match(usageError(["--trust-request-id", "maybe"]), /expected true or false/);
    assert.match(usageError(["--nope"]), /^unknown option --nope \(see --help\)$/);
    assert.match(usageError(["serve"]), /^unexpected argument "serve"/);
    assert.match(usageError(["--port"]), /^--port needs a value \(N\)$/);
    assert.match(usageError(["--port", "1", "--port", "2"]), /more than once/);
  });

  it("--help and -h ask for help", () => {
    assert.equal(parseServiceConfig(["--help"], {}), "help");
    assert.equal(parseServiceConfig(["-h", "--port", "bad"], {}), "help");
  });

  it("help lists every flag with its environment variable", () => {
    const text = serviceHelp("node dist/server.js");
    assert.match(text, /^Usage: node dist\/server\.js \[options\]/);
    for (const [flag, env] of [
      ["--host", "HOST"],
      ["--port", "PORT"],
      ["--env", "KEEL_ENV"],
      ["--workers", "WORKERS"],
      ["--log-level", "LOG_LEVEL"],
      ["--shutdown-timeout", "SHUTDOWN_TIMEOUT_MS"],
      ["--trust-request-id", "TRUST_REQUEST_ID"],
    ] as const) {
      const line = text.split("\n").find((l) => l.trimStart().startsWith(flag + " "));
      assert.ok(line, `${flag} listed`);
      assert.ok(line.includes(`env ${env}`), `${flag} names ${env}`);
    }
    assert.match(text, /--help/);
  });

  it("WORKERS=0 means one worker per CPU", () => {
    assert.equal(resolveWorkerCount(0), availableParallelism());
    assert.equal(resolveWorkerCount(3), 3);
  });

  it("loadServiceConfig prints help (exit 0) or the problem (exit 2)", () => {
    const out: string[] = [];
    const err: string[] = [];
    const exit = (code: number): never => {
      throw Object.assign(new Error("exit"), { code });
    };
    const io = { stdout: (s: string) => void out.push(s), stderr: (s: string) => void err.push(s), exit };
    assert.throws(() => loadServiceConfig(["--help"], {}, "svc", io), (e: { code?: number }) => e.code === 0);
    assert.match(out.join(""), /^Usage: svc/);
    assert.throws(() => loadServiceConfig([], { PORT: "x" }, "svc", io), (e: { code?: number }) => e.code === 2);
    assert.equal(err.join(""), 'svc: PORT: expected an integer from 0 to 65535, got "x"\n');
    assert.equal(loadServiceConfig(["--port", "1234"], {}, "svc", io).port, 1234);
  });
});

describe("parseCli", () => {
  it("switches without a value read as true; integer parsing is strict", () => {
    const spec = { verbose: { flag: "verbose", value: "", description: "", parse: (raw: string) => raw === "true" }, n: { flag: "n", value: "N", description: "", parse: integerIn(1, 5) } };
    assert.deepEqual(parseCli(spec, ["--verbose"], {}).values, { verbose: true, n: undefined });
    assert.throws(() => parseCli(spec, ["--n", "0x3"], {}), CliUsageError);
    assert.throws(() => parseCli(spec, ["--n", "6"], {}), CliUsageError);
  });
});

describe("the service binary", () => {
  it("--help prints the flags and exits 0; a bad value prints a clear message and exits 2", async () => {
    const help = startService(["--help"]);
    const bad = startService(["--port", "0"], { LOG_LEVEL: "chatty" });
    started.push(help, bad);
    assert.equal(await help.exited, 0);
    assert.match(help.raw.join("\n"), /Usage: fixture-server \[options\]/);
    assert.match(help.raw.join("\n"), /--workers N/);
    assert.equal(await bad.exited, 2);
    assert.equal(bad.stderr(), 'fixture-server: LOG_LEVEL: expected trace, debug, info, warn, error, fatal or silent, got "chatty"\n');
    assert.equal(bad.raw.length, 0, "nothing on stdout");
  });
});
