// Permission guards: extractors that pass the caller's claims to the handler only when they
// hold a role or permission. They read the principal any authentication layer stored (jwt(),
// apiKey()): anonymous -> 401 with that layer's challenge; authenticated but lacking the role
// -> 403 `forbidden` (with `Bearer error="insufficient_scope"` for bearer tokens, RFC 6750 §3.1).
//
// Where roles and permissions come from is configurable; defaults:
//   roles:       claim `role` (one role, or an array) and claim `roles` (array, or one role)
//   permissions: claim `permissions` (array, or space-separated string) and claim `scope`
//                (space-separated string, RFC 8693 / OAuth2; an array is accepted too)
// A claim is named by a string or, for nested claims, by a path: ["realm_access", "roles"].
import { ApiError, type Context, Extractor } from "../../index.js";
import type { JwtPayload } from "../../jose/index.js";
import { defaultBearerSchemes } from "../../shared/security-schemes.js";
import { requirePrincipal, type AuthPrincipal } from "../../shared/principal.js";

/** A top-level claim name, or a path of names into nested objects. */
export type ClaimPath = string | readonly string[];

export interface GuardOptions {
  /** Claims to read the values from (see the file header for defaults). */
  claims?: readonly ClaimPath[];
  /** "any": one of the listed values is enough; "all": every one is needed. */
  match?: "any" | "all";
  /** Split string claims on spaces (default: false for roles, true for permissions). */
  splitStrings?: boolean;
  /** Security scheme names for the OpenAPI document (default ["bearerAuth"]). */
  security?: readonly string[];
}

const DEFAULT_ROLE_CLAIMS: readonly ClaimPath[] = ["role", "roles"];
const DEFAULT_PERMISSION_CLAIMS: readonly ClaimPath[] = ["permissions", "scope"];
/** Upper bounds so a hostile (but validly signed) claim set cannot make a guard do unbounded work. */
const MAX_VALUES = 1024;
const MAX_STRING = 8192;
const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);

function own(obj: unknown, key: string): unknown {
  if (typeof obj !== "object" || obj === null || Array.isArray(obj)) return undefined;
  return Object.prototype.hasOwnProperty.call(obj, key) ? (obj as Record<string, unknown>)[key] : undefined;
}

function readClaim(claims: JwtPayload, path: readonly string[]): unknown {
  let v: unknown = claims;
  for (let i = 0; i < path.length; i++) v = own(v, path[i]!);
  return v;
}

/** Add the values a claim carries to `out` (strings only; other types are ignored). */
function collect(value: unknown, split: boolean, out: Set<string>): void {
  if (typeof value === "string") {
    if (value.length > MAX_STRING) return;
    if (!split) {
      if (value !== "") out.add(value);
      return;
    }
    let start = 0;
    const n = value.length;
    while (start < n && out.size < MAX_VALUES) {
      let end = value.indexOf(" ", start);
      if (end === -1) end = n;
      if (end > start) out.add(value.slice(start, end));
      start = end + 1;
    }
    return;
  }
  if (Array.isArray(value)) {
    const n = Math.min(value.length, MAX_VALUES);
    for (let i = 0; i < n; i++) {
      const item: unknown = value[i];
      if (typeof item === "string" && item !== "" && item.length <= MAX_STRING) out.add(item);
    }
  }
}

interface CompiledGuard {
  readonly required: readonly string[];
  readonly paths: readonly (readonly string[])[];
  readonly all: boolean;
  readonly split: boolean;
}

function compileGuard(kind: string, values: string | readonly string[], options: GuardOptions, defaults: { claims: readonly ClaimPath[]; match: "any" | "all"; split: boolean }): CompiledGuard {
  const required = typeof values === "string" ? [values] : [...values];
  if (required.length === 0 || !required.every((v) => typeof v === "string" && v !== "")) {
    throw new TypeError(`${kind}: give at least one non-empty name`);
  }
  const paths = (options.claims ?? defaults.claims).map((p) => (typeof p === "string" ? [p] : [...p]));
  if (paths.length === 0) throw new TypeError(`${kind}: claims must not be empty`);
  for (const p of paths) {
    if (p.length === 0 || p.some((k) => typeof k !== "string" || k === "" || FORBIDDEN_KEYS.has(k))) {
      throw new TypeError(`${kind}: invalid claim path ${JSON.stringify(p)}`);
    }
  }
  const match = options.match ?? defaults.match;
  if (match !== "any" && match !== "all") throw new TypeError(`${kind}: match must be "any" or "all"`);
  return { required, paths, all: match === "all", split: options.splitStrings ?? defaults.split };
}

function holds(guard: CompiledGuard, claims: JwtPayload): boolean {
  const granted = new Set<string>();
  for (const path of guard.paths) collect(readClaim(claims, path), guard.split, granted);
  if (guard.all) {
    for (const r of guard.required) if (!granted.has(r)) return false;
    return true;
  }
  for (const r of guard.required) if (granted.has(r)) return true;
  return false;
}

function guardExtractor<T extends object>(label: string, kind: "role" | "permission", guard: CompiledGuard, security: readonly string[] | undefined): Extractor<JwtPayload & T> {
  const names = guard.required.join(guard.all ? " and " : " or ");
  const message = `Requires ${kind} ${names}`;
  const scopeChallenge = `error="insufficient_scope"`;
  return new Extractor<JwtPayload & T>(
    label,
    (ctx: Context) => {
      const principal: AuthPrincipal = requirePrincipal(ctx, `${label}()`);
      if (holds(guard, principal.claims)) return principal.claims as JwtPayload & T;
      throw ApiError.forbidden(
        message,
        principal.scheme === "bearer" ? { headers: { "www-authenticate": `${principal.challenge}, ${scopeChallenge}` } } : undefined,
      );
    },
    false,
    { security: security ?? ["bearerAuth"], errorStatuses: [401, 403], ...defaultBearerSchemes(security) },
  );
}

/**
 * Only callers with the role (any of the roles, unless `match: "all"`) reach the handler, which
 * receives their claims. Roles are read from `role` / `roles` unless `claims` says otherwise.
 *
 * @example
 * ```ts
 * route.delete("/todos", [requireRole("admin")], (admin) => ({ by: admin.sub }));
 * ```
 * @see docs/features/auth.md
 */
export function requireRole<T extends object = Record<never, never>>(roles: string | readonly string[], options: GuardOptions = {}): Extractor<JwtPayload & T> {
  const guard = compileGuard("requireRole", roles, options, { claims: DEFAULT_ROLE_CLAIMS, match: "any", split: false });
  return guardExtractor<T>("requireRole", "role", guard, options.security);
}

/**
 * Only callers holding the permission (all of the permissions, unless `match: "any"`) reach the
 * handler. Permissions are read from `permissions` and `scope` (space-separated) by default.
 *
 * @example
 * ```ts
 * route.post("/todos", [requirePermission("todos:write"), json(Todo)], (caller, todo) => created(todo));
 * ```
 * @see docs/features/auth.md
 */
export function requirePermission<T extends object = Record<never, never>>(permissions: string | readonly string[], options: GuardOptions = {}): Extractor<JwtPayload & T> {
  const guard = compileGuard("requirePermission", permissions, options, { claims: DEFAULT_PERMISSION_CLAIMS, match: "all", split: true });
  return guardExtractor<T>("requirePermission", "permission", guard, options.security);
}
