// Small parsers for comma-separated header lists (Cache-Control, Vary, If-None-Match), shared by
// the cache and compression layers (Accept and Accept-Encoding have their own parser in the
// kernel, lib/util/accept.ts). They scan with indexOf: no
// regular expressions on client input, and a cap on the number of items looked at.
import type { HeaderValue, Reply } from "../index.js";

export const MAX_LIST_ITEMS = 64;

/** A header value (possibly repeated) as one string. */
export function headerText(v: HeaderValue | undefined): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v === "string") return v;
  if (typeof v === "number") return String(v);
  return (v as readonly string[]).join(", ");
}

/** The non-empty, trimmed items of a comma-separated list (at most MAX_LIST_ITEMS). */
export function splitList(value: string): string[] {
  const out: string[] = [];
  let start = 0;
  const n = value.length;
  while (start <= n && out.length < MAX_LIST_ITEMS) {
    let end = value.indexOf(",", start);
    if (end === -1) end = n;
    const item = value.slice(start, end).trim();
    if (item !== "") out.push(item);
    start = end + 1;
  }
  return out;
}

export interface CacheControl {
  noStore: boolean;
  noCache: boolean;
  private: boolean;
  noTransform: boolean;
  /** Seconds, or -1 when absent or malformed. */
  maxAge: number;
  sMaxAge: number;
}

function seconds(v: string): number {
  const s = v.charCodeAt(0) === 34 ? v.slice(1, -1) : v;
  if (s === "" || s.length > 10) return -1;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return -1;
  }
  return Number(s);
}

/** Parse a Cache-Control value (request or response). */
export function parseCacheControl(value: string | undefined): CacheControl {
  const cc: CacheControl = { noStore: false, noCache: false, private: false, noTransform: false, maxAge: -1, sMaxAge: -1 };
  if (value === undefined || value === "") return cc;
  for (const item of splitList(value)) {
    const eq = item.indexOf("=");
    const name = (eq === -1 ? item : item.slice(0, eq)).trim().toLowerCase();
    const arg = eq === -1 ? "" : item.slice(eq + 1).trim();
    if (name === "no-store") cc.noStore = true;
    else if (name === "no-cache") cc.noCache = true;
    else if (name === "private") cc.private = true;
    else if (name === "no-transform") cc.noTransform = true;
    else if (name === "max-age") cc.maxAge = seconds(arg);
    else if (name === "s-maxage") cc.sMaxAge = seconds(arg);
  }
  return cc;
}

/** Add `token` to the reply's Vary unless it (or `*`) is already there. */
export function appendVary(reply: Reply, token: string): void {
  const prev = headerText(reply.headers["vary"]);
  if (prev === undefined || prev === "") {
    reply.headers["vary"] = token;
    return;
  }
  const lower = token.toLowerCase();
  for (const item of splitList(prev)) {
    const l = item.toLowerCase();
    if (l === "*" || l === lower) return;
  }
  reply.headers["vary"] = prev + ", " + token;
}
