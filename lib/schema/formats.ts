// The string formats keel asserts. Every check is a hand-written scan or an anchored regex without
// ambiguous nested quantifiers, so hostile input costs linear time. Unknown formats are ignored.

export type SchemaFormatCheck = (value: string) => boolean;

const D = "[0-9]"; // ASCII digits only: \d would be fine in JS, but say it plainly
const DATE_RE = new RegExp(`^(${D}{4})-(${D}{2})-(${D}{2})$`);
const TIME_RE = new RegExp(`^(${D}{2}):(${D}{2}):(${D}{2})(?:\\.${D}+)?(?:([zZ])|([+-])(${D}{2}):(${D}{2}))$`);
const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const IPV4_RE = /^(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(?:\.(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}$/;
const HEX_GROUP_RE = /^[0-9a-fA-F]{1,4}$/;
const ATEXT_RE = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const QUOTED_LOCAL_RE = /^"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\[\x20-\x7e])*"$/;
const SCHEME_RE = /^[A-Za-z][A-Za-z0-9+.-]*:/;
// pchar plus "/" and "?" (path, query and fragment differ only in which of these they allow).
const PCHARS_RE = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*$/;
const USERINFO_RE = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:]|%[0-9A-Fa-f]{2})*$/;
const REG_NAME_RE = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/;
const IPVFUTURE_RE = /^[vV][0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+$/;

export const MAX_FORMAT_LENGTH = 8192;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

export function isDate(s: string): boolean {
  const m = DATE_RE.exec(s);
  if (m === null) return false;
  const month = Number(m[2]);
  const day = Number(m[3]);
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(Number(m[1]), month);
}

export function isTime(s: string): boolean {
  const m = TIME_RE.exec(s);
  if (m === null) return false;
  const h = Number(m[1]), min = Number(m[2]), sec = Number(m[3]);
  if (h > 23 || min > 59 || sec > 60) return false;
  let offset = 0;
  if (m[4] === undefined) {
    const oh = Number(m[6]), om = Number(m[7]);
    if (oh > 23 || om > 59) return false;
    offset = (m[5] === "+" ? 1 : -1) * (oh * 60 + om);
  }
  if (sec === 60) {
    // A leap second is only valid at 23:59 UTC.
    const utc = (((h * 60 + min - offset) % 1440) + 1440) % 1440;
    return utc === 23 * 60 + 59;
  }
  return true;
}

export function isDateTime(s: string): boolean {
  const t = s.length > 10 ? s.charCodeAt(10) : 0;
  if (t !== 84 && t !== 116) return false; // "T" or "t"
  return isDate(s.slice(0, 10)) && isTime(s.slice(11));
}

export function isIpv4(s: string): boolean {
  return IPV4_RE.test(s);
}

export function isIpv6(s: string): boolean {
  if (s.length > 45 || s.length < 2) return false;
  const halves = s.split("::");
  if (halves.length > 2) return false;
  const groups: string[] = [];
  for (const half of halves) if (half !== "") groups.push(...half.split(":"));
  let count = 0;
  for (let i = 0; i < groups.length; i++) {
    const g = groups[i] as string;
    if (i === groups.length - 1 && g.includes(".")) {
      if (!isIpv4(g)) return false;
      count += 2;
    } else if (HEX_GROUP_RE.test(g)) count += 1;
    else return false;
  }
  return halves.length === 2 ? count <= 7 : count === 8;
}

export function isHostname(s: string): boolean {
  if (s.length === 0 || s.length > 253) return false;
  for (const label of s.split(".")) {
    if (label.length === 0 || label.length > 63) return false;
    for (let i = 0; i < label.length; i++) {
      const c = label.charCodeAt(i);
      const alnum = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
      if (!alnum && (c !== 45 || i === 0 || i === label.length - 1)) return false;
    }
    // "--" in positions 3-4 is reserved for A-labels (IDNA): only "xn--" with valid punycode.
    if (label.length >= 4 && label[2] === "-" && label[3] === "-") {
      if (label.slice(0, 2).toLowerCase() !== "xn" || !isALabel(label.slice(4))) return false;
    }
  }
  return true;
}

/** RFC 3492 punycode decoding; null when the input is not valid punycode. */
function decodePunycode(input: string): number[] | null {
  const base = 36, tMin = 1, tMax = 26, skew = 38, damp = 700;
  const lastDash = input.lastIndexOf("-");
  if (lastDash === 0 || input.length === 0) return null;
  const out: number[] = [];
  for (let j = 0; j < lastDash; j++) {
    const c = input.charCodeAt(j);
    if (c >= 0x80) return null;
    out.push(c);
  }
  let n = 128, i = 0, bias = 72;
  for (let pos = lastDash < 0 ? 0 : lastDash + 1; pos < input.length; ) {
    const oldi = i;
    for (let w = 1, k = base; ; k += base) {
      if (pos >= input.length) return null;
      const c = input.charCodeAt(pos++);
      const digit = c >= 48 && c <= 57 ? c - 22 : c >= 65 && c <= 90 ? c - 65 : c >= 97 && c <= 122 ? c - 97 : base;
      if (digit >= base) return null;
      i += digit * w;
      const th = k <= bias ? tMin : k >= bias + tMax ? tMax : k - bias;
      if (digit < th) break;
      w *= base - th;
      if (w > 0x7fffffff) return null;
    }
    const count = out.length + 1;
    let delta = oldi === 0 ? Math.floor((i - oldi) / damp) : (i - oldi) >> 1;
    delta += Math.floor(delta / count);
    let k = 0;
    while (delta > ((base - tMin) * tMax) >> 1) {
      delta = Math.floor(delta / (base - tMin));
      k += base;
    }
    bias = k + Math.floor(((base - tMin + 1) * delta) / (delta + skew));
    n += Math.floor(i / count);
    i %= count;
    if (n > 0x10ffff || i > 0x7fffffff) return null;
    out.splice(i, 0, n);
    i += 1;
  }
  return out.length > 0 ? out : null;
}

// Code points that need context (RFC 5892 appendix A) or are DISALLOWED exceptions (section 2.6).
const DISALLOWED_EXCEPTIONS = new Set([0x0640, 0x07fa, 0x302e, 0x302f, 0x3031, 0x3032, 0x3033, 0x3034, 0x3035, 0x303b]);
const VIRAMAS = new Set([0x094d, 0x09cd, 0x0a4d, 0x0acd, 0x0b4d, 0x0bcd, 0x0c4d, 0x0ccd, 0x0d3b, 0x0d3c, 0x0d4d, 0x0dca,
  0x0e3a, 0x0f84, 0x1039, 0x103a, 0x1714, 0x1734, 0x17d2, 0x1a60, 0x1b44, 0x1baa, 0x1bab, 0x1bf2, 0x1bf3, 0x2d7f, 0xa806,
  0xa8c4, 0xa953, 0xa9c0, 0xaaf6, 0xabed, 0x10a3f, 0x11046, 0x1107f, 0x110b9, 0x11133, 0x11134, 0x111c0, 0x11235,
  0x112ea, 0x1134d, 0x11442, 0x114c2, 0x115bf, 0x1163f, 0x116b6, 0x1172b, 0x11839, 0x119e0, 0x11a34, 0x11a47, 0x11a99,
  0x11c3f, 0x11d44, 0x11d45, 0x11d97]);
const MARK_RE = /^\p{M}$/u;
const GREEK_RE = /^\p{Script=Greek}$/u;
const HEBREW_RE = /^\p{Script=Hebrew}$/u;
const KANA_HAN_RE = /[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}]/u;

