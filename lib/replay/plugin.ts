// `app.register(replay({...}))`: the recording layer (a global layer, at the position of the
// registration: register it after production()/request-id so records carry the request id, and
// inside compression so bodies are recorded as the handler made them) plus the admin routes.
import type { App } from "../index.js";
import { adminAccessLayers, type AdminAccessOptions } from "../shared/admin-access.js";
import { adminRoutes, DEFAULT_ADMIN_PATH, normalizeAdminPath } from "./admin-routes.js";
import { MemoryReplayStore } from "./memory-store.js";
import { DEFAULT_MAX_REQUEST_BODY, DEFAULT_MAX_RESPONSE_BODY, recorderLayer } from "./recorder.js";
import { nameSet, recordedHeaderSet, SecretNames, secretHeaderSet } from "./redaction.js";
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
  /**
   * Request headers recorded with their value besides the standard ones (REPLAY_RECORDED_HEADERS:
   * accept*, content-*, conditionals, user-agent, traceparent, x-request-id...). Any other request
   * header is recorded as "[redacted]" and not sent by a replay.
   */
  allowHeaders?: readonly string[];
  /** Header names never recorded (either direction) besides authorization, cookie, set-cookie, proxy-authorization, x-api-key, x-auth-token, x-csrf-token. */
  redactHeaders?: readonly string[];
  /** Query parameters whose values are recorded (case-insensitive); every other value is "[redacted]" (default none). */
  allowQuery?: readonly string[];
  /**
   * Request JSON and form fields whose string values are recorded, at any depth (case-insensitive;
   * array items take their array's name). Other strings and form values are "[redacted]"; JSON
   * numbers, booleans, null and the structure are kept (default none).
   */
  allowFields?: readonly string[];
  /**
   * Field names redacted whatever their type, in requests and responses, besides the built-in
   * secret-looking ones (REPLAY_SECRET_FIELDS and any name containing password, secret or token;
   * `_` and `-` ignored). These win over allowFields and allowQuery.
   */
  redactFields?: readonly string[];
  /**
   * Record text/* and XML request bodies as sent (default false: a placeholder with type and size,
   * since replay cannot find secrets in them). Only for apps whose text bodies hold none.
   */
  requestTextBodies?: boolean;
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

/**
 * Record a sample of routed requests with their answers (secrets redacted, request values kept
 * only where allowed) into `store`; with `adminToken` or `adminLayers`, admin routes list them.
 *
 * @example
 * app.register(replay({ sampleRate: 0.1, allowQuery: ["page"], store: new FileReplayStore({ path: "./replays.jsonl" }), adminToken }));
 * @see docs/features/replay.md
 */
export function replay(options: ReplayOptions = {}): ReplayPlugin {
  const sampleRate = options.sampleRate ?? 1;
  if (typeof sampleRate !== "number" || !(sampleRate >= 0 && sampleRate <= 1)) throw new TypeError("replay: sampleRate must be between 0 and 1");
  const store = options.store ?? new MemoryReplayStore();
  const adminPath = normalizeAdminPath(options.adminPath ?? DEFAULT_ADMIN_PATH);
  const access = adminAccessLayers(options, "replay");
  const secrets = new SecretNames(options.redactFields);
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
          recordedHeaders: recordedHeaderSet(options.allowHeaders),
          allowQuery: nameSet(options.allowQuery),
          requestFields: { allowed: nameSet(options.allowFields), secrets },
          responseFields: { allowed: null, secrets },
          requestTextBodies: options.requestTextBodies === true,
          excludePrefix: adminPath,
          random: options.random ?? Math.random,
        });
  const plugin = (app: App): void => {
    if (layer !== null) app.layer(layer);
    if (access !== null) app.routes(adminRoutes(store, adminPath, access));
  };
  return Object.assign(plugin, { store });
}
