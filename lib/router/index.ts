/**
 * keel radix router: `{name}` / `:name` parameters, `{*rest}` tail wildcards, precedence by
 * specificity (static > parameter > wildcard per segment, with backtracking), one tree per method.
 */
export { Router, DEFAULT_MAX_PARAM_LENGTH } from "./router.js";
export type { RouteMatch, RouterOptions, RouterRouteInfo } from "./router.js";
export { RouteError, BadPathError } from "./errors.js";
export type { BadPathReason } from "./errors.js";
export { normalizePattern, parseRoutePattern, ANONYMOUS_WILDCARD } from "./pattern.js";
export type { ParsedRoutePattern, RouteSegment } from "./pattern.js";
export { isMethodToken } from "./method-token.js";