/**
 * An A-label ("xn--..."): valid punycode whose U-label passes the IDNA2008 context rules of
 * RFC 5892 (CONTEXTJ for ZWJ, CONTEXTO) and avoids its DISALLOWED exceptions. The full
 * PVALID code-point table is not included; this is a syntax-and-context check.
 */
function isALabel(encoded: string): boolean {
  const cps = decodePunycode(encoded);
  if (cps === null) return false;
  const ch = (i: number): string => (i >= 0 && i < cps.length ? String.fromCodePoint(cps[i] as number) : "");
  if (cps[2] === 0x2d && cps[3] === 0x2d) return false;
  if (MARK_RE.test(ch(0))) return false;
  let arabicIndic = false, extendedArabicIndic = false;
  for (let i = 0; i < cps.length; i++) {
    const c = cps[i] as number;
    if (DISALLOWED_EXCEPTIONS.has(c)) return false;
    if (c === 0x00b7 && (cps[i - 1] !== 0x6c || cps[i + 1] !== 0x6c)) return false;
    if (c === 0x0375 && !GREEK_RE.test(ch(i + 1))) return false;
    if ((c === 0x05f3 || c === 0x05f4) && !HEBREW_RE.test(ch(i - 1))) return false;
    if (c === 0x30fb && !KANA_HAN_RE.test(String.fromCodePoint(...cps.filter((x) => x !== 0x30fb)))) return false;
    if (c === 0x200d && !VIRAMAS.has(cps[i - 1] ?? -1)) return false;
    if (c >= 0x0660 && c <= 0x0669) arabicIndic = true;
    if (c >= 0x06f0 && c <= 0x06f9) extendedArabicIndic = true;
  }
  return !(arabicIndic && extendedArabicIndic);
}

