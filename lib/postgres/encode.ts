// JS values to text-format parameters. The statement's parameter types are known (Describe runs
// before a statement's first execution), which settles the one ambiguous case: a JS array sent
// to a json/jsonb parameter is JSON; to any other type, an array literal.
// null → NULL; undefined is refused (a missing field is a bug, not a NULL); string as is;
// number/bigint → decimal text; boolean → t/f; Date → ISO 8601 (UTC); Buffer/Uint8Array →
// bytea hex; any other object → JSON.
import { serializeArray } from "./array.js";
import { isJsonType } from "./decode.js";

function scalar(value: unknown, position: number): string {
  switch (typeof value) {
    case "string":
      return value;
    case "number":
    case "bigint":
      return String(value);
    case "boolean":
      return value ? "t" : "f";
    case "object": {
      if (value instanceof Date) {
        if (Number.isNaN(value.getTime())) throw new TypeError(`parameter $${position} is an invalid Date`);
        return value.toISOString();
      }
      if (value instanceof Uint8Array) return "\\x" + Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("hex");
      return JSON.stringify(value);
    }
    default:
      throw new TypeError(`parameter $${position} is a ${typeof value}, which has no Postgres value`);
  }
}

/** The text of parameter `position` (1-based) for a parameter of type `oid`; null for NULL. */
export function encodeParameter(value: unknown, oid: number, position: number): string | null {
  if (value === null) return null;
  if (value === undefined) throw new TypeError(`parameter $${position} is undefined: pass null for NULL`);
  if (Array.isArray(value)) {
    if (isJsonType(oid)) return JSON.stringify(value);
    return serializeArray(value, (element) => scalar(element, position));
  }
  // A string to a json parameter is taken as JSON text already (as pg and postgres.js do).
  if (isJsonType(oid) && typeof value === "boolean") return value ? "true" : "false";
  return scalar(value, position);
}
