// `keel routes`: the app's route table as text. A first line names the app's global layers
// (outermost first: they wrap every route), then one row per route: method, path, the route's
// own layers (a group's included), and the statuses it declares. Layers are plain functions: a row shows each one's function name ("anonymous" when
// it has none), which is what a stack trace would show too.
import type { Layer, RouteDefinition } from "../index.js";
import type { LoadedApp } from "./load-app.js";

export interface RouteRow {
  method: string;
  path: string;
  layers: string[];
  responses: string[];
  hidden: boolean;
}

function layerName(layer: Layer): string {
  return layer.name === "" ? "anonymous" : layer.name;
}

export function globalLayerNames(app: LoadedApp): string[] {
  return app.layerTable().map(layerName);
}

export function routeRows(app: LoadedApp): RouteRow[] {
  return app.routeTable().map((def: RouteDefinition) => ({
    method: def.meta.websocket !== undefined ? "WS" : def.method,
    path: def.path,
    layers: (def.meta.layers ?? []).map(layerName),
    responses: Object.keys(def.meta.responses ?? {}),
    hidden: def.meta.hidden === true,
  }));
}

/** Columns padded to the widest cell; a route with nothing declared shows "-". */
export function formatRouteTable(globalLayers: readonly string[], rows: readonly RouteRow[]): string {
  const cells = rows.map((r) => [r.method, r.path + (r.hidden ? " (hidden)" : ""), r.layers.join(", ") || "-", r.responses.join(", ") || "-"]);
  const header = ["METHOD", "PATH", "LAYERS", "RESPONSES"];
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] as string).length)));
  const line = (c: readonly string[]): string => c.map((cell, i) => (i === c.length - 1 ? cell : cell.padEnd(widths[i] as number))).join("  ");
  const first = `global layers (every route, outermost first): ${globalLayers.join(", ") || "none"}`;
  return [first, line(header), ...cells.map(line)].join("\n") + "\n";
}
