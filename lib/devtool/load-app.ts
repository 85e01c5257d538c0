// `--app <module>`: how `keel routes|openapi|client` find an app. The module exports, in the order
// looked for: `createApp()` (called with no arguments, may return a promise), `app` (an App), or a
// default export that is either. Creating an app starts nothing in keel (listen does), so loading
// one to read its routes opens no port. Without --app: ./app.js, the starter's module.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { App } from "../index.js";
import { UsageError } from "./args.js";

const DEFAULT_APP_MODULE = "app.js";

/** What the commands read of an app: its routes, its global layers (and its runtime, for OpenAPI). */
export type LoadedApp = Pick<App, "routeTable" | "layerTable" | "runtime">;

function isApp(value: unknown): value is LoadedApp {
  return typeof value === "object" && value !== null && typeof (value as { routeTable?: unknown }).routeTable === "function" && typeof (value as { layerTable?: unknown }).layerTable === "function";
}

async function fromExport(value: unknown): Promise<LoadedApp | undefined> {
  if (isApp(value)) return value;
  if (typeof value === "function") {
    const made: unknown = await (value as () => unknown)();
    if (isApp(made)) return made;
  }
  return undefined;
}

export async function loadApp(modulePath: string | undefined, cwd: string): Promise<LoadedApp> {
  const file = resolve(cwd, modulePath ?? DEFAULT_APP_MODULE);
  if (!existsSync(file)) {
    throw new UsageError(modulePath === undefined ? `no ${DEFAULT_APP_MODULE} here: name the app's module with --app <file>` : `--app ${modulePath}: no such file`);
  }
  const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  for (const name of ["createApp", "app", "default"]) {
    if (!(name in mod)) continue;
    const app = await fromExport(mod[name]);
    if (app !== undefined) return app;
    throw new UsageError(`${file}: export ${name} is not an App (or a function giving one)`);
  }
  throw new UsageError(`${file} exports no createApp(), app or default App`);
}
