// What a request needs from its app at run time, in one object with a stable shape.
import type { Logger } from "../util/logger.js";
import type { ResolvedServerLimits } from "../server/server-limits.js";
import type { EndsOnDrain } from "./end-on-drain.js";
import type { IncomingMessage } from "node:http";
import type { ApiError, ErrorMapper } from "./errors.js";

/**
 * How much of a declared response schema is checked on the way out. "shape" (the serializer
 * alone): types, required properties, enum and const. "full": the compiled validator runs first,
 * so formats, lengths, patterns and ranges are checked too.
 */
export type ResponseValidation = "shape" | "full";

export interface AsyncValidationAdapters {
  db?: { isUnique(table: string, column: string, value: unknown): Promise<boolean> };
  custom?: Record<string, (value: unknown) => Promise<{ code: string; message: string } | null>>;
}

export interface AppRuntime {
  /** Default body limit in bytes. */
  bodyLimit: number;
  /** Maximum JSON nesting depth accepted in bodies. */
  jsonDepth: number;
  /** Maximum number of values in one JSON body (routes can override it on `json()`). */
  jsonElements: number;
  /** KEEL_ENV=production: 5xx messages are masked. */
  production: boolean;
  logger: Logger;
  state: Record<string, unknown>;
  validation: AsyncValidationAdapters;
  /** Timeout for each async validation rule, in ms. */
  asyncRuleTimeout: number;
  /** How declared response schemas check handler results ("shape" or "full"). */
  responseValidation: ResponseValidation;
  /** Longest path parameter the router accepts (longer: 400). */
  maxParamLength: number;
  /** True once graceful shutdown has begun. */
  draining: boolean;
  /**
   * Stream bodies being written that asked to be ended when the app drains (`endOnDrain`, an
   * event stream for one), ended when the listener stops accepting so their clients reconnect
   * elsewhere; `null` once that happened (a body started later ends at once).
   */
  liveStreams: Set<EndsOnDrain> | null;
  /** This app's mappers of library errors (`app.mapErrors`), tried in order. */
  errorMappers: ErrorMapper[];
  /** Connection limits of the listening server (the defaults until `listen` sets them). */
  limits: ResolvedServerLimits;
  /**
   * Rewrites an error before its reply is made (keel/messages: 422 field messages in the
   * client's language); null (the default) costs one comparison per error reply.
   */
  localize: ((err: ApiError, req: IncomingMessage) => ApiError) | null;
}
