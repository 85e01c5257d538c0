// The one parser of Accept and Accept-Encoding (RFC 9110 §12.4.2, §12.5.1, §12.5.3), used by
// compression, static files, JSON/TOON negotiation and the metrics endpoint, and of
// Accept-Language (§12.5.4, keel/messages), read like Accept-Encoding. Rules, the same for
// all (Accept headers in the wild are messy, so each choice is written down):
//
// - One linear scan with charCodeAt, no regex, no slices: an element's names are compared in
//   place, case-insensitively. At most MAX_ACCEPT_ELEMENTS elements are looked at; the rest of
//   the header is ignored (bounded work on hostile input).
// - An element is a token (a content coding, `identity` or `*`) or a media range (`type/subtype`,
//   `type/*`, `*/*`), then `;name=value` parameters whose value is a token or a quoted string
//   (commas inside quotes do not split elements). Empty parameters (`a/b;;q=1`) are tolerated.
// - The weight is the first `q` parameter and must match qvalue = "0" [ "." 0*3DIGIT ] /
//   "1" [ "." 0*3("0") ]. An element whose q does not (`q=1e-1`, `q=.5`, `q=2`, `q=0.0001`,
//   `q="1"`) or that does not parse at all (`*/json`, `text`, `a/b;x`, `gzip/x`) is not an
//   element: it is ignored as a whole, as if the client had not sent it. Parameters after q are
//   accept-extensions, ignored. q=0 means "not acceptable".
// - A header with no valid element is treated as absent. Absent Accept means "anything" (`*/*`);
//   absent Accept-Encoding means identity only (no guessing: old clients and proxies omit it).
// - When several elements cover one thing, the most specific decides: for media types
//   `type/subtype` with parameters > `type/subtype` > `type/*` > `*/*`, for codings a named
//   coding > `*`. Among equally specific elements the first listed decides.
// - Media ranges: a `charset` parameter other than UTF-8 makes the range match nothing (keel
//   writes UTF-8); other parameters do not stop a range from matching, they only make it more
//   specific.
// - Codings: `x-gzip` is gzip. identity is acceptable unless `identity;q=0`, or `*;q=0` with no
//   `identity` element. A named identity competes by its q (it wins only when strictly higher);
//   an unnamed identity ranks below every acceptable coding. Ties between codings go to the
//   server's order.
//
// Allocation: a call makes one small scanner object (young and short-lived) and compares names in
// place; it slices strings only for parseAccept(), which returns them. A shared long-lived scanner
// measured ~1.7x slower (rankMediaTypes on `application/json`: ~250 ns against ~150 ns), likely
// the write barrier on every store of the young header string into an old object.
import { tokenEnd } from "./tchar.js";

/** Elements looked at per header; a longer header is cut off there. */
export const MAX_ACCEPT_ELEMENTS = 64;

const COMMA = 44;
const SEMI = 59;
const EQUALS = 61;
const DQUOTE = 34;
const BACKSLASH = 92;
const STAR = 42;
const SLASH = 47;

/** One media range of an Accept header, as parseAccept() returns it. */
export interface AcceptRange {
  /** Lowercased type, `*` for a wildcard. */
  readonly type: string;
  /** Lowercased subtype, `*` for a wildcard. */
  readonly subtype: string;
  /** Weight in [0, 1]; 0 means "not acceptable". */
  readonly q: number;
  /** 0 for `*\/*`, 1 for `type/*`, 2 for `type/subtype`, 3 for `type/subtype` with parameters. */
  readonly specificity: 0 | 1 | 2 | 3;
  /** Parameters other than q (lowercased names, unquoted values), null-prototype. */
  readonly parameters: Readonly<Record<string, string>>;
}

/** qvalue = "0" [ "." 0*3DIGIT ] / "1" [ "." 0*3("0") ], of `s` from `start` to `end`, in thousandths; -1 when malformed. */
export function parseQValue(s: string, start = 0, end = s.length): number {
  const n = end - start;
  if (n <= 0 || n > 5) return -1;
  const lead = s.charCodeAt(start);
  if (lead !== 48 && lead !== 49) return -1;
  if (n === 1) return lead === 49 ? 1000 : 0;
  if (s.charCodeAt(start + 1) !== 46 /* . */) return -1;
  let frac = 0;
  let scale = 100;
  for (let i = start + 2; i < end; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    frac += d * scale;
    scale /= 10;
  }
  if (lead === 49) return frac === 0 ? 1000 : -1;
  return frac;
}

