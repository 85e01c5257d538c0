// Escaping for the text formats. Label values (both formats) and OpenMetrics HELP text escape
// backslash, double quote and newline; Prometheus 0.0.4 HELP text escapes only backslash and
// newline (a quote there is literal). Strings without any of them are returned as they are.

const NEEDS_LABEL_ESCAPE = /[\\"\n]/;
const NEEDS_HELP_ESCAPE = /[\\\n]/;

export function escapeLabelValue(value: string): string {
  if (!NEEDS_LABEL_ESCAPE.test(value)) return value;
  return value.replace(/[\\"\n]/g, (c) => (c === "\n" ? "\\n" : "\\" + c));
}

export function escapeHelp(help: string, openMetrics: boolean): string {
  return openMetrics ? escapeLabelValue(help) : NEEDS_HELP_ESCAPE.test(help) ? help.replace(/[\\\n]/g, (c) => (c === "\n" ? "\\n" : "\\\\")) : help;
}

/** `a="x",b="y"` for the given names and values, escaped (the text inside a sample's braces). */
export function labelText(names: readonly string[], values: readonly string[]): string {
  let out = "";
  for (let i = 0; i < names.length; i++) {
    if (i > 0) out += ",";
    out += names[i] + '="' + escapeLabelValue(values[i]!) + '"';
  }
  return out;
}
