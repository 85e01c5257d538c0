// One version of an API: its name, its routes, and whether (and until when) it is deprecated.
import type { RouteDefinition } from "../index.js";
import type { Deprecation } from "./deprecation.js";

export interface VersionOptions {
  /** The version is deprecated: its answers carry `Deprecation`, `Sunset` and `Link` headers. */
  deprecated?: Deprecation;
}

export interface VersionGroup {
  readonly version: string;
  readonly routes: readonly RouteDefinition[];
  readonly deprecated: Deprecation | undefined;
}

/** A version's token: what a client sends (`2`, `2024-01-01`, `beta`), no spaces, commas or quotes. */
const VERSION_TOKEN = /^[A-Za-z0-9._~-]{1,64}$/;

/**
 * A route group carrying a version: `version("2", [getUser, listUsers])`, or deprecated:
 * `version("1", routes, { deprecated: { date, sunset, link } })`. `versions()` serves them.
 */
export function version(name: string, routes: readonly RouteDefinition[], options: VersionOptions = {}): VersionGroup {
  if (!VERSION_TOKEN.test(name)) throw new TypeError(`version name must be 1-64 of A-Z a-z 0-9 . _ ~ -, got ${JSON.stringify(name)}`);
  return { version: name, routes: routes.slice(), deprecated: options.deprecated };
}
