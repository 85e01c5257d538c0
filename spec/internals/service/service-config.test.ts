// Flags and environment of the sample service: precedence, defaults, --help, exit code 2.
import assert from "node:assert/strict";
import { availableParallelism } from "node:os";
import { after, describe, it } from "node:test";
import { CliUsageError, parseCli, integerIn } from "../../../lib/service/cli/cli-options.js";
import { loadServiceConfig, parseServiceConfig, resolveWorkerCount, serviceHelp, type ServiceConfig } from "../../../lib/service/cli/service-config.js";
import { defaultMaxConnections, openFileLimit } from "../../../lib/service/cli/fd-limit.js";
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
      preStopDelayMs: 0,
      limits: {
        headersTimeout: 10_000,
        requestTimeout: 30_000,
        keepAliveTimeout: 5_000,
        maxHeaderSize: 16_384,
        maxRequestsPerSocket: 0,
        maxConnections: defaultMaxConnections(openFileLimit()),
      },
      settings: {},
    });
  });

  it("reads the connection limits and the pre-stop delay from flags and variables", () => {
    const env = { HEADERS_TIMEOUT_MS: "2000", REQUEST_TIMEOUT_MS: "8000", KEEP_ALIVE_TIMEOUT_MS: "1000", MAX_HEADER_SIZE: "8192", MAX_REQUESTS_PER_SOCKET: "500", MAX_CONNECTIONS: "500", PRE_STOP_DELAY_MS: "3000" };
    const c = parse(["--max-connections", "700"], env);
    assert.deepEqual(c.limits, { headersTimeout: 2000, requestTimeout: 8000, keepAliveTimeout: 1000, maxHeaderSize: 8192, maxRequestsPerSocket: 500, maxConnections: 700 });
    assert.equal(c.preStopDelayMs, 3000);
    assert.throws(() => parse([], { MAX_HEADER_SIZE: "10" }), /MAX_HEADER_SIZE: expected an integer from 1024/);
    assert.throws(() => parse(["--headers-timeout", "9000", "--request-timeout", "3000"], {}), /must not exceed the request timeout/);
  });

  it("derives the default connection cap from the open-file limit", () => {
    const limits = (n: string): string => `Limit                     Soft Limit           Hard Limit           Units\nMax open files            ${n}                 4096                 files\n`;
    assert.equal(openFileLimit(limits("1024")), 1024);
    assert.equal(defaultMaxConnections(openFileLimit(limits("1024"))), Math.floor((1024 - 128) * 0.9));
    assert.equal(openFileLimit(limits("unlimited")), undefined);
    assert.equal(defaultMaxConnections(undefined), 0);
    assert.equal(defaultMaxConnections(100), 16);
  });

  it("reads environment variables, and flags win over them", () => {
    const env = { HOST: "0.0.0.0", PORT: "3000", KEEL_ENV: "production", WORKERS: "4", LOG_LEVEL: "warn", SHUTDOWN_TIMEOUT_MS: "2500", TRUST_REQUEST_ID: "false" };
    const fromEnv = parse([], env);
    assert.deepEqual({ ...fromEnv, limits: undefined, preStopDelayMs: undefined }, { host: "0.0.0.0", port: 3000, env: "production", workers: 4, logLevel: 40, shutdownTimeoutMs: 2500, trustRequestId: false, settings: {}, limits: undefined, preStopDelayMs: undefined });
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

  it("help lists the variables a service reads without a flag; one that is also a setting's is refused", () => {
    const text = serviceHelp("svc", "A service.", {}, { OTEL_SERVICE_NAME: "service.name of the spans", EXTRA_VAR: "something else" });
    const section = text.slice(text.indexOf("Environment variables without a flag:"));
    assert.match(section, /^ {2}OTEL_SERVICE_NAME {2,}service\.name of the spans$/m);
    assert.match(section, /^ {2}EXTRA_VAR {2,}something else$/m);
    assert.doesNotMatch(serviceHelp("svc"), /without a flag/, "no section when there are none");
    assert.throws(() => serviceHelp("svc", "A service.", {}, { PORT: "twice" }), /PORT is also a setting's variable/);
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

describe("parseCli: what a bad value's message shows", () => {
  const spec = {
    secret: { flag: "secret", env: "APP_SECRET", value: "S", description: "", secret: true, parse: (raw: string) => { if (raw.length < 32) throw new Error("expected at least 32 bytes"); return raw; } },
    url: { flag: "url", env: "APP_URL", value: "URL", description: "", parse: (raw: string) => { if (!raw.startsWith("postgres://")) throw new Error("expected postgres://"); return raw; } },
  };
  const messageOf = (env: Record<string, string>): string => {
    try {
      parseCli(spec, [], env);
    } catch (err) {
      return (err as Error).message;
    }
    return "";
  };

  it("never the value of a secret option, only its length", () => {
    const message = messageOf({ APP_SECRET: "hunter2-short" });
    assert.equal(message, "APP_SECRET: expected at least 32 bytes, got a value of 13 bytes");
  });

  it("a URL without its credentials", () => {
    const message = messageOf({ APP_URL: "mysql://admin:s3cr%40t@db.internal:3306/app" });
    assert.equal(message, 'APP_URL: expected postgres://, got "mysql://***@db.internal:3306/app"');
    assert.doesNotMatch(message, /s3cr|admin/);
    // An unencoded `/` or `@` in the password: everything up to the last `@` is hidden.
    const slashed = messageOf({ APP_URL: "mysql://admin:pa/ss@w@db.internal/app" });
    assert.equal(slashed, 'APP_URL: expected postgres://, got "mysql://***@db.internal/app"');
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
