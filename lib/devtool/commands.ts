// `keel <command>`: the developer's tool (new, dev, routes, openapi, client, doctor). Not to be
// confused with lib/service/cli, the flags of a running service (`node dist/server.js --port`).
// Exit codes: 0 done, 1 a problem found (doctor) or the command failed, 2 a usage mistake.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { OpenApiDocument } from "../openapi/index.js";
import { appDocument } from "./app-document.js";
import { parseArgs, UsageError, type ParsedArgs } from "./args.js";
import { generateClient } from "./client-gen.js";
import { runDev } from "./dev.js";
import { runDoctor } from "./doctor.js";
import type { CommandIo } from "./io.js";
import { loadApp } from "./load-app.js";
import { runNew } from "./new-project.js";
import { formatRouteTable, globalLayerNames, routeRows } from "./route-table.js";
import { toolHome, type ToolHome } from "./tool-home.js";

export const USAGE = `usage: keel <command> [options]

  new <dir> [--kernel <keel.js>]      a starter project in <dir> (new or empty): vendored keel,
                                      an app with a test; npm test and npm start work with node
  dev [entry] [--watch <dir,...>] [--poll]
                                      run entry (package.json main, else server.js) with node
                                      and restart it when a file under the folders changes
  routes [--app <module>]             the route table: method, path, layers, responses
  openapi [--app <module>] [--out <file>]
                                      the OpenAPI document (stdout without --out)
  client (--openapi <file> | --app <module>) --out <file>
                                      a typed TypeScript client (fetch only) for the document
  doctor [--dist <dir>] [--known <NAME,...>]
                                      Node version, what is built, configuration problems
                                      (exit 1 when there is one)

--app <module>: a module exporting createApp() (may be async), app, or a default App or
function; default ./app.js. Exit codes: 0 done, 1 failed or a problem found, 2 usage.
`;

type Command = (args: ParsedArgs, io: CommandIo, home: ToolHome) => number | Promise<number>;

interface CommandSpec {
  valued: readonly string[];
  booleans?: readonly string[];
  /** Positionals allowed: [min, max]. */
  positionals: readonly [number, number];
  run: Command;
}

function write(io: CommandIo, out: string | undefined, text: string, what: string): void {
  if (out === undefined) {
    io.stdout(text);
    return;
  }
  const file = resolve(io.cwd, out);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  io.stderr(`wrote ${what} to ${file}\n`);
}

async function documentFrom(args: ParsedArgs, io: CommandIo): Promise<OpenApiDocument> {
  const file = args.values.get("openapi");
  if (file !== undefined) return JSON.parse(readFileSync(resolve(io.cwd, file), "utf8")) as OpenApiDocument;
  return appDocument(await loadApp(args.values.get("app"), io.cwd));
}

const COMMANDS: Readonly<Record<string, CommandSpec>> = {
  new: { valued: ["kernel"], positionals: [1, 1], run: (a, io, home) => runNew(io, home, a.positionals[0] as string, a.values.get("kernel")) },
  dev: {
    valued: ["watch"],
    booleans: ["poll"],
    positionals: [0, 1],
    run: (a, io) => {
      const watch = a.values.get("watch");
      return runDev(io, {
        ...(a.positionals[0] === undefined ? {} : { entry: a.positionals[0] }),
        ...(watch === undefined ? {} : { watch: watch.split(",").filter((d) => d !== "") }),
        poll: a.switches.has("poll"),
      });
    },
  },
  routes: {
    valued: ["app"],
    positionals: [0, 0],
    run: async (a, io) => {
      const app = await loadApp(a.values.get("app"), io.cwd);
      io.stdout(formatRouteTable(globalLayerNames(app), routeRows(app)));
      return 0;
    },
  },
  openapi: {
    valued: ["app", "out"],
    positionals: [0, 0],
    run: async (a, io) => {
      const doc = await appDocument(await loadApp(a.values.get("app"), io.cwd));
      write(io, a.values.get("out"), JSON.stringify(doc, null, 2) + "\n", "the OpenAPI document");
      return 0;
    },
  },
  client: {
    valued: ["app", "openapi", "out"],
    positionals: [0, 0],
    run: async (a, io) => {
      const out = a.values.get("out");
      if (out === undefined) throw new UsageError("client needs --out <file.ts>");
      if (a.values.has("app") && a.values.has("openapi")) throw new UsageError("client reads --openapi or --app, not both");
      write(io, out, generateClient(await documentFrom(a, io)), "the client");
      return 0;
    },
  },
  doctor: {
    valued: ["dist", "known"],
    positionals: [0, 0],
    run: (a, io, home) => {
      const dist = a.values.get("dist");
      const known = a.values.get("known")?.split(",").map((n) => n.trim()).filter((n) => n !== "") ?? [];
      return runDoctor(io, home, { ...(dist === undefined ? {} : { dist: resolve(io.cwd, dist) }), known });
    },
  },
};

/** Runs `keel ...argv`; resolves with the exit code. */
export async function runKeel(argv: readonly string[], io: CommandIo, home: ToolHome = toolHome()): Promise<number> {
  const [name, ...rest] = argv;
  const spec = name === undefined ? undefined : Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (spec === undefined || rest.includes("--help") || rest.includes("-h")) {
    if (name !== undefined && spec === undefined && name !== "--help" && name !== "-h" && name !== "help") io.stderr(`keel: unknown command ${name}\n`);
    io.stderr(USAGE);
    return 2;
  }
  try {
    const args = parseArgs(rest, spec.valued, spec.booleans);
    const [min, max] = spec.positionals;
    if (args.positionals.length < min || args.positionals.length > max) throw new UsageError(`${name} takes ${min === max ? min : `${min} to ${max}`} argument${max === 1 ? "" : "s"}, got ${args.positionals.length}`);
    return await spec.run(args, io, home);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`keel ${name}: ${err.message}\n\n${USAGE}`);
      return 2;
    }
    io.stderr(`keel ${name}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return 1;
  }
}
