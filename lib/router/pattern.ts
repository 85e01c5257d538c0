/**
 * Route pattern parsing and validation (startup only, never on the request path).
 *
 * Accepted syntax, one segment at a time:
 * - static text made of RFC 3986 path characters (`%HH` escapes allowed, matched raw);
 * - `{name}` or `:name`: a parameter filling the whole segment;
 * - `{*name}`, `*name`: a tail wildcard, last segment only; bare `*` or `{*}` is a wildcard
 *   named `*`.
 * A trailing slash is significant (`/users/` and `/users` are different routes).
 * The canonical form uses `{name}` / `{*name}` (`{*}` for the anonymous wildcard).
 */
import { RouteError } from "./errors.js";

/** One parsed segment of a route pattern. */
export type RouteSegment =
  | { readonly kind: "static"; readonly text: string }
  | { readonly kind: "param"; readonly name: string }
  | { readonly kind: "wildcard"; readonly name: string };

export interface ParsedRoutePattern {
  /** Canonical pattern: `{name}` parameters, `{*name}` wildcard. */
  readonly pattern: string;
  /** Parameter names in path order (the wildcard last, `*` when anonymous). */
  readonly paramNames: string[];
  /** Pattern with every name erased (`/users/{}`, `/files/{*}`): equal shapes match the same paths. */
  readonly shape: string;
  readonly segments: readonly RouteSegment[];
}

/** Name of the wildcard written as bare `*` or `{*}`. */
export const ANONYMOUS_WILDCARD = "*";

const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const FORBIDDEN_NAMES = new Set(["__proto__", "constructor", "prototype"]);

/** Canonical `{name}` / `{*name}` form of a route path, and its parameter names. Throws RouteError. */
export function normalizePattern(path: string): { pattern: string; paramNames: string[] } {
  const parsed = parseRoutePattern(path);
  return { pattern: parsed.pattern, paramNames: parsed.paramNames.slice() };
}

/** Full parse of a route path, with its shape for conflict detection. Throws RouteError. */
export function parseRoutePattern(path: string): ParsedRoutePattern {
  if (typeof path !== "string") throw new RouteError(`route path must be a string, got ${typeof path}`);
  const fail = (why: string): never => {
    throw new RouteError(`invalid route path ${JSON.stringify(path)}: ${why}`);
  };
  if (path.length === 0 || path.charCodeAt(0) !== 0x2f) fail('it must start with "/"');

  const raw = path.slice(1).split("/");
  const segments: RouteSegment[] = [];
  const paramNames: string[] = [];
  for (let i = 0; i < raw.length; i++) {
    const text = raw[i] ?? "";
    const isLast = i === raw.length - 1;
    const segment = parseSegment(text, isLast, fail);
    if (segment.kind !== "static") {
      if (segment.kind === "wildcard" && !isLast) {
        fail(`the wildcard "${text}" must be the last segment`);
      }
      if (paramNames.includes(segment.name)) fail(`parameter name "${segment.name}" is used twice`);
      paramNames.push(segment.name);
    }
    segments.push(segment);
  }

  let pattern = "";
  let shape = "";
  for (const segment of segments) {
    if (segment.kind === "static") {
      pattern += "/" + segment.text;
      shape += "/" + segment.text;
    } else if (segment.kind === "param") {
      pattern += "/{" + segment.name + "}";
      shape += "/{}";
    } else {
      pattern += segment.name === ANONYMOUS_WILDCARD ? "/{*}" : "/{*" + segment.name + "}";
      shape += "/{*}";
    }
  }
  return { pattern, paramNames, shape, segments };
}

