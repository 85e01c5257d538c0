// What a layer adds to the operations it wraps in the OpenAPI document: the statuses it can
// answer with (401 from an auth layer, 429 from a rate limit...), the response headers it sets,
// the request parameters it reads, and the security requirement it enforces with its scheme.
// Layers are plain functions, so the description is attached beside them, not inside them.
import type { OpenApiParameterDoc } from "./extractor.js";
import type { JsonSchema } from "../schema/index.js";
import type { Layer } from "./route.js";

export interface LayerHeaderDoc {
  description?: string;
  schema: JsonSchema;
}

export interface LayerResponseDoc {
  description?: string;
  /** Headers this answer carries (Retry-After on a 429, WWW-Authenticate on a 401). */
  headers?: Readonly<Record<string, LayerHeaderDoc>>;
}

export interface LayerDoc {
  /** Methods the description applies to (default all): CSRF checks only unsafe methods. */
  methods?: readonly string[];
  /**
   * The route `config` key that turns the layer off for one route (`config: { csrf: false }`,
   * `{ auth: false }`, `{ rateLimit: false }`): such a route gets nothing from this description.
   */
  optOut?: string;
  /** Statuses the layer answers with itself; their body is the uniform error body. */
  responses?: Readonly<Record<number, LayerResponseDoc>>;
  /** Headers the layer adds to every answer of the route (RateLimit-Limit...). */
  headers?: Readonly<Record<string, LayerHeaderDoc>>;
  /** Request parameters the layer reads (an Idempotency-Key header, a CSRF header). */
  parameters?: readonly OpenApiParameterDoc[];
  /** Security requirement alternatives the layer enforces: any one of them satisfies it. */
  security?: readonly string[];
  /** Security schemes the names in `security` refer to, registered in components.securitySchemes. */
  securitySchemes?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

const described = new WeakMap<Layer, LayerDoc>();

/** Attach `doc` to `layer` (returned as is) for the OpenAPI document. */
export function describeLayer<L extends Layer>(layer: L, doc: LayerDoc): L {
  described.set(layer, doc);
  return layer;
}

/** What `layer` declared with `describeLayer`, if anything. */
export function layerDoc(layer: Layer): LayerDoc | undefined {
  return described.get(layer);
}
