// The diff as a person reads it in a terminal: one line per difference, `~` changed, `+` only in
// the replay, `-` only in the recording.
import type { ReplayDiff } from "./diff.js";
import type { JsonChange } from "./json-diff.js";

/** A value on one line, cut at 200 characters. */
function show(value: unknown): string {
  const text = value === undefined ? "undefined" : JSON.stringify(value);
  return text.length > 200 ? text.slice(0, 197) + "..." : text;
}

function jsonLine(c: JsonChange): string {
  if (c.kind === "added") return `  + ${c.path}: ${show(c.replayed)}`;
  if (c.kind === "removed") return `  - ${c.path}: ${show(c.recorded)}`;
  return `  ~ ${c.path}: ${show(c.recorded)} -> ${show(c.replayed)}`;
}

export function formatDiff(diff: ReplayDiff): string {
  const lines: string[] = [];
  if (diff.status !== null) lines.push(`status: ${diff.status.recorded} -> ${diff.status.replayed}`);
  if (diff.headers.length > 0) {
    lines.push("headers:");
    for (const h of diff.headers) {
      if (h.recorded === null) lines.push(`  + ${h.name}: ${h.replayed}`);
      else if (h.replayed === null) lines.push(`  - ${h.name}: ${h.recorded}`);
      else lines.push(`  ~ ${h.name}: ${h.recorded} -> ${h.replayed}`);
    }
  }
  const body = diff.body;
  if (body.kind === "json") {
    lines.push("body (json):");
    for (const c of body.changes) lines.push(jsonLine(c));
    if (body.truncated) lines.push(`  ... more differences not shown`);
  } else if (body.kind === "text") {
    lines.push("body (lines):");
    for (const c of body.changes) lines.push(`  ${c.op} ${c.line}: ${c.text}`);
  } else if (body.kind === "skipped") {
    lines.push(`body: not compared (${body.reason})`);
  }
  if (diff.equal) lines.unshift("no differences");
  return lines.join("\n") + "\n";
}
