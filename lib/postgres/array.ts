// Postgres's text array format, both ways: `{1,2,NULL}`, `{{1,2},{3,4}}`, `{"a,b","with \"quote\""}`,
// optionally led by dimension bounds (`[0:1]={...}`). Elements are decoded by the element
// type's parser; nesting is bounded (Postgres itself allows at most 6 dimensions).

const MAX_DIMENSIONS = 6;

export type ElementParser = (text: string) => unknown;

/** Parses an array's text form; `parse` decodes each non-NULL element. */
export function parseArray(text: string, parse: ElementParser): unknown[] {
  let at = 0;
  if (text[0] === "[") {
    at = text.indexOf("=") + 1;
    if (at === 0) throw new Error(`malformed array: ${text.slice(0, 40)}`);
  }
  const state = { text, at, parse };
  const out = parseLevel(state, 1);
  return out;
}

interface State {
  readonly text: string;
  at: number;
  readonly parse: ElementParser;
}

function parseLevel(s: State, depth: number): unknown[] {
  if (depth > MAX_DIMENSIONS) throw new Error(`an array nests deeper than ${MAX_DIMENSIONS} dimensions`);
  if (s.text[s.at] !== "{") throw new Error(`malformed array at ${s.at}`);
  s.at++;
  const out: unknown[] = [];
  if (s.text[s.at] === "}") {
    s.at++;
    return out;
  }
  for (;;) {
    const c = s.text[s.at];
    if (c === "{") out.push(parseLevel(s, depth + 1));
    else if (c === '"') {
      let value = "";
      s.at++;
      for (;;) {
        const d = s.text[s.at];
        if (d === undefined) throw new Error("malformed array: unterminated quoted element");
        if (d === "\\") {
          value += s.text[s.at + 1] ?? "";
          s.at += 2;
        } else if (d === '"') {
          s.at++;
          break;
        } else {
          value += d;
          s.at++;
        }
      }
      out.push(s.parse(value));
    } else {
      let end = s.at;
      while (end < s.text.length && s.text[end] !== "," && s.text[end] !== "}") end++;
      const raw = s.text.slice(s.at, end);
      s.at = end;
      out.push(raw === "NULL" ? null : s.parse(raw));
    }
    const next = s.text[s.at++];
    if (next === "}") return out;
    if (next !== ",") throw new Error(`malformed array at ${s.at - 1}`);
  }
}

/** A JS array as an array literal; `element` gives each non-null element's text. */
export function serializeArray(values: readonly unknown[], element: (value: unknown) => string, depth = 1): string {
  if (depth > MAX_DIMENSIONS) throw new RangeError(`an array parameter nests deeper than ${MAX_DIMENSIONS} dimensions`);
  let out = "{";
  for (let i = 0; i < values.length; i++) {
    if (i > 0) out += ",";
    const v = values[i];
    if (v === null || v === undefined) out += "NULL";
    else if (Array.isArray(v)) out += serializeArray(v, element, depth + 1);
    else out += '"' + element(v).replaceAll("\\", "\\\\").replaceAll('"', '\\"') + '"';
  }
  return out + "}";
}
