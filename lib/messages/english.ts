// The built-in English catalogue: the texts keel's validators write today (lib/schema/messages.ts
// and keel/schema's keywords), as templates. A message key is the field error's `code`, or
// `code.variant` where one code has several messages (`length.min`, `range.maximum`); `types.*`
// are the words `{types}` is made of, and `validation_error` is the body's own message.
// spec/messages checks that each template renders byte for byte what the validators write.

/** Every message key with its English template (`{param}`, `{param, plural, one {...} other {...}}`). */
export const englishMessages = Object.freeze({
  validation_error: "Request validation failed",
  type: "must be {types}",
  "types.string": "a string",
  "types.integer": "an integer",
  "types.number": "a number",
  "types.boolean": "a boolean",
  "types.object": "an object",
  "types.array": "an array",
  "types.null": "null",
  "types.or": " or ",
  required: "is required",
  "required.when": "is required when {property} is present",
  "length.min": "must be at least {limit, plural, one {# character} other {# characters}}",
  "length.max": "must be at most {limit, plural, one {# character} other {# characters}}",
  regex: "must match the pattern {pattern}",
  email: "must be a valid email address",
  format: "must be a valid {format}",
  "range.minimum": "must be at least {limit}",
  "range.maximum": "must be at most {limit}",
  "range.exclusiveMinimum": "must be greater than {limit}",
  "range.exclusiveMaximum": "must be less than {limit}",
  multipleOf: "must be a multiple of {divisor}",
  enum: "must be one of: {values}",
  "enum.const": "must be equal to {value}",
  additionalProperties: "is not an allowed property",
  minProperties: "must have at least {limit, plural, one {# property} other {# properties}}",
  maxProperties: "must have at most {limit, plural, one {# property} other {# properties}}",
  propertyNames: "is not an allowed property name",
  unevaluatedProperties: "is not an allowed property",
  minItems: "must have at least {limit, plural, one {# item} other {# items}}",
  maxItems: "must have at most {limit, plural, one {# item} other {# items}}",
  items: "must have at most {limit, plural, one {# item} other {# items}}",
  uniqueItems: "must not contain duplicate items",
  contains: "must contain at least {limit, plural, one {# matching item} other {# matching items}}",
  maxContains: "must contain at most {limit, plural, one {# matching item} other {# matching items}}",
  unevaluatedItems: "is not an allowed item",
  anyOf: "must match at least one of the allowed schemas",
  oneOf: "must match exactly one of the allowed schemas",
  "oneOf.many": "must match exactly one of the allowed schemas, but matches several",
  not: "must not match the disallowed schema",
  forbidden: "is not allowed",
  depth: "is nested too deeply",
  invalid: "is invalid",
  async_unique: "is already taken",
  async_limit: "too many values to check (at most {limit})",
});

export type MessageKey = keyof typeof englishMessages;

/**
 * How a message with parameters is read back from its English text (the validators write finished
 * English at compile time, so this is where `limit` and friends come from): capture groups in the
 * order of `params`. Keys without parameters are matched by their exact text.
 */
export const ENGLISH_PATTERNS: Readonly<Partial<Record<MessageKey, { readonly re: RegExp; readonly params: readonly string[] }>>> = {
  type: { re: /^must be (.+)$/s, params: ["types"] },
  "required.when": { re: /^is required when (.+) is present$/s, params: ["property"] },
  "length.min": { re: /^must be at least (\d+) characters?$/, params: ["limit"] },
  "length.max": { re: /^must be at most (\d+) characters?$/, params: ["limit"] },
  regex: { re: /^must match the pattern (.*)$/s, params: ["pattern"] },
  format: { re: /^must be a valid (.+)$/s, params: ["format"] },
  "range.minimum": { re: /^must be at least (\S+)$/, params: ["limit"] },
  "range.maximum": { re: /^must be at most (\S+)$/, params: ["limit"] },
  "range.exclusiveMinimum": { re: /^must be greater than (\S+)$/, params: ["limit"] },
  "range.exclusiveMaximum": { re: /^must be less than (\S+)$/, params: ["limit"] },
  multipleOf: { re: /^must be a multiple of (\S+)$/, params: ["divisor"] },
  enum: { re: /^must be one of: (.*)$/s, params: ["values"] },
  "enum.const": { re: /^must be equal to (.*)$/s, params: ["value"] },
  minProperties: { re: /^must have at least (\d+) propert(?:y|ies)$/, params: ["limit"] },
  maxProperties: { re: /^must have at most (\d+) propert(?:y|ies)$/, params: ["limit"] },
  minItems: { re: /^must have at least (\d+) items?$/, params: ["limit"] },
  maxItems: { re: /^must have at most (\d+) items?$/, params: ["limit"] },
  items: { re: /^must have at most (\d+) items?$/, params: ["limit"] },
  contains: { re: /^must contain at least (\d+) matching items?$/, params: ["limit"] },
  maxContains: { re: /^must contain at most (\d+) matching items?$/, params: ["limit"] },
  async_limit: { re: /^too many values to check \(at most (\d+)\)$/, params: ["limit"] },
};
