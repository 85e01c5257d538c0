// The developer's tool (`keel`, dist/cli.js) as a module: the command runner and the pieces its
// tests and other tools reuse. Not a package entry: the tool is used as a command.
export { runKeel, USAGE } from "./commands.js";
export { UsageError } from "./args.js";
export type { CommandIo, ExitCode } from "./io.js";
export { loadApp, type LoadedApp } from "./load-app.js";
export { appDocument } from "./app-document.js";
export { formatRouteTable, globalLayerNames, routeRows, type RouteRow } from "./route-table.js";
export { generateClient } from "./client-gen.js";
export { schemaType, typeName } from "./schema-types.js";
export { configProblems, runDoctor } from "./doctor.js";
export { nodeSatisfies } from "./engines.js";
export { KNOWN_KEEL_VARIABLES } from "./known-variables.js";
export { defaultEntry, runDev, DEBOUNCE_MS, STOP_TIMEOUT_MS } from "./dev.js";
export { watchFiles } from "./file-watch.js";
export { toolHome, type ToolHome } from "./tool-home.js";
