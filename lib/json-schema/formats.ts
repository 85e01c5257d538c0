// The formats only keel/schema asserts (the kernel's common ones are in lib/schema/formats.ts),
// and the full table the closure compiler and the code generator look formats up in.
import { commonFormats, MAX_FORMAT_LENGTH, type SchemaFormatCheck } from "../plugin.js";

const DUR_DATE = "(?:[0-9]+Y(?:[0-9]+M(?:[0-9]+D)?)?|[0-9]+M(?:[0-9]+D)?|[0-9]+D)";
const DUR_TIME = "T(?:[0-9]+H(?:[0-9]+M(?:[0-9]+S)?)?|[0-9]+M(?:[0-9]+S)?|[0-9]+S)";
const DURATION_RE = new RegExp(`^P(?:${DUR_DATE}(?:${DUR_TIME})?|${DUR_TIME}|[0-9]+W)$`);
const JSON_POINTER_RE = /^(?:\/(?:[^~/]|~[01])*)*$/;

function isRegex(s: string): boolean {
  if (s.length > MAX_FORMAT_LENGTH) return false;
  try {
    new RegExp(s, "u");
    return true;
  } catch {
    return false;
  }
}

/** The formats keel asserts (the ones listed in lib/schema's contract). */
export const schemaFormats: ReadonlyMap<string, SchemaFormatCheck> = new Map<string, SchemaFormatCheck>([
  ...commonFormats,
  ["duration", (s) => DURATION_RE.test(s)],
  ["regex", isRegex],
  ["json-pointer", (s) => JSON_POINTER_RE.test(s)],
]);
