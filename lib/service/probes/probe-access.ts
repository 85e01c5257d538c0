// Who may read why a check fails. The reasons are error messages of drivers and clients
// ("Redis at 10.0.0.5:6379 ... ECONNREFUSED"): internal addresses, hostnames, ports, versions,
// which an anonymous caller of /ready or /health must not learn. So by default a failing check
// shows its name, its status and a generic reason; the message itself goes to callers that send
// the admin token (`Authorization: Bearer <token>`, compared in constant time, as the admin
// routes do) or that the app's own predicate admits. The log line of the status change always
// carries the message.
import type { Context } from "../../index.js";
import { timingSafeEqualString } from "../../shared/timing.js";

/** Decides per probe request whether the reasons of failing checks are shown. */
export type ProbeDetailAccess = (ctx: Context) => boolean;

const MIN_TOKEN_LENGTH = 16;

/** The token, or a function read at each request (so it can be set after the routes are built). */
export type ProbeToken = string | (() => string | undefined);

export function checkProbeToken(token: string, where: string): string {
  if (typeof token !== "string" || token.length < MIN_TOKEN_LENGTH) {
    throw new TypeError(`${where}: adminToken must be a string of at least ${MIN_TOKEN_LENGTH} characters`);
  }
  return token;
}

/** Admits a request carrying `Authorization: Bearer <token>`; with no token set, nobody. */
export function probeTokenAccess(token: ProbeToken): ProbeDetailAccess {
  if (typeof token === "string") checkProbeToken(token, "probes");
  return (ctx) => {
    const expected = typeof token === "string" ? token : token();
    if (expected === undefined) return false;
    const sent = ctx.header("authorization");
    return sent !== undefined && timingSafeEqualString(sent, `Bearer ${expected}`);
  };
}
