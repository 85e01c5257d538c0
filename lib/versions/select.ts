// Reading the version a request asks for, by the app's one strategy (header, query, Accept).
import type { Context } from "../index.js";
import { parseAccept } from "../plugin.js";

/** What a request names: a version, nothing (MISSING), or something unusable (AMBIGUOUS). */
export const MISSING: unique symbol = Symbol("missing");
export const AMBIGUOUS: unique symbol = Symbol("ambiguous");
export type Requested = string | typeof MISSING | typeof AMBIGUOUS;

export function fromHeader(ctx: Context, name: string): Requested {
  const v = ctx.req.headers[name];
  // node:http joins repeated custom headers with ", "; two versions in one request are refused.
  if (typeof v !== "string") return v === undefined ? MISSING : AMBIGUOUS;
  const s = v.trim();
  return s === "" ? MISSING : s;
}

export function fromQuery(ctx: Context, name: string): Requested {
  if (ctx.rawQuery === "") return MISSING;
  const v = ctx.query[name];
  if (v === undefined || v === "") return MISSING;
  return typeof v === "string" ? v : AMBIGUOUS;
}

/**
 * The `version` parameter of the most preferred Accept range that has one
 * (`Accept: application/json; version=2`). A range with q=0 refuses, so it never selects.
 */
export function fromAccept(ctx: Context, name: string): Requested {
  let best: string | typeof MISSING = MISSING;
  let bestQ = 0;
  for (const range of parseAccept(ctx.req.headers.accept)) {
    const v = range.parameters[name];
    if (v === undefined || range.q <= bestQ) continue;
    best = v;
    bestQ = range.q;
  }
  return best;
}