// The usual `dot.atom@host.name`: one linear regex (each repeated group starts with "."), then the
// label rules (no edge hyphens, at most 63 characters, A-labels) only when a hyphen or a long
// domain makes them matter. Quoted local parts and address literals take the long way.
const EMAIL_FAST_RE = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*$/;

export function isEmail(s: string): boolean {
  if (s.length > 254) return false;
  if (EMAIL_FAST_RE.test(s)) {
    const at = s.indexOf("@");
    if (at > 64) return false;
    return (s.length - at <= 64 && s.indexOf("-", at) < 0) || isHostname(s.slice(at + 1));
  }
  const at = s.lastIndexOf("@");
  if (at <= 0 || at === s.length - 1 || at > 64) return false;
  // Quoted local parts and address literals are rare: the long way.
  const local = s.slice(0, at);
  const domain = s.slice(at + 1);
  if (!ATEXT_RE.test(local) && !QUOTED_LOCAL_RE.test(local)) return false;
  if (domain.startsWith("[") && domain.endsWith("]")) {
    const literal = domain.slice(1, -1);
    return literal.startsWith("IPv6:") ? isIpv6(literal.slice(5)) : isIpv4(literal);
  }
  return isHostname(domain);
}

function isAuthority(authority: string): boolean {
  const at = authority.lastIndexOf("@");
  if (at >= 0 && !USERINFO_RE.test(authority.slice(0, at))) return false;
  let hostPort = authority.slice(at + 1);
  if (hostPort.startsWith("[")) {
    const close = hostPort.indexOf("]");
    if (close < 0) return false;
    const literal = hostPort.slice(1, close);
    if (!isIpv6(literal) && !IPVFUTURE_RE.test(literal)) return false;
    hostPort = hostPort.slice(close + 1);
    return hostPort === "" || /^:[0-9]*$/.test(hostPort);
  }
  const colon = hostPort.lastIndexOf(":");
  if (colon >= 0) {
    if (!/^[0-9]*$/.test(hostPort.slice(colon + 1))) return false;
    hostPort = hostPort.slice(0, colon);
  }
  return REG_NAME_RE.test(hostPort);
}

/** RFC 3986 URI-reference; `absolute` requires a scheme (format "uri"). */
function isUriReference(s: string, absolute: boolean): boolean {
  if (s.length > MAX_FORMAT_LENGTH) return false;
  let rest = s;
  const hash = rest.indexOf("#");
  if (hash >= 0) {
    if (!PCHARS_RE.test(rest.slice(hash + 1))) return false;
    rest = rest.slice(0, hash);
  }
  const query = rest.indexOf("?");
  if (query >= 0) {
    if (!PCHARS_RE.test(rest.slice(query + 1))) return false;
    rest = rest.slice(0, query);
  }
  const scheme = SCHEME_RE.exec(rest);
  if (scheme !== null) rest = rest.slice(scheme[0].length);
  else if (absolute) return false;
  if (rest.startsWith("//")) {
    const slash = rest.indexOf("/", 2);
    const authority = slash < 0 ? rest.slice(2) : rest.slice(2, slash);
    if (!isAuthority(authority)) return false;
    rest = slash < 0 ? "" : rest.slice(slash);
  } else if (scheme === null) {
    // path-noscheme: the first segment of a relative path may not contain ":".
    const slash = rest.indexOf("/");
    if ((slash < 0 ? rest : rest.slice(0, slash)).includes(":")) return false;
  }
  return !rest.includes("?") && PCHARS_RE.test(rest);
}

export function isUri(s: string): boolean {
  return isUriReference(s, true);
}

/**
 * The formats the kernel asserts: the common four (email, uuid, date-time, uri) and those whose code
 * they are built from anyway (email needs hostname and the IP literals, date-time needs date and
 * time, uri needs uri-reference). keel/schema adds the rest (ENGINE_FORMATS).
 */
export const commonFormats: ReadonlyMap<string, SchemaFormatCheck> = new Map<string, SchemaFormatCheck>([
  ["email", isEmail],
  ["uuid", (s) => UUID_RE.test(s)],
  ["date-time", isDateTime],
  ["date", isDate],
  ["time", isTime],
  ["uri", isUri],
  ["uri-reference", (s) => isUriReference(s, false)],
  ["ipv4", isIpv4],
  ["ipv6", isIpv6],
  ["hostname", isHostname],
]);

/** Formats only keel/schema asserts: without it, a schema naming one is refused, never left unchecked. */
export const ENGINE_FORMATS: readonly string[] = ["duration", "regex", "json-pointer"];