/** Does `s[start, end)` equal `lower` (lowercase ASCII), ignoring ASCII case? */
function equalsLower(s: string, start: number, end: number, lower: string): boolean {
  const n = lower.length;
  if (end - start !== n) return false;
  for (let i = 0; i < n; i++) {
    let c = s.charCodeAt(start + i);
    if (c >= 65 && c <= 90) c += 32;
    if (c !== lower.charCodeAt(i)) return false;
  }
  return true;
}

function skipSpace(s: string, p: number): number {
  while (p < s.length) {
    const c = s.charCodeAt(p);
    if (c !== 32 && c !== 9) break;
    p++;
  }
  return p;
}

/** Index just past the closing quote of the quoted string opening at `p`, or -1 when unterminated. */
function skipQuoted(s: string, p: number): number {
  for (let i = p + 1; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === DQUOTE) return i + 1;
  }
  return -1;
}

function unquote(raw: string): string {
  if (raw.charCodeAt(0) !== DQUOTE) return raw;
  const inner = raw.slice(1, -1);
  if (!inner.includes("\\")) return inner;
  let out = "";
  for (let i = 0; i < inner.length; i++) {
    if (inner.charCodeAt(i) === BACKSLASH && i + 1 < inner.length) i++;
    out += inner[i];
  }
  return out;
}

/** Is the parameter value `s[start, end)` (token or quoted string) UTF-8? */
function isUtf8Value(s: string, start: number, end: number): boolean {
  if (s.charCodeAt(start) === DQUOTE) {
    const inner = s.slice(start, end);
    if (inner.includes("\\")) {
      const v = unquote(inner).toLowerCase();
      return v === "utf-8" || v === "utf8";
    }
    start++;
    end--;
  }
  return equalsLower(s, start, end, "utf-8") || equalsLower(s, start, end, "utf8");
}

/** Walks the elements of one Accept or Accept-Encoding header; `next()` stops on each valid one. */
class ElementScanner {
  private pos = 0;
  private seen = 0;
  /** The coding, or the media range's type, of the current element: `s[start, end)`. */
  start = 0;
  end = 0;
  /** The media range's subtype. */
  subStart = 0;
  subEnd = 0;
  /** Weight in thousandths (0..1000). */
  q = 1000;
  /** Media ranges: 0 `*\/*`, 1 `type/*`, 2 `type/subtype`, 3 with parameters. */
  specificity: 0 | 1 | 2 | 3 = 0;
  /** False when a charset parameter names something other than UTF-8. */
  utf8 = true;
  /** Parameters before q (collect mode only). */
  params: Record<string, string> | null = null;

  /** Scans `s`: media ranges (Accept, `media`) or codings (Accept-Encoding); `collect` keeps parameters. */
  constructor(
    private readonly s: string,
    private readonly media: boolean,
    private readonly collect = false,
  ) {}

  next(): boolean {
    const s = this.s;
    while (this.seen < MAX_ACCEPT_ELEMENTS) {
      let p = this.pos;
      while (p < s.length) {
        const c = s.charCodeAt(p);
        if (c !== COMMA && c !== 32 && c !== 9) break;
        p++;
      }
      if (p >= s.length) {
        this.pos = p;
        return false;
      }
      this.seen++;
      const end = this.read(p);
      if (end >= 0) {
        this.pos = end;
        return true;
      }
      this.pos = this.skipElement(-end - 1);
    }
    return false;
  }

  /** Is the current element the single token `*`? */
  isStar(): boolean {
    return this.end - this.start === 1 && this.s.charCodeAt(this.start) === STAR;
  }

  /** Is the current element's coding `lower` (x-gzip counting as gzip)? */
  isCoding(lower: string): boolean {
    return equalsLower(this.s, this.start, this.end, lower) || (lower === "gzip" && equalsLower(this.s, this.start, this.end, "x-gzip"));
  }

