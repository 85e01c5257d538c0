// Negotiated replies: JSON or TOON, decided by the request's Accept header, with token-count
// headers. A handler cannot see the request, so the work is split in two:
// - `negotiated(value)` builds a JSON reply marked as negotiable. On its own it is plain JSON.
// - the `negotiation()` layer (global, or on one route) picks the format from `Accept` and
//   rewrites negotiable replies: TOON body and content type, `Vary: Accept`, token headers, or
//   406 when the client accepts neither format.
// A route declared with `config: { negotiated: true }` makes every successful JSON reply of the
// route negotiable (a handler can simply return its value), answers 406 before the handler runs,
// and is what the OpenAPI generator reads to list both media types (`isNegotiatedRoute`).
import { ApiError, type Context, type HeaderValue, type Layer, type MatchedRoute, Reply, type RouteMeta } from "../index.js";
import { isJsonMediaType, JSON_TYPE } from "../plugin.js";
import { negotiateFormat, type FormatChoice } from "./negotiate.js";
import { isNegotiatedRoute, NEGOTIATED_MEDIA_TYPES } from "../shared/negotiated-route.js";
import { estimateTokens } from "./tokens.js";

export { isNegotiatedRoute, NEGOTIATED_MEDIA_TYPES };
import { encodeToon, type ToonEncodeOptions } from "./codec/index.js";

export const TOKEN_COUNT_JSON_HEADER = "x-token-count-json";
export const TOKEN_COUNT_TOON_HEADER = "x-token-count-toon";
export const TOKEN_SAVINGS_HEADER = "x-token-savings";
export const FORMAT_USED_HEADER = "x-format-used";


/** A JSON reply that a `negotiation()` layer may re-encode as TOON. */
export class NegotiatedReply extends Reply {}

export interface NegotiatedReplyOptions {
  /** Default 200. */
  status?: number;
  headers?: Record<string, HeaderValue>;
}

/**
 * A reply in the client's preferred format: TOON when the request's Accept asks for it (and a
 * `negotiation()` layer runs), JSON otherwise. Without the layer it is an ordinary JSON reply.
 *
 * @example
 * ```ts
 * route.get("/todos", [], () => negotiated(todos, { status: 200 }));
 * ```
 * @see docs/features/toon.md
 */
export function negotiated(value: unknown, options: NegotiatedReplyOptions = {}): NegotiatedReply {
  const body = value === undefined ? null : (JSON.stringify(value) as string | undefined) ?? null;
  const r = new NegotiatedReply(options.status ?? 200, body, options.headers);
  r.value = value;
  if (body !== null && r.headers["content-type"] === undefined) r.headers["content-type"] = JSON_TYPE;
  return r;
}


export interface NegotiationOptions {
  /** Answer JSON instead of 406 when the client accepts neither JSON nor TOON. Default false. */
  fallbackToJson?: boolean;
  /**
   * Token headers: x-format-used (`json` | `toon`) plus the estimates x-token-count-json,
   * x-token-count-toon and x-token-savings (integer percent, `round((json - toon) / json * 100)`,
   * negative when TOON is larger; estimator: lib/formats/tokens.ts).
   * - true (default): on every negotiated reply. A JSON answer then also costs one TOON encoding
   *   and two estimates (measured: 5-8x the cost of its JSON.stringify on a 100-row list), only to count.
   * - "toon": the counts only on TOON answers (where both encodings exist anyway); JSON answers
   *   carry x-format-used alone and cost nothing extra.
   * - false: none of these headers.
   */
  tokenHeaders?: boolean | "toon";
  /** TOON encoder options (delimiter, indentSize). */
  toon?: ToonEncodeOptions;
}

interface NegotiationSettings {
  readonly fallbackToJson: boolean;
  readonly tokenHeaders: boolean | "toon";
  readonly toon: ToonEncodeOptions | undefined;
}

/** Replies already negotiated (so an outer negotiation layer leaves them alone). */
const settled = new WeakSet<Reply>();
/** Every layer made by negotiation(), to spot a route that carries its own. */
const negotiationLayers = new WeakSet<Layer>();
/** Per route: does its own `layers` list hold a negotiation layer? */
const routeHasOwnLayer = new WeakMap<MatchedRoute["meta"], boolean>();

function hasOwnNegotiationLayer(meta: MatchedRoute["meta"]): boolean {
  let known = routeHasOwnLayer.get(meta);
  if (known === undefined) {
    known = (meta.layers ?? []).some((l) => negotiationLayers.has(l as Layer));
    routeHasOwnLayer.set(meta, known);
  }
  return known;
}

function notAcceptable(): ApiError {
  return new ApiError(406, "not_acceptable", "None of the available media types is acceptable: application/json, application/toon, text/toon", {
    headers: { vary: "Accept" },
  });
}

function addVaryAccept(reply: Reply): void {
  const prev = reply.headers["vary"];
  if (prev !== undefined) {
    const values = Array.isArray(prev) ? (prev as readonly string[]) : [String(prev)];
    for (const v of values) {
      for (const part of v.split(",")) {
        const token = part.trim().toLowerCase();
        if (token === "accept" || token === "*") return;
      }
    }
  }
  reply.appendHeader("vary", "Accept");
}

