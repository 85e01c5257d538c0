// W3C `tracestate`: vendor entries that travel with a trace. keel does not read them; it passes
// the caller's on to the services it calls, when they are well-formed (a malformed header is
// dropped whole, as the recommendation allows) and the request continued the caller's trace.

export const TRACESTATE_HEADER = "tracestate";

const MAX_MEMBERS = 32;
const MAX_LENGTH = 512;
// key = simple-key / tenant@system; value = 1-256 printable characters but "," and "=", not ending in a space.
const KEY = /^(?:[a-z][a-z0-9_\-*/]{0,255}|[a-z0-9][a-z0-9_\-*/]{0,240}@[a-z][a-z0-9_\-*/]{0,13})$/;
const VALUE = /^[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;

/** The header to forward, normalized (members trimmed, joined by ","), or null when absent or malformed. */
export function forwardableTraceState(value: string | string[] | undefined): string | null {
  const text = Array.isArray(value) ? value.join(",") : value;
  if (text === undefined || text.length > MAX_LENGTH) return null;
  const members: string[] = [];
  const keys = new Set<string>();
  for (const raw of text.split(",")) {
    const member = raw.trim();
    if (member === "") continue; // empty members are allowed and dropped
    const eq = member.indexOf("=");
    if (eq <= 0) return null;
    const key = member.substring(0, eq);
    if (!KEY.test(key) || !VALUE.test(member.substring(eq + 1)) || keys.has(key)) return null;
    keys.add(key);
    members.push(member);
  }
  if (members.length === 0 || members.length > MAX_MEMBERS) return null;
  return members.join(",");
}