  /** Is the current media range's type `lower`? */
  typeIs(lower: string): boolean {
    return equalsLower(this.s, this.start, this.end, lower);
  }

  /** Is the current media range's subtype `lower`? */
  subtypeIs(lower: string): boolean {
    return equalsLower(this.s, this.subStart, this.subEnd, lower);
  }

  text(start: number, end: number): string {
    return this.s.slice(start, end).toLowerCase();
  }

  /** Past the next top-level comma (quoted strings skipped), from `p`. */
  private skipElement(p: number): number {
    const s = this.s;
    while (p < s.length) {
      const c = s.charCodeAt(p);
      if (c === COMMA) return p + 1;
      if (c === DQUOTE) {
        const q = skipQuoted(s, p);
        if (q < 0) return s.length;
        p = q;
      } else p++;
    }
    return p;
  }

  /** Reads one element at `p`: its end on success, or `-(failure position) - 1`. */
  private read(p: number): number {
    const s = this.s;
    const start = p;
    const nameEnd = tokenEnd(s, p);
    if (nameEnd === p) return -nameEnd - 1;
    let subStart = nameEnd;
    let subEnd = nameEnd;
    let specificity: 0 | 1 | 2 | 3 = 2;
    if (this.media) {
      if (s.charCodeAt(nameEnd) !== SLASH) return -nameEnd - 1;
      subStart = nameEnd + 1;
      subEnd = tokenEnd(s, subStart);
      if (subEnd === subStart) return -subEnd - 1;
      const typeWild = nameEnd - p === 1 && s.charCodeAt(p) === STAR;
      const subWild = subEnd - subStart === 1 && s.charCodeAt(subStart) === STAR;
      if (typeWild && !subWild) return -subEnd - 1;
      specificity = typeWild ? 0 : subWild ? 1 : 2;
    }
    let q = 1000;
    let qSeen = false;
    let paramCount = 0;
    let utf8 = true;
    const params: Record<string, string> | null = this.collect ? (Object.create(null) as Record<string, string>) : null;
    p = subEnd;
    for (;;) {
      p = skipSpace(s, p);
      if (p >= s.length || s.charCodeAt(p) === COMMA) break;
      if (s.charCodeAt(p) !== SEMI) return -p - 1;
      p = skipSpace(s, p + 1);
      if (p >= s.length || s.charCodeAt(p) === COMMA || s.charCodeAt(p) === SEMI) continue;
      const pNameEnd = tokenEnd(s, p);
      if (pNameEnd === p || s.charCodeAt(pNameEnd) !== EQUALS) return -pNameEnd - 1;
      const valueStart = pNameEnd + 1;
      let valueEnd: number;
      if (s.charCodeAt(valueStart) === DQUOTE) {
        valueEnd = skipQuoted(s, valueStart);
        if (valueEnd < 0) return -s.length - 1;
      } else {
        valueEnd = tokenEnd(s, valueStart);
        if (valueEnd === valueStart) return -valueEnd - 1;
      }
      if (!qSeen) {
        if (pNameEnd - p === 1 && (s.charCodeAt(p) | 32) === 113 /* q */) {
          qSeen = true;
          q = parseQValue(s, valueStart, valueEnd);
          if (q < 0) return -valueEnd - 1;
        } else if (this.media) {
          paramCount++;
          if (equalsLower(s, p, pNameEnd, "charset") && !isUtf8Value(s, valueStart, valueEnd)) utf8 = false;
          if (params !== null) params[s.slice(p, pNameEnd).toLowerCase()] = unquote(s.slice(valueStart, valueEnd));
        }
      }
      p = valueEnd;
    }
    this.start = start;
    this.end = nameEnd;
    this.subStart = subStart;
    this.subEnd = subEnd;
    this.q = q;
    this.specificity = specificity === 2 && paramCount > 0 ? 3 : specificity;
    this.utf8 = utf8;
    this.params = params;
    return p;
  }
}