/** Should this reply be negotiated? `routeFlagged`: the route declares `config.negotiated`. */
function isNegotiable(reply: Reply, routeFlagged: boolean): boolean {
  if (settled.has(reply) || !reply.hasValue || typeof reply.body !== "string") return false;
  if (reply instanceof NegotiatedReply) return true;
  const type = reply.headers["content-type"];
  return routeFlagged && reply.error === null && reply.status >= 200 && reply.status < 300 && typeof type === "string" && isJsonMediaType(type);
}

/**
 * Rewrite a negotiable reply for `choice` (null: the client accepts neither format). Throws the
 * 406 ApiError, or a 500 when a value cannot be written as TOON.
 */
function applyChoice(reply: Reply, choice: FormatChoice | null, settings: NegotiationSettings): Reply {
  if (choice === null) {
    if (!settings.fallbackToJson) throw notAcceptable();
  }
  const toonWanted = choice !== null && choice.format === "toon";
  const jsonText = reply.body as string;
  const counts = settings.tokenHeaders === true || (toonWanted && settings.tokenHeaders === "toon");
  let toonText: string | undefined;
  if (toonWanted || counts) {
    try {
      toonText = encodeToon(reply.value, settings.toon);
    } catch (err) {
      if (toonWanted) throw ApiError.internal("Internal server error", { detail: `TOON encoding failed: ${(err as Error).message}`, cause: err });
    }
  }
  const h = reply.headers;
  if (toonWanted && toonText !== undefined) {
    reply.body = toonText;
    h["content-type"] = choice.mediaType + "; charset=utf-8";
    delete h["content-length"];
    // A validator of the JSON bytes would be wrong for this representation.
    delete h["etag"];
  }
  addVaryAccept(reply);
  if (settings.tokenHeaders !== false) {
    h[FORMAT_USED_HEADER] = toonWanted ? "toon" : "json";
    if (counts && toonText !== undefined) {
      const jsonTokens = estimateTokens(jsonText);
      const toonTokens = estimateTokens(toonText);
      h[TOKEN_COUNT_JSON_HEADER] = String(jsonTokens);
      h[TOKEN_COUNT_TOON_HEADER] = String(toonTokens);
      h[TOKEN_SAVINGS_HEADER] = String(jsonTokens === 0 ? 0 : Math.round(((jsonTokens - toonTokens) / jsonTokens) * 100));
    }
  }
  settled.add(reply);
  return reply;
}

function resolveSettings(options: NegotiationOptions): NegotiationSettings {
  const settings: NegotiationSettings = {
    fallbackToJson: options.fallbackToJson === true,
    tokenHeaders: options.tokenHeaders === undefined ? true : options.tokenHeaders,
    toon: options.toon,
  };
  const th: unknown = settings.tokenHeaders;
  if (th !== true && th !== false && th !== "toon") throw new TypeError(`negotiation: tokenHeaders must be true, false or "toon", got ${String(th)}`);
  // Bad encoder options fail here, at startup, not on the first TOON request.
  if (settings.toon !== undefined) encodeToon(null, settings.toon);
  return settings;
}

/**
 * Negotiate one reply against a request by hand (for custom layers): a negotiable reply is
 * rewritten as above; anything else is returned unchanged.
 */
export function negotiateReply(ctx: Context, reply: Reply, options: NegotiationOptions = {}): Reply {
  const settings = resolveSettings(options);
  if (!isNegotiable(reply, isNegotiatedRoute(ctx.route?.meta))) return reply;
  return applyChoice(reply, negotiateFormat(ctx.header("accept")), settings);
}

/**
 * The content-negotiation layer. Install it once (`app.layer(negotiation())`) or per route
 * (`layers: [negotiation({ tokenHeaders: false })]`; a route's own negotiation layer takes
 * precedence over a global one).
 * - Negotiates `negotiated(value)` replies and, on routes with `config: { negotiated: true }`,
 *   every 2xx JSON reply made from a value (`return users`, `created(user)`).
 * - TOON when Accept prefers it (see negotiateFormat), JSON otherwise; `Vary: Accept` always.
 * - A client accepting neither gets 406 `not_acceptable` (on a flagged route before the handler
 *   runs), or JSON with `fallbackToJson: true`. Error replies are never rewritten (always JSON).
 *
 * @example
 * ```ts
 * app.layer(negotiation({ tokenHeaders: "toon" }));
 * route.get("/todos", [], () => negotiated(todos)); // TOON for `Accept: application/toon`
 * ```
 * @see docs/features/toon.md
 */
export function negotiation(options: NegotiationOptions = {}): Layer {
  const settings = resolveSettings(options);
  const layer: Layer = (ctx, next) => {
    const meta = ctx.route?.meta;
    if (meta === undefined) return next(ctx);
    // A route-level negotiation layer (inside this one) decides for its route.
    if (meta.layers !== undefined && !meta.layers.includes(layer) && hasOwnNegotiationLayer(meta)) return next(ctx);
    if (isNegotiatedRoute(meta)) {
      const choice = negotiateFormat(ctx.header("accept"));
      if (choice === null && !settings.fallbackToJson) throw notAcceptable();
      return next(ctx).then((reply) => (isNegotiable(reply, true) ? applyChoice(reply, choice, settings) : reply));
    }
    return next(ctx).then((reply) => (isNegotiable(reply, false) ? applyChoice(reply, negotiateFormat(ctx.header("accept")), settings) : reply));
  };
  negotiationLayers.add(layer);
  return layer;
}
