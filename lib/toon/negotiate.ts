// Accept header parsing and media-type selection (RFC 9110 §12.5.1), and the JSON-or-TOON choice
// made for negotiated replies.
//
// Parsing rules (documented, because Accept headers in the wild are messy):
// - One linear scan, no regex. At most MAX_ACCEPT_RANGES ranges are looked at; the rest of the
//   header is ignored. Types and parameter names are case-insensitive.
// - A range is `type/subtype` (or `type/*`, `*/*`) followed by `;name=value` parameters, where a
//   value is a token or a quoted string (commas inside quotes do not split ranges).
// - The weight is the first `q` parameter: `0`..`1` with at most three decimals. A range whose q
//   is malformed (`q=2`, `q=0.5555`, `q=abc`, `q=""`) is ignored as a whole, as is any range that
//   does not parse (`*/json`, `text`, `a/b;x`). Parameters after q are accept-extensions: ignored.
// - Other parameters make a range more specific. `charset` is checked (only utf-8 matches, since
//   keel writes UTF-8); any other parameter does not stop a range from matching.
// - For a concrete type, the most specific matching range decides its quality (`application/toon`
//   beats `application/*` beats `*/*`; with parameters beats without); among equally specific
//   ranges the first listed wins. q=0 means "not acceptable".
// - No Accept header, an empty one, or one with no usable range at all means "anything" (`*/*`).

/** Ranges looked at per header; a longer header is cut off there (bounded work on hostile input). */
export const MAX_ACCEPT_RANGES = 64;

export const JSON_MEDIA_TYPE = "application/json";
export const TOON_MEDIA_TYPE = "application/toon";
/** The provisional media type of the TOON spec; accepted as an alias of application/toon. */
export const TOON_TEXT_MEDIA_TYPE = "text/toon";
/** Media types a TOON body or reply may carry, the primary one first. */
export const TOON_MEDIA_TYPES: readonly string[] = Object.freeze([TOON_MEDIA_TYPE, TOON_TEXT_MEDIA_TYPE]);

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

// RFC 9110 tchar: ALPHA DIGIT ! # $ % & ' * + - . ^ _ ` | ~
const TCHAR = new Uint8Array(128);
for (let c = 48; c <= 57; c++) TCHAR[c] = 1;
for (let c = 65; c <= 90; c++) TCHAR[c] = 1;
for (let c = 97; c <= 122; c++) TCHAR[c] = 1;
for (const ch of "!#$%&'*+-.^_`|~") TCHAR[ch.charCodeAt(0)] = 1;

const COMMA = 44;
const SEMI = 59;
const EQUALS = 61;
const DQUOTE = 34;
const BACKSLASH = 92;
const STAR = 42;

function isTchar(c: number): boolean {
  return c < 128 && TCHAR[c] === 1;
}

function skipSpace(s: string, p: number): number {
  while (p < s.length) {
    const c = s.charCodeAt(p);
    if (c !== 32 && c !== 9) break;
    p++;
  }
  return p;
}

