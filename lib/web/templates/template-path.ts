// Template expressions are dotted paths and nothing else: `user.name`, `items.0`, `@index`.
// No JavaScript is evaluated. A path reads own properties only, and the segments that lead into
// prototypes (__proto__, constructor, prototype) are refused when the template is compiled, so a
// template can neither reach Object.prototype nor call anything.

/** A parsed path: its segments; the first may be a loop variable (`@index`, `@first`, `@last`). */
export type TemplatePath = readonly string[];

const SEGMENT = /^(?:[A-Za-z_$][\w$-]*|\d+)$/;
const LOOP_VARIABLES = new Set(["@index", "@first", "@last"]);
const REFUSED = new Set(["__proto__", "constructor", "prototype"]);

/** Parse a path, or return the reason it is not one. */
export function parsePath(text: string): TemplatePath | string {
  if (text === "") return "an empty expression";
  const segments = text.split(".");
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    if (i === 0 && LOOP_VARIABLES.has(segment)) {
      if (segments.length > 1) return `"${segment}" has no properties`;
      continue;
    }
    if (REFUSED.has(segment)) return `the path segment "${segment}" is refused (no prototype access)`;
    if (!SEGMENT.test(segment)) return `"${text}" is not a dotted path (letters, digits, _ $ - separated by dots)`;
  }
  return segments;
}

/** One `{{#each}}` iteration (or the layout's `body`): a name bound in the templates it encloses. */
export interface Frame {
  readonly name: string;
  readonly value: unknown;
  readonly index: number;
  readonly count: number;
  readonly parent: Frame | null;
}

/** What paths are read from: the render's data and the enclosing loop frames. */
export interface Scope {
  readonly data: unknown;
  readonly frame: Frame | null;
}

function ownProperty(target: unknown, key: string): unknown {
  if (target === null || (typeof target !== "object" && typeof target !== "function")) return undefined;
  return Object.hasOwn(target, key) ? (target as Record<string, unknown>)[key] : undefined;
}

/** The value of a path; undefined when any segment is missing. */
export function lookup(scope: Scope, path: TemplatePath): unknown {
  const first = path[0]!;
  let value: unknown;
  if (first.charCodeAt(0) === 64 /* @ */) {
    // Loop variables describe the innermost loop (frames with count -1 are plain names).
    let frame = scope.frame;
    while (frame !== null && frame.count < 0) frame = frame.parent;
    if (frame === null) return undefined;
    if (first === "@index") return frame.index;
    if (first === "@first") return frame.index === 0;
    return frame.index === frame.count - 1;
  }
  let found = false;
  for (let f = scope.frame; f !== null; f = f.parent) {
    if (f.name === first) {
      value = f.value;
      found = true;
      break;
    }
  }
  if (!found) value = ownProperty(scope.data, first);
  for (let i = 1; i < path.length && value !== undefined; i++) value = ownProperty(value, path[i]!);
  return value;
}
