// JSON Schema (the subset an OpenAPI 3.1 document of keel uses) as a TypeScript type expression,
// for `keel client`. What it cannot express exactly it widens (a pattern is a string, a
// `not` is unknown), so the types are never narrower than what the server sends. `$ref`s to
// components become the component's type name; nesting is bounded so a hostile document cannot
// blow the stack.

const MAX_DEPTH = 64;

type Schema = boolean | Readonly<Record<string, unknown>>;

/** A TypeScript identifier for a component name (`User`, `users.v1.User` → `users_v1_User`). */
export function typeName(component: string): string {
  const cleaned = component.replace(/[^A-Za-z0-9_$]/g, "_");
  return /^[A-Za-z_$]/.test(cleaned) ? cleaned : `_${cleaned}`;
}

/** A property key: bare when it is an identifier, quoted otherwise. */
export function propertyKey(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name);
}

const COMPONENT_REF = /^#\/components\/schemas\/(.+)$/;

function literal(value: unknown): string {
  return value === null || ["string", "number", "boolean"].includes(typeof value) ? JSON.stringify(value) : "unknown";
}

function union(parts: readonly string[]): string {
  const unique = [...new Set(parts)];
  if (unique.includes("unknown")) return "unknown";
  return unique.length === 0 ? "never" : unique.length === 1 ? (unique[0] as string) : unique.map((p) => (p.includes(" & ") ? `(${p})` : p)).join(" | ");
}

function wrap(t: string): string {
  return /^[A-Za-z0-9_$."]+(?:\[\])*$/.test(t) ? t : `(${t})`;
}

function objectType(s: Readonly<Record<string, unknown>>, depth: number, indent: string): string {
  const props = (s["properties"] ?? {}) as Record<string, Schema>;
  const required = new Set(Array.isArray(s["required"]) ? (s["required"] as unknown[]).filter((r): r is string => typeof r === "string") : []);
  const inner = indent + "  ";
  const lines = Object.entries(props).map(([name, sub]) => `${inner}${propertyKey(name)}${required.has(name) ? "" : "?"}: ${schemaType(sub, depth + 1, inner)};`);
  const extra = s["additionalProperties"];
  // An open object (no additionalProperties: false) may carry more; saying so keeps the declared
  // properties typed without claiming they are all there is.
  if (lines.length === 0) {
    if (extra === false) return "Record<string, never>";
    return `Record<string, ${typeof extra === "object" && extra !== null ? schemaType(extra as Schema, depth + 1, indent) : "unknown"}>`;
  }
  if (extra !== undefined && extra !== false) lines.push(`${inner}[key: string]: unknown;`);
  return `{\n${lines.join("\n")}\n${indent}}`;
}

function typedSchema(s: Readonly<Record<string, unknown>>, type: string, depth: number, indent: string): string {
  switch (type) {
    case "string":
      return "string";
    case "integer":
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array": {
      const prefix = Array.isArray(s["prefixItems"]) ? (s["prefixItems"] as Schema[]) : null;
      if (prefix !== null && s["items"] === false) return `[${prefix.map((p) => schemaType(p, depth + 1, indent)).join(", ")}]`;
      const items = s["items"];
      return `${wrap(items === undefined || typeof items === "boolean" ? "unknown" : schemaType(items as Schema, depth + 1, indent))}[]`;
    }
    case "object":
      return objectType(s, depth, indent);
    default:
      return "unknown";
  }
}

/** The type of `schema`, lines indented from `indent`. */
export function schemaType(schema: Schema | undefined, depth = 0, indent = ""): string {
  if (schema === undefined || schema === true) return "unknown";
  if (schema === false) return "never";
  if (depth > MAX_DEPTH) return "unknown";
  const s = schema;
  const ref = s["$ref"];
  if (typeof ref === "string") {
    const m = COMPONENT_REF.exec(ref);
    return m === null ? "unknown" : typeName(decodeURIComponent(m[1] as string).replace(/~1/g, "/").replace(/~0/g, "~"));
  }
  if ("const" in s) return literal(s["const"]);
  if (Array.isArray(s["enum"])) return union((s["enum"] as unknown[]).map(literal));
  for (const key of ["oneOf", "anyOf"]) {
    if (Array.isArray(s[key])) return union((s[key] as Schema[]).map((sub) => schemaType(sub, depth + 1, indent)));
  }
  if (Array.isArray(s["allOf"])) {
    const parts = (s["allOf"] as Schema[]).map((sub) => schemaType(sub, depth + 1, indent)).filter((p) => p !== "unknown");
    return parts.length === 0 ? "unknown" : parts.map(wrap).join(" & ");
  }
  const type = s["type"];
  if (typeof type === "string") return typedSchema(s, type, depth, indent);
  if (Array.isArray(type)) return union(type.filter((t): t is string => typeof t === "string").map((t) => typedSchema(s, t, depth, indent)));
  if (s["properties"] !== undefined) return objectType(s, depth, indent);
  return "unknown";
}
