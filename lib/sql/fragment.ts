// One SQL statement in pieces: the literal text around each value, and the values. Values are
// always sent as parameters and never spliced into the text; identifiers and lists take an
// explicit helper, so the only way text reaches the statement is a template literal in code.

const kFragment = Symbol.for("keel.sql.fragment");

/** A value slot that is not a plain parameter: an identifier, a list, or a nested fragment. */
export type SqlPart = SqlIdentifier | SqlList | SqlFragment;

/** A quoted identifier (`sql.id("users")`): dots separate schema and table (`"public"."users"`). */
export class SqlIdentifier {
  readonly names: readonly string[];
  constructor(name: string) {
    if (typeof name !== "string" || name.length === 0 || name.length > 63 * 3 + 2) {
      throw new TypeError("sql.id: an identifier is a non-empty string of at most 191 characters");
    }
    const names = name.split(".");
    for (const part of names) {
      if (part.length === 0 || part.length > 63 || part.includes("\0")) {
        throw new TypeError(`sql.id: ${JSON.stringify(name)} is not an identifier (empty part, over 63 bytes, or NUL)`);
      }
    }
    this.names = names;
  }
}

/** `(p1, p2, ...)` for `in (...)` and multi-row values: each element is a parameter. */
export class SqlList {
  readonly values: readonly unknown[];
  constructor(values: readonly unknown[]) {
    if (!Array.isArray(values) || values.length === 0) {
      // `in ()` is a syntax error in both dialects: refuse here with a clear message instead.
      throw new TypeError("sql.list: needs a non-empty array");
    }
    this.values = values;
  }
}

/** A statement or a piece of one, built only by the `sql` tag. Nest one inside another freely. */
export class SqlFragment {
  readonly [kFragment] = true;
  /** The literal text: always one more than `values`. */
  readonly strings: readonly string[];
  readonly values: readonly unknown[];
  constructor(strings: readonly string[], values: readonly unknown[]) {
    this.strings = strings;
    this.values = values;
  }
}

export function isSqlFragment(value: unknown): value is SqlFragment {
  return value instanceof SqlFragment;
}

export interface SqlTag {
  /** A statement: every `${value}` is a parameter; identifiers, lists and fragments nest. */
  (strings: TemplateStringsArray, ...values: unknown[]): SqlFragment;
  /** A quoted identifier (`sql.id("users")`, `sql.id("public.users")`). */
  id(name: string): SqlIdentifier;
  /** `(p1, p2, ...)`: for `where id in ${sql.list(ids)}`. */
  list(values: readonly unknown[]): SqlList;
  /** Fragments joined by `separator` (literal text written in code, default `, `). */
  join(fragments: readonly SqlFragment[], separator?: string): SqlFragment;
  /** An empty fragment (for optional clauses). */
  readonly empty: SqlFragment;
}

function isTemplateStrings(strings: unknown): strings is TemplateStringsArray {
  // A real template literal carries `raw`; an ordinary array passed by a caller does not, which
  // keeps `sql(["drop table " + input])` from turning data into statement text.
  return Array.isArray(strings) && Array.isArray((strings as unknown as { raw?: unknown }).raw);
}

function tag(strings: TemplateStringsArray, ...values: unknown[]): SqlFragment {
  if (!isTemplateStrings(strings)) throw new TypeError("sql is a template tag: sql`select ... ${value}`");
  return new SqlFragment(strings, values);
}

const empty = new SqlFragment([""], []);

/**
 * The SQL template tag shared by `keel/postgres` and `keel/sqlite`.
 *
 * @example
 * const byEmail = sql`select id, email from users where email = ${email}`;
 * const some = sql`select * from ${sql.id("users")} where id in ${sql.list([1, 2, 3])}`;
 */
export const sql: SqlTag = Object.assign(tag, {
  id: (name: string) => new SqlIdentifier(name),
  list: (values: readonly unknown[]) => new SqlList(values),
  join(fragments: readonly SqlFragment[], separator = ", "): SqlFragment {
    if (fragments.length === 0) return empty;
    const strings = [""];
    const values: unknown[] = [];
    fragments.forEach((fragment, i) => {
      if (!isSqlFragment(fragment)) throw new TypeError("sql.join: every element must be an sql`` fragment");
      if (i > 0) strings[strings.length - 1] += separator;
      values.push(fragment);
      strings.push("");
    });
    return new SqlFragment(strings, values);
  },
  empty,
});