function skipToken(s: string, p: number): number {
  while (p < s.length && isTchar(s.charCodeAt(p))) p++;
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

/** qvalue = ("0" ["." 0*3DIGIT]) / ("1" ["." 0*3"0"]), in thousandths; -1 when malformed. */
function parseQValue(s: string): number {
  const n = s.length;
  if (n === 0 || n > 5) return -1;
  const lead = s.charCodeAt(0);
  if (lead !== 48 && lead !== 49) return -1;
  if (n === 1) return lead === 49 ? 1000 : 0;
  if (s.charCodeAt(1) !== 46 /* . */) return -1;
  let frac = 0;
  let scale = 100;
  for (let i = 2; i < n; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    frac += d * scale;
    scale /= 10;
  }
  if (lead === 49) return frac === 0 ? 1000 : -1;
  return frac;
}

/** Walks the media ranges of one Accept header; `next()` stops on each well-formed range. */
class AcceptScanner {
  type = "";
  subtype = "";
  /** Weight in thousandths (0..1000). */
  q = 1000;
  specificity: 0 | 1 | 2 | 3 = 0;
  /** False when a charset parameter names something other than UTF-8. */
  utf8 = true;
  parameters: Record<string, string> | null = null;
  private pos = 0;
  private seen = 0;

  constructor(private readonly s: string, private readonly collect: boolean) {}

  next(): boolean {
    const s = this.s;
    while (this.seen < MAX_ACCEPT_RANGES) {
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
      const end = this.readRange(p);
      if (end >= 0) {
        this.pos = end;
        return true;
      }
      this.pos = this.skipRange(-end - 1);
    }
    return false;
  }

  /** Past the next top-level comma (quoted strings skipped), from `p`. */
  private skipRange(p: number): number {
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

  /** Reads one range at `p`: its end on success, or `-(failure position) - 1`. */
  private readRange(p: number): number {
    const s = this.s;
    const typeEnd = skipToken(s, p);
    if (typeEnd === p || s.charCodeAt(typeEnd) !== 47 /* / */) return -typeEnd - 1;
    const subStart = typeEnd + 1;
    const subEnd = skipToken(s, subStart);
    if (subEnd === subStart) return -subEnd - 1;
    const type = s.slice(p, typeEnd).toLowerCase();
    const subtype = s.slice(subStart, subEnd).toLowerCase();
    const typeWild = type === "*";
    const subWild = subtype === "*";
    if (typeWild && !subWild) return -subEnd - 1;
    let q = 1000;
    let qSeen = false;
    let paramCount = 0;
    let utf8 = true;
    let params: Record<string, string> | null = this.collect ? (Object.create(null) as Record<string, string>) : null;
    p = subEnd;
    for (;;) {
      p = skipSpace(s, p);
      if (p >= s.length || s.charCodeAt(p) === COMMA) break;
      if (s.charCodeAt(p) !== SEMI) return -p - 1;
      p = skipSpace(s, p + 1);
      // Tolerate empty parameters (`a/b;`, `a/b;;q=1`).
      if (p >= s.length || s.charCodeAt(p) === COMMA || s.charCodeAt(p) === SEMI) continue;
      const nameEnd = skipToken(s, p);
      if (nameEnd === p || s.charCodeAt(nameEnd) !== EQUALS) return -nameEnd - 1;
      const valueStart = nameEnd + 1;
      let valueEnd: number;
      if (s.charCodeAt(valueStart) === DQUOTE) {
        valueEnd = skipQuoted(s, valueStart);
        if (valueEnd < 0) return -s.length - 1;
      } else {
        valueEnd = skipToken(s, valueStart);
        if (valueEnd === valueStart) return -valueEnd - 1;
      }
      if (!qSeen) {
        const name = s.slice(p, nameEnd).toLowerCase();
        if (name === "q") {
          qSeen = true;
          q = parseQValue(s.slice(valueStart, valueEnd));
          if (q < 0) return -valueEnd - 1;
        } else {
          paramCount++;
          if (name === "charset" || params !== null) {
            const value = unquote(s.slice(valueStart, valueEnd));
            if (name === "charset") {
              const cs = value.toLowerCase();
              if (cs !== "utf-8" && cs !== "utf8") utf8 = false;
            }
            if (params !== null) params[name] = value;
          }
        }
      }
      p = valueEnd;
    }
    this.type = type;
    this.subtype = subtype;
    this.q = q;
    this.specificity = typeWild ? 0 : subWild ? 1 : paramCount > 0 ? 3 : 2;
    this.utf8 = utf8;
    this.parameters = params;
    return p;
  }

  /** Does the current range cover `type/subtype` (lowercase, UTF-8)? */
  matches(type: string, subtype: string): boolean {
    if (!this.utf8) return false;
    if (this.specificity === 0) return true;
    if (this.type !== type) return false;
    return this.specificity === 1 || this.subtype === subtype;
  }
}

/** The well-formed ranges of an Accept header, in order (empty when absent or unusable). */
export function parseAccept(header: string | undefined): AcceptRange[] {
  const out: AcceptRange[] = [];
  if (header === undefined || header === "") return out;
  const scan = new AcceptScanner(header, true);
  while (scan.next()) {
    out.push({
      type: scan.type,
      subtype: scan.subtype,
      q: scan.q / 1000,
      specificity: scan.specificity,
      parameters: scan.parameters ?? (Object.create(null) as Record<string, string>),
    });
  }
  return out;
}

/**
 * Rank candidate types against a header: fills `q` (thousandths) and `spec` (specificity of the
 * deciding range, -1 when none matched) per candidate. Without a usable range, all get q=1000,
 * spec=0, as if the header were `*\/*`.
 */
function rankCandidates(header: string | undefined, types: readonly string[], subtypes: readonly string[], q: Int16Array, spec: Int8Array): void {
  const n = types.length;
  for (let i = 0; i < n; i++) {
    q[i] = 0;
    spec[i] = -1;
  }
  let any = false;
  if (header !== undefined && header !== "") {
    const scan = new AcceptScanner(header, false);
    while (scan.next()) {
      any = true;
      for (let i = 0; i < n; i++) {
        if (scan.specificity > spec[i]! && scan.matches(types[i]!, subtypes[i]!)) {
          spec[i] = scan.specificity;
          q[i] = scan.q;
        }
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
  const essence = mediaType.split(";", 1)[0]!.trim().toLowerCase();
  const slash = essence.indexOf("/");
  if (slash <= 0 || slash === essence.length - 1) throw new TypeError(`not a media type: ${JSON.stringify(mediaType)}`);
  return [essence.slice(0, slash), essence.slice(slash + 1)];
}

/** The quality (0..1) an Accept header gives a concrete media type such as `application/json`. */
export function acceptQuality(header: string | undefined, mediaType: string): number {
  const [type, subtype] = splitMediaType(mediaType);
  const q = new Int16Array(1);
  rankCandidates(header, [type], [subtype], q, new Int8Array(1));
  return q[0]! / 1000;
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
  rankCandidates(header, types, subtypes, q, spec);
  let best = -1;
  for (let i = 0; i < n; i++) {
    if (q[i]! === 0) continue;
    if (best < 0 || q[i]! > q[best]! || (q[i]! === q[best]! && spec[i]! > spec[best]!)) best = i;
  }
  return best < 0 ? undefined : available[best];
}

export type ResponseFormat = "json" | "toon";

export interface FormatChoice {
  readonly format: ResponseFormat;
  /** The media type to answer with: application/json, application/toon or text/toon. */
  readonly mediaType: string;
}

const JSON_CHOICE: FormatChoice = Object.freeze({ format: "json", mediaType: JSON_MEDIA_TYPE });
const TOON_CHOICE: FormatChoice = Object.freeze({ format: "toon", mediaType: TOON_MEDIA_TYPE });
const TOON_TEXT_CHOICE: FormatChoice = Object.freeze({ format: "toon", mediaType: TOON_TEXT_MEDIA_TYPE });

// Candidates of negotiateFormat: application/json, application/toon, text/toon. Scratch space is
// module-level: negotiation is synchronous, so calls cannot interleave.
const FORMAT_TYPES = ["application", "application", "text"] as const;
const FORMAT_SUBTYPES = ["json", "toon", "toon"] as const;
const formatQ = new Int16Array(3);
const formatSpec = new Int8Array(3);

/**
 * JSON or TOON for an Accept header; null when the client accepts neither.
 * - TOON is chosen when the client ranks it above JSON, or equally high while naming it
 *   explicitly (`application/toon` or `text/toon`, not only through a wildcard).
 *   `Accept: application/toon, application/json` is TOON; `*\/*` and `application/*` are JSON.
 * - The TOON media type is whichever of application/toon and text/toon the client ranks higher
 *   (application/toon on a tie), so `Accept: text/toon` is answered as text/toon.
 * - No Accept header (or no usable range in it) is JSON.
 */
export function negotiateFormat(header: string | undefined): FormatChoice | null {
  if (header === undefined || header === "") return JSON_CHOICE;
  rankCandidates(header, FORMAT_TYPES, FORMAT_SUBTYPES, formatQ, formatSpec);
  const jsonQ = formatQ[0]!;
  const textPreferred = formatQ[2]! > formatQ[1]! || (formatQ[2]! === formatQ[1]! && formatSpec[2]! > formatSpec[1]!);
  const toonQ = textPreferred ? formatQ[2]! : formatQ[1]!;
  const toonSpec = textPreferred ? formatSpec[2]! : formatSpec[1]!;
  if (toonQ > 0 && (toonQ > jsonQ || (toonQ === jsonQ && toonSpec >= 2))) return textPreferred ? TOON_TEXT_CHOICE : TOON_CHOICE;
  return jsonQ > 0 ? JSON_CHOICE : null;
}
