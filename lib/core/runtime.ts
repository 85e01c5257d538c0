// What a request needs from its app at run time, in one object with a stable shape.
import type { Logger } from "../util/logger.js";
import type { ResolvedServerLimits } from "./server-limits.js";

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
  /** True once graceful shutdown has begun. */
  draining: boolean;
  /** Connection limits of the listening server (the defaults until `listen` sets them). */
  limits: ResolvedServerLimits;
}