/** The valid media ranges of an Accept header, in order (empty when absent or unusable). */
export function parseAccept(header: string | undefined): AcceptRange[] {
  const out: AcceptRange[] = [];
  if (header === undefined || header === "") return out;
  const scan = new ElementScanner(header, true, true);
  while (scan.next()) {
    out.push({
      type: scan.text(scan.start, scan.end),
      subtype: scan.text(scan.subStart, scan.subEnd),
      q: scan.q / 1000,
      specificity: scan.specificity,
      parameters: scan.params ?? (Object.create(null) as Record<string, string>),
    });
  }
  return out;
}

/**
 * Rank concrete media types (lowercase `types[i]/subtypes[i]`) against an Accept header: fills
 * `q[i]` (thousandths) and `spec[i]` (specificity of the deciding range, -1 when none matched).
 * Without a valid range, all get q=1000, spec=0, as if the header were `*\/*`. Allocates nothing:
 * callers on the request path keep their candidate and result arrays.
 */
export function rankMediaTypes(header: string | undefined, types: readonly string[], subtypes: readonly string[], q: Int16Array, spec: Int8Array): void {
  const n = types.length;
  for (let i = 0; i < n; i++) {
    q[i] = 0;
    spec[i] = -1;
  }
  let any = false;
  if (header !== undefined && header !== "") {
    const scan = new ElementScanner(header, true);
    while (scan.next()) {
      any = true;
      if (!scan.utf8) continue;
      const sp = scan.specificity;
      // Candidates usually share types (application/json, application/toon): compare each once per range.
      let lastType = "";
      let typeOk = false;
      for (let i = 0; i < n; i++) {
        if (sp <= spec[i]!) continue;
        if (sp > 0) {
          const t = types[i]!;
          if (t !== lastType) {
            lastType = t;
            typeOk = scan.typeIs(t);
          }
          if (!typeOk || (sp > 1 && !scan.subtypeIs(subtypes[i]!))) continue;
        }
        spec[i] = sp;
        q[i] = scan.q;
      }
    }
    }
  if (!any) {
    for (let i = 0; i < n; i++) {
      q[i] = 1000;
      spec[i] = 0;
    }
  }
}

function splitMediaType(mediaType: string): [string, string] {
  const semi = mediaType.indexOf(";");
  const essence = (semi === -1 ? mediaType : mediaType.slice(0, semi)).trim().toLowerCase();
  const slash = essence.indexOf("/");
  if (slash <= 0 || slash === essence.length - 1) throw new TypeError(`not a media type: ${JSON.stringify(mediaType)}`);
  return [essence.slice(0, slash), essence.slice(slash + 1)];
}

const oneQ = new Int16Array(1);
const oneSpec = new Int8Array(1);

/** The quality (0..1) an Accept header gives a concrete media type such as `application/json`. */
export function acceptQuality(header: string | undefined, mediaType: string): number {
  const [type, subtype] = splitMediaType(mediaType);
  rankMediaTypes(header, [type], [subtype], oneQ, oneSpec);
  return oneQ[0]! / 1000;
}

/**
 * The best of `available` (concrete media types, the server's preference first) for an Accept
 * header, or undefined when none is acceptable. Highest q wins; ties go to the type matched by
 * the more specific range, then to the earlier entry of `available`.
 */
export function selectMediaType(header: string | undefined, available: readonly string[]): string | undefined {
  const n = available.length;
  if (n === 0) return undefined;
  const types: string[] = [];
  const subtypes: string[] = [];
  for (const m of available) {
    const [type, subtype] = splitMediaType(m);
    types.push(type);
    subtypes.push(subtype);
  }
  const q = new Int16Array(n);
  const spec = new Int8Array(n);
  rankMediaTypes(header, types, subtypes, q, spec);
  let best = -1;
  for (let i = 0; i < n; i++) {
    if (q[i]! === 0) continue;
    if (best < 0 || q[i]! > q[best]! || (q[i]! === q[best]! && spec[i]! > spec[best]!)) best = i;
  }
  return best < 0 ? undefined : available[best];
}

/** Per candidate coding of selectEncoding: its q in thousandths, -1 while no element named it. Shared: the call is synchronous. */
let codingQ = new Int16Array(8);

