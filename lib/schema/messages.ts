// Default English messages per rule, and the `x-messages` / `x-message` override lookup, shared by
// the closure compiler and the code generator so both report the very same items.

const TYPE_NAMES: Record<string, string> = {
  string: "a string", integer: "an integer", number: "a number", boolean: "a boolean",
  object: "an object", array: "an array", null: "null",
};

const plural = (n: number, word: string, many = `${word}s`): string => `${n} ${n === 1 ? word : many}`;

export const defaultMessages = {
  type: (types: readonly string[]): string => `must be ${types.map((t) => TYPE_NAMES[t] ?? t).join(" or ")}`,
  required: "is required",
  minLength: (n: number): string => `must be at least ${plural(n, "character")}`,
  maxLength: (n: number): string => `must be at most ${plural(n, "character")}`,
  pattern: (p: string): string => `must match the pattern ${p}`,
  email: "must be a valid email address",
  format: (f: string): string => `must be a valid ${f}`,
  minimum: (n: number): string => `must be at least ${n}`,
  maximum: (n: number): string => `must be at most ${n}`,
  exclusiveMinimum: (n: number): string => `must be greater than ${n}`,
  exclusiveMaximum: (n: number): string => `must be less than ${n}`,
  multipleOf: (n: number): string => `must be a multiple of ${n}`,
  const: (v: unknown): string => `must be equal to ${describe(v)}`,
  enum: (values: readonly unknown[]): string =>
    `must be one of: ${values.slice(0, 10).map(describe).join(", ")}${values.length > 10 ? ", ..." : ""}`,
  additionalProperties: "is not an allowed property",
  minItems: (n: number): string => `must have at least ${plural(n, "item")}`,
  maxItems: (n: number): string => `must have at most ${plural(n, "item")}`,
  uniqueItems: "must not contain duplicate items",
  minProperties: (n: number): string => `must have at least ${plural(n, "property", "properties")}`,
  maxProperties: (n: number): string => `must have at most ${plural(n, "property", "properties")}`,
} as const;

function describe(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

type SchemaObject = { readonly [k: string]: unknown };

/** `x-messages[code]`, else `x-message`, else the default. */
export function schemaMessage(schema: SchemaObject, code: string, fallback: string): string {
  const messages = schema["x-messages"];
  if (typeof messages === "object" && messages !== null) {
    const specific = (messages as SchemaObject)[code];
    if (typeof specific === "string") return specific;
  }
  const message = schema["x-message"];
  return typeof message === "string" ? message : fallback;
}

/** For a missing property: the property schema's own message wins over the object's. */
export function requiredMessage(parent: SchemaObject, child: unknown): string {
  if (typeof child === "object" && child !== null) {
    const own = schemaMessage(child as SchemaObject, "required", "");
    if (own !== "") return own;
  }
  return schemaMessage(parent, "required", defaultMessages.required);
}
