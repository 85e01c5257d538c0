// A fragment to the text and parameter list a database takes. The dialect gives the placeholder
// (`$1` for Postgres, `?` for SQLite) and the identifier quoting; both quote with `"` and double
// an embedded `"`, as SQL-92 and both servers do.
import { isSqlFragment, SqlFragment, SqlIdentifier, SqlList } from "./fragment.js";

export interface SqlDialect {
  /** The placeholder for the parameter at 1-based `position`. */
  placeholder(position: number): string;
  /** Most parameters one statement may carry (Postgres 65535, SQLite 32766). */
  readonly maxParameters: number;
}

export interface RenderedSql {
  readonly text: string;
  readonly values: unknown[];
}

/** Deepest nesting of fragments inside fragments: a bound against self-referencing input. */
const MAX_DEPTH = 32;

export function quoteIdentifier(identifier: SqlIdentifier): string {
  return identifier.names.map((name) => `"${name.replaceAll('"', '""')}"`).join(".");
}

export function renderSql(fragment: SqlFragment, dialect: SqlDialect): RenderedSql {
  if (!isSqlFragment(fragment)) throw new TypeError("expected an sql`` fragment");
  const values: unknown[] = [];
  const text = append(fragment, dialect, values, 0);
  if (values.length > dialect.maxParameters) {
    throw new RangeError(`the statement has ${values.length} parameters; at most ${dialect.maxParameters} are allowed`);
  }
  return { text, values };
}

function append(fragment: SqlFragment, dialect: SqlDialect, values: unknown[], depth: number): string {
  if (depth > MAX_DEPTH) throw new RangeError(`sql fragments nest deeper than ${MAX_DEPTH}`);
  let text = fragment.strings[0]!;
  for (let i = 0; i < fragment.values.length; i++) {
    const value = fragment.values[i];
    if (value instanceof SqlFragment) text += append(value, dialect, values, depth + 1);
    else if (value instanceof SqlIdentifier) text += quoteIdentifier(value);
    else if (value instanceof SqlList) {
      text += "(";
      for (let j = 0; j < value.values.length; j++) {
        values.push(value.values[j]);
        text += (j === 0 ? "" : ", ") + dialect.placeholder(values.length);
      }
      text += ")";
    } else {
      values.push(value);
      text += dialect.placeholder(values.length);
    }
    text += fragment.strings[i + 1]!;
  }
  return text;
}