/**
 * The content coding to use for an Accept-Encoding header, from `available` (lowercase coding
 * names such as "br", "gzip", "deflate", in the server's order of preference, which breaks ties),
 * or null for identity: no header, nothing acceptable, or identity named with a higher q than
 * every available coding. See the rules at the top of this file.
 */
export function selectEncoding<T extends string>(header: string | undefined, available: readonly T[]): T | null {
  if (header === undefined || header === "") return null;
  const n = available.length;
  if (codingQ.length < n) codingQ = new Int16Array(n);
  const q = codingQ;
  for (let i = 0; i < n; i++) q[i] = -1;
  let star = -1;
  let identity = -1;
  const scan = new ElementScanner(header, false);
  while (scan.next()) {
    if (scan.isStar()) {
      if (star < 0) star = scan.q;
    } else if (scan.isCoding("identity")) {
      if (identity < 0) identity = scan.q;
    } else {
      for (let i = 0; i < n; i++) if (q[i]! < 0 && scan.isCoding(available[i]!)) q[i] = scan.q;
    }
  }
  let best = -1;
  let bestQ = 0;
  for (let i = 0; i < n; i++) {
    const v = q[i]! >= 0 ? q[i]! : star >= 0 ? star : 0;
    if (v > bestQ) {
      best = i;
      bestQ = v;
    }
  }
  if (best < 0 || identity > bestQ) return null;
  return available[best]!;
}

/** Is the identity coding (no content coding) acceptable? False only for `identity;q=0`, or `*;q=0` with no identity element. */
export function acceptsIdentity(header: string | undefined): boolean {
  if (header === undefined || header === "") return true;
  let star = -1;
  let identity = -1;
  const scan = new ElementScanner(header, false);
  while (scan.next()) {
    if (scan.isStar()) {
      if (star < 0) star = scan.q;
    } else if (identity < 0 && scan.isCoding("identity")) identity = scan.q;
  }
  return identity >= 0 ? identity > 0 : star !== 0;
}

/** The tag of `available` (lowercase) that the language range `s[start, end)` picks, or -1. */
function matchLanguage(s: string, start: number, end: number, available: readonly string[]): number {
  for (let i = 0; i < available.length; i++) if (equalsLower(s, start, end, available[i]!)) return i;
  // Basic filtering (RFC 4647 §3.3.1): `de` matches `de-ch`.
  for (let i = 0; i < available.length; i++) {
    const tag = available[i]!;
    if (tag.length > end - start && tag.charCodeAt(end - start) === 45 /* - */ && equalsLower(s, start, end, tag.slice(0, end - start))) return i;
  }
  // Lookup's fallback (RFC 4647 §3.4): `de-ch-1996` tries `de-ch`, then `de`.
  for (let cut = end - 1; cut > start; cut--) {
    if (s.charCodeAt(cut) !== 45) continue;
    for (let i = 0; i < available.length; i++) if (equalsLower(s, start, cut, available[i]!)) return i;
  }
  return -1;
}

/**
 * The best of `available` (lowercase language tags such as "en", "de", "de-ch") for an
 * Accept-Language header (RFC 9110 §12.5.4), or undefined: no header, no usable range, only `*`,
 * or nothing matched (the caller answers in its default language). Elements are parsed as the
 * codings of Accept-Encoding are (a language range is a token; the q rules above). The highest q
 * wins, the earlier element on a tie; a range matches a tag equal to it, then a tag it is a prefix
 * of (`de` picks `de-ch`), then its own prefixes (`de-ch` picks `de`). q=0 ranges are skipped.
 */
export function selectLanguage(header: string | undefined, available: readonly string[]): string | undefined {
  if (header === undefined || header === "") return undefined;
  let best = -1;
  let bestQ = 0;
  const scan = new ElementScanner(header, false);
  while (scan.next()) {
    if (scan.q <= bestQ || scan.isStar()) continue;
    const i = matchLanguage(header, scan.start, scan.end, available);
    if (i >= 0) {
      best = i;
      bestQ = scan.q;
    }
  }
  return best < 0 ? undefined : available[best];
}
