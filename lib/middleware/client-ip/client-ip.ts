// The client's address, for rate limits and idempotency scoping. By default it is the socket
// peer and nothing else: X-Forwarded-For is attacker-written unless a proxy you run rewrote it.
// Behind proxies, say so explicitly with `trustProxy: { hops }`: the number of proxies in front of
// the app that each append the address they saw to the header. The client is then the entry
// `hops` places from the right (each trusted proxy appended one; anything further left was sent
// by the client and is ignored). `proxies` additionally requires the socket peer to be one of
// the listed addresses or CIDR ranges before the header is read at all.
//
// Addresses are parsed numerically (node:net) and canonicalised (IPv4-mapped IPv6 to IPv4, IPv6
// compressed lowercase, ports and brackets stripped), so one client cannot appear under many
// spellings. A header entry that is not an IP address is ignored in favour of the socket peer.
import { BlockList, isIPv4, isIPv6 } from "node:net";
import type { Context } from "../../index.js";

export interface TrustProxyOptions {
  /** Proxies in front of the app that append to the header (1 for one load balancer). */
  hops: number;
  /** The list header the proxies append to (default x-forwarded-for). */
  header?: string;
  /** Read the header only when the socket peer is one of these addresses or CIDR ranges. */
  proxies?: readonly string[];
}

/** Resolves a request's client address (canonical IP text, or "" when unknown). */
export type ClientAddressResolver = (ctx: Context) => string;

const MAPPED_V4 = "::ffff:";

/** The socket peer, with IPv4-mapped IPv6 (`::ffff:1.2.3.4`) reduced to IPv4. */
export function socketAddress(ctx: Context): string {
  const a = ctx.remoteAddress;
  if (a.length > 7 && a.charCodeAt(0) === 58 /* : */ && a.startsWith(MAPPED_V4) && a.indexOf(".") !== -1) return a.slice(7);
  return a;
}

/**
 * Canonical text of an IP address, or null when `raw` is not one. Accepts `1.2.3.4:80`,
 * `[::1]:80`, zone ids (dropped) and IPv4-mapped IPv6 (reduced to IPv4).
 */
export function canonicalIp(raw: string): string | null {
  let s = raw.trim();
  if (s.length === 0 || s.length > 64) return null;
  if (s.charCodeAt(0) === 91 /* [ */) {
    const end = s.indexOf("]");
    if (end === -1) return null;
    s = s.slice(1, end);
  } else {
    const colon = s.indexOf(":");
    if (colon !== -1 && colon === s.lastIndexOf(":")) s = s.slice(0, colon); // IPv4 with a port
  }
  if (isIPv4(s)) return s;
  const zone = s.indexOf("%");
  if (zone !== -1) s = s.slice(0, zone);
  if (!isIPv6(s)) return null;
  s = s.toLowerCase();
  if (s.startsWith(MAPPED_V4) && isIPv4(s.slice(7))) return s.slice(7);
  try {
    const host = new URL(`http://[${s}]/`).hostname; // WHATWG serialisation: RFC 5952 form
    const canonical = host.slice(1, -1);
    // The URL form writes mapped addresses in hex (::ffff:102:304); keep the dotted form.
    if (canonical.startsWith(MAPPED_V4)) return mappedToV4(canonical) ?? canonical;
    return canonical;
  } catch {
    return null;
  }
}

function mappedToV4(s: string): string | null {
  const rest = s.slice(7).split(":");
  if (rest.length !== 2) return null;
  const hi = parseInt(rest[0]!, 16);
  const lo = parseInt(rest[1]!, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** The 8 groups of an IPv6 address (canonical or not), or null. */
function ipv6Groups(addr: string): number[] | null {
  const c = canonicalIp(addr);
  if (c === null || isIPv4(c)) return null;
  const halves = c.split("::");
  if (halves.length > 2) return null;
  const head = halves[0] === "" ? [] : halves[0]!.split(":");
  const tail = halves.length === 2 && halves[1] !== "" ? halves[1]!.split(":") : [];
  const missing = 8 - head.length - tail.length;
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return null;
  const groups: number[] = [];
  for (const h of head) groups.push(parseInt(h, 16));
  for (let i = 0; i < missing; i++) groups.push(0);
  for (const t of tail) groups.push(parseInt(t, 16));
  return groups.length === 8 && groups.every((g) => g >= 0 && g <= 0xffff) ? groups : null;
}

/**
 * The IPv6 network of `addr` with the first `bits` bits (a multiple of 16), as `2001:db8:0:1::/64`;
 * IPv4 addresses and unparseable input come back unchanged. One IPv6 client usually owns a whole
 * /64, so per-address limits are easy to dodge; rate limits key on the /64 by default.
 */
export function ipv6Network(addr: string, bits: number): string {
  if (bits >= 128 || addr.indexOf(":") === -1) return addr;
  const groups = ipv6Groups(addr);
  if (groups === null) return addr;
  const keep = Math.max(0, Math.floor(bits / 16));
  return groups.slice(0, keep).map((g) => g.toString(16)).join(":") + "::/" + keep * 16;
}

function compileProxies(list: readonly string[]): BlockList {
  const bl = new BlockList();
  for (const item of list) {
    const slash = item.indexOf("/");
    const ip = canonicalIp(slash === -1 ? item : item.slice(0, slash));
    if (ip === null) throw new TypeError(`trustProxy.proxies: not an IP address or CIDR range: ${JSON.stringify(item)}`);
    const type = isIPv4(ip) ? "ipv4" : "ipv6";
    if (slash === -1) {
      bl.addAddress(ip, type);
    } else {
      const prefix = Number(item.slice(slash + 1));
      if (!Number.isInteger(prefix) || prefix < 0 || prefix > (type === "ipv4" ? 32 : 128)) {
        throw new TypeError(`trustProxy.proxies: bad prefix length in ${JSON.stringify(item)}`);
      }
      bl.addSubnet(ip, prefix, type);
    }
  }
  return bl;
}

/**
 * Build the resolver once, at startup. Without options it is the socket peer. With
 * `{ hops: n }` it is the n-th entry from the right of X-Forwarded-For (or `header`); when the
 * header has fewer entries, the leftmost one (all of them were appended by trusted proxies).
 *
 * @example
 * ```ts
 * const clientIp = clientAddressResolver({ hops: 1 }); // one load balancer in front
 * route.get("/ip", [context()], (ctx) => ({ ip: clientIp(ctx) }));
 * ```
 * @see docs/features/middleware.md
 */
export function clientAddressResolver(trust?: TrustProxyOptions): ClientAddressResolver {
  if (trust === undefined) return socketAddress;
  const hops = trust.hops;
  if (!Number.isInteger(hops) || hops < 1 || hops > 32) throw new TypeError("trustProxy.hops must be an integer from 1 to 32");
  const header = (trust.header ?? "x-forwarded-for").toLowerCase();
  const proxies = trust.proxies === undefined ? null : compileProxies(trust.proxies);
  return (ctx) => {
    const peer = socketAddress(ctx);
    if (proxies !== null && (peer === "" || !proxies.check(peer, isIPv4(peer) ? "ipv4" : "ipv6"))) return peer;
    const raw = ctx.header(header);
    if (raw === undefined || raw.length > 8192) return peer;
    // Walk from the right, `hops` entries at most: bounded work whatever the client sent.
    let end = raw.length;
    let entry = "";
    for (let i = 0; i < hops; i++) {
      const comma = raw.lastIndexOf(",", end - 1);
      entry = raw.slice(comma + 1, end);
      if (comma === -1) break;
      end = comma;
    }
    return canonicalIp(entry) ?? peer;
  };
}