function parseSegment(text: string, isLast: boolean, fail: (why: string) => never): RouteSegment {
  if (text.length === 0) {
    // Only the final segment may be empty: "/" and a trailing slash. "//" never matches a request.
    if (!isLast) fail('empty segment ("//")');
    return { kind: "static", text };
  }
  const first = text.charCodeAt(0);
  if (text.includes("{") || text.includes("}")) return parseBraced(text, fail);
  if (first === 0x3a /* : */) return { kind: "param", name: checkName(text.slice(1), text, fail) };
  if (first === 0x2a /* * */) {
    const name = text.length === 1 ? ANONYMOUS_WILDCARD : checkName(text.slice(1), text, fail);
    return { kind: "wildcard", name };
  }
  checkStaticText(text, fail);
  return { kind: "static", text };
}

/** `{name}` or `{*name}` filling the whole segment; anything else with braces is refused. */
function parseBraced(text: string, fail: (why: string) => never): RouteSegment {
  let depth = 0;
  let opens = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b /* { */) {
      depth++;
      opens++;
      if (depth > 1) fail(`nested braces in "${text}"`);
    } else if (c === 0x7d /* } */) {
      if (depth === 0) fail(`unbalanced "}" in "${text}"`);
      depth--;
    }
  }
  if (depth !== 0) fail(`unclosed "{" in "${text}"`);
  if (opens !== 1 || text.charCodeAt(0) !== 0x7b || text.charCodeAt(text.length - 1) !== 0x7d) {
    fail(`"${text}": a parameter must be a whole segment (no "/file.{ext}" or "/{a}-{b}")`);
  }
  const inner = text.slice(1, -1);
  if (inner.charCodeAt(0) === 0x2a /* * */) {
    const name = inner.length === 1 ? ANONYMOUS_WILDCARD : checkName(inner.slice(1), text, fail);
    return { kind: "wildcard", name };
  }
  return { kind: "param", name: checkName(inner, text, fail) };
}

function checkName(name: string, segment: string, fail: (why: string) => never): string {
  if (name.length === 0) fail(`empty parameter name in "${segment}"`);
  if (!PARAM_NAME.test(name)) {
    fail(`parameter name "${name}" in "${segment}" must match [A-Za-z_][A-Za-z0-9_]*`);
  }
  if (FORBIDDEN_NAMES.has(name)) fail(`parameter name "${name}" is reserved`);
  return name;
}

/**
 * Static text: RFC 3986 `pchar` minus `:` (a colon inside a segment would read like a
 * parameter, as in "/file.:ext") and `*`. `%` must start a `%HH` escape. Dot segments are
 * refused because clients normalise them away.
 */
function checkStaticText(text: string, fail: (why: string) => never): void {
  if (text === "." || text === "..") fail(`dot segment "${text}"`);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x25 /* % */) {
      if (!isHex(text.charCodeAt(i + 1)) || !isHex(text.charCodeAt(i + 2))) {
        fail(`"%" must be followed by two hex digits in "${text}"`);
      }
      i += 2;
      continue;
    }
    if (c === 0x3a || c === 0x2a) {
      fail(`"${text}": "${text[i]}" inside a segment is ambiguous; a parameter must be a whole segment`);
    }
    if (!isStaticPathChar(c)) fail(`character ${describeChar(text, i)} is not allowed in a path (percent-encode it)`);
  }
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** unreserved / sub-delims / "@" (RFC 3986 section 3.3), ASCII only. */
function isStaticPathChar(c: number): boolean {
  if ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)) return true;
  switch (c) {
    case 0x2d: // -
    case 0x2e: // .
    case 0x5f: // _
    case 0x7e: // ~
    case 0x21: // !
    case 0x24: // $
    case 0x26: // &
    case 0x27: // '
    case 0x28: // (
    case 0x29: // )
    case 0x2b: // +
    case 0x2c: // ,
    case 0x3b: // ;
    case 0x3d: // =
    case 0x40: // @
      return true;
    default:
      return false;
  }
}

function describeChar(text: string, i: number): string {
  const c = text.codePointAt(i) ?? 0;
  const hex = "U+" + c.toString(16).toUpperCase().padStart(4, "0");
  return c > 0x20 && c < 0x7f ? `"${String.fromCharCode(c)}" (${hex})` : hex;
}
