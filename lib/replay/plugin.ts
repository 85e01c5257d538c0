// `app.register(replay({...}))`: the recording layer (a global layer, at the position of the
// registration: register it after production()/request-id so records carry the request id, and
// inside compression so bodies are recorded as the handler made them) plus the admin routes.
import type { App } from "../index.js";
import { adminAccessLayers, type AdminAccessOptions } from "../shared/admin-access.js";
import { adminRoutes, DEFAULT_ADMIN_PATH, normalizeAdminPath } from "./admin-routes.js";
import { MemoryReplayStore } from "./memory-store.js";
import { DEFAULT_MAX_REQUEST_BODY, DEFAULT_MAX_RESPONSE_BODY, recorderLayer } from "./recorder.js";
import { secretFieldSet, secretHeaderSet } from "./redaction.js";
import type { ReplayRouteFilter } from "./route-filter.js";
import type { ReplayStore } from "./store.js";

export interface ReplayOptions extends AdminAccessOptions {
  /** Record requests (default true). False keeps only the admin routes over an existing store. */
  enabled?: boolean;
  /** Fraction of matching requests recorded, 0..1 (default 1). */
  sampleRate?: number;
  /** Which routes are recorded (default all routed requests). See ReplayRouteFilter. */
  routes?: ReplayRouteFilter;
  /** Request body bytes kept (default 64 KiB); longer bodies are cut and flagged `body_truncated`. */
  maxRequestBody?: number;
  /** Response body bytes kept (default 256 KiB). */
  maxResponseBody?: number;
  /** Header names redacted besides authorization, cookie, set-cookie, proxy-authorization, x-api-key, x-auth-token, x-csrf-token. */
  redactHeaders?: readonly string[];
  /** JSON and form field names redacted at any depth (case-insensitive). */
  redactFields?: readonly string[];
  /** Where records go (default a MemoryReplayStore of 500). */
  store?: ReplayStore;
  /** Admin routes' base path (default `/admin/replays`); registered only with admin access configured. */
  adminPath?: string;
  /** Random source in [0, 1) for sampling (default Math.random); for tests. */
  random?: () => number;
}

/** The plugin, with the store it records into (for the CLI and tests). */
export type ReplayPlugin = ((app: App) => void) & { readonly store: ReplayStore };

function byteCap(value: number | undefined, fallback: number, name: string): number {
  const v = value ?? fallback;
  if (!Number.isSafeInteger(v) || v < 0) throw new TypeError(`replay: ${name} must be a non-negative integer`);
  return v;
}

export function replay(options: ReplayOptions = {}): ReplayPlugin {
  const sampleRate = options.sampleRate ?? 1;
  if (typeof sampleRate !== "number" || !(sampleRate >= 0 && sampleRate <= 1)) throw new TypeError("replay: sampleRate must be between 0 and 1");
  const store = options.store ?? new MemoryReplayStore();
  const adminPath = normalizeAdminPath(options.adminPath ?? DEFAULT_ADMIN_PATH);
  const access = adminAccessLayers(options, "replay");
  const layer =
    options.enabled === false
      ? null
      : recorderLayer({
          store,
          sampleRate,
          routes: options.routes,
          maxRequestBody: byteCap(options.maxRequestBody, DEFAULT_MAX_REQUEST_BODY, "maxRequestBody"),
          maxResponseBody: byteCap(options.maxResponseBody, DEFAULT_MAX_RESPONSE_BODY, "maxResponseBody"),
          secretHeaders: secretHeaderSet(options.redactHeaders),
          secretFields: secretFieldSet(options.redactFields),
          excludePrefix: adminPath,
          random: options.random ?? Math.random,
        });
  const plugin = (app: App): void => {
    if (layer !== null) app.layer(layer);
    if (access !== null) app.routes(adminRoutes(store, adminPath, access));
  };
  return Object.assign(plugin, { store });
}
