// Schemas of other libraries (zod, valibot, arktype, ...) reach keel through the Standard Schema
// interface only: `~standard.validate` to check a value, `~standard.jsonSchema` to document it.
// Nothing here reads a validator's internals. keel's own `t` schemas also carry `~standard`
// (vendor "keel"); they are JSON Schema and keep keel's compiled path.
import type { StandardSchemaV1 } from "./standard-schema.js";
import { formatFieldPath } from "./state.js";
import type { FieldError } from "./types.js";

/** The field-item code of every issue a foreign schema reports (the spec's issues carry no rule name). */
export const FOREIGN_ISSUE_CODE = "invalid";
/** At most this many issues of one value become field items (as keel's own `maxErrors`). */
export const MAX_FOREIGN_ISSUES = 100;

/** A Standard Schema of another library (not keel's own `t`), else null. */
export function foreignSchema(schema: unknown): StandardSchemaV1 | null {
  if ((typeof schema !== "object" && typeof schema !== "function") || schema === null) return null;
  const props = (schema as { "~standard"?: unknown })["~standard"];
  if (typeof props !== "object" || props === null) return null;
  const { vendor, validate } = props as { vendor?: unknown; validate?: unknown };
  if (vendor === "keel" || typeof validate !== "function") return null;
  return schema as StandardSchemaV1;
}

const NEITHER = ": neither a JSON Schema (a plain object or a boolean) nor a Standard Schema (~standard.validate)";

/** Why `schema` is neither a JSON Schema nor a Standard Schema; undefined when it is one of them. */
export function schemaProblem(schema: unknown): string | undefined {
  if (typeof schema === "boolean" || foreignSchema(schema) !== null) return undefined;
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    return `is ${schema === null ? "null" : Array.isArray(schema) ? "an array" : `a ${typeof schema}`}${NEITHER}`;
  }
  const std = (schema as { "~standard"?: { vendor?: unknown } })["~standard"];
  if (std !== undefined && std?.vendor !== "keel") return `has a ~standard without validate()${NEITHER}`;
  const proto: unknown = Object.getPrototypeOf(schema);
  if (proto === Object.prototype || proto === null) return undefined;
  return `is an instance of ${String((proto as { constructor?: { name?: unknown } }).constructor?.name)}${NEITHER}`;
}

/** An issue's path in keel's field notation (`email`, `items[2].name`); "" for the root. */
export function issuePath(path: StandardSchemaV1.Issue["path"]): string {
  if (path === undefined || path.length === 0) return "";
  const keys: (string | number)[] = [];
  for (const segment of path) {
    const key = typeof segment === "object" && segment !== null ? (segment as StandardSchemaV1.PathSegment).key : segment;
    keys.push(typeof key === "number" ? key : String(key));
  }
  return formatFieldPath(keys);
}

/** A failed result's issues as keel's field errors (at most MAX_FOREIGN_ISSUES). */
export function issueFields(issues: readonly StandardSchemaV1.Issue[]): FieldError[] {
  const n = Math.min(issues.length, MAX_FOREIGN_ISSUES);
  const out: FieldError[] = [];
  for (let i = 0; i < n; i++) {
    const issue = issues[i]!;
    const message = typeof issue.message === "string" && issue.message !== "" ? issue.message : "is invalid";
    out.push({ field: issuePath(issue.path), code: FOREIGN_ISSUE_CODE, message });
  }
  return out;
}

/** A label for messages: "a zod schema". */
export function describeForeign(schema: StandardSchemaV1): string {
  return `a ${String(schema["~standard"].vendor)} schema`;
}
