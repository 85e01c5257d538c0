// HTML by tagged template: markup`<p>${name}</p>` escapes each value for the place it lands in,
// found by scanning the literal parts once per call site (the scan is cached on the template's
// strings object, which JavaScript keeps identical for one call site).
// - Text (and the text-only elements: <title>, <textarea>, <noscript>, ...): & < > " ' become
//   entities. The scan knows those elements end only at their end tag, as the browser does.
// - Quoted attribute value: the same escaping, so neither quote can close the value.
// - Value right after `=`: the value is quoted for the author (`class=${x}` writes class="...").
//   In the middle of an unquoted value, whitespace, `=` and backtick are escaped too.
// - SafeHtml is written as is, except in a value the author did not quote (after `=` or in the
//   middle of an unquoted value): there its whitespace, = " ' ` < and > become character
//   references, so raw() cannot end the value or the tag (class=a${raw("x onclick=y")} stays one
//   value). Its & is kept, so its entities, and the value the browser reads, are unchanged.
// - URL attributes (href, src, action, srcset, ...): when a value with an interpolation starts
//   with javascript:, vbscript: or data: (data:image/ allowed for images, except SVG), the whole
//   value becomes `about:invalid#unsafe`, as Go's html/template does. The check runs once on the
//   whole value (the literal text and every interpolation in it together) as the browser will
//   read it (entities decoded, tabs and newlines dropped), SafeHtml included: raw() opts out of
//   escaping, not out of the scheme check. A value written wholly by the author is trusted.
// - Event handlers (on*), style (CSS: escaped text can still load url(...) or restyle the page),
//   srcdoc, <script>/<style> bodies, comments and tag or attribute names accept only SafeHtml
//   (raw()): any other value is a TypeError, since no escaping makes text safe there.
// Values: strings, numbers and bigints printed; true prints "true"; null, undefined and false
// print nothing; arrays are concatenated item by item; SafeHtml is kept; anything else is a
// TypeError. scanHtml exposes the scan to the file templates (lib/web/templates).

/** HTML that is safe to write as is. Only `markup`, `raw` and trusted code make one. */
export class SafeHtml {
  // A private field is the brand: an object that merely has a toString() is not SafeHtml.
  readonly #html: string;
  constructor(html: string) {
    this.#html = String(html);
  }
  toString(): string {
    return this.#html;
  }
  static is(value: unknown): value is SafeHtml {
    return typeof value === "object" && value !== null && #html in value;
  }
}

/** Mark a trusted string as HTML: it is written without escaping. */
export function raw(html: string): SafeHtml {
  if (typeof html !== "string") throw new TypeError("raw() takes a string");
  return new SafeHtml(html);
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const TEXT_SPECIALS = /[&<>"']/;
const TEXT_SPECIALS_ALL = /[&<>"']/g;
const UNQUOTED_SPECIALS_ALL = /[&<>"'`=\s]/g;
// What ends an attribute value or starts another attribute; `&` is not among them, so the
// entities of SafeHtml keep their meaning (an escaped character reads the same in a value).
const VALUE_BREAKERS_ALL = /[<>"'`=\s]/g;
const replaceSpecial = (c: string): string => ESCAPES[c] ?? `&#${c.charCodeAt(0)};`;

/** Escape text for HTML text and quoted attribute values: & < > " ' become entities. */
export function escapeHtml(text: string): string {
  return TEXT_SPECIALS.test(text) ? text.replace(TEXT_SPECIALS_ALL, replaceSpecial) : text;
}

function escapeUnquoted(text: string): string {
  return text.replace(UNQUOTED_SPECIALS_ALL, replaceSpecial);
}

/** SafeHtml in a value the author left unquoted: it may not end the value nor the tag. */
function escapeSafeInUnquoted(html: string): string {
  return html.replace(VALUE_BREAKERS_ALL, replaceSpecial);
}

const keepAsIs = (html: string): string => html;

function describe(value: unknown): string {
  if (value === null) return "null";
  if (typeof value !== "object") return typeof value;
  return Object.prototype.toString.call(value).slice(8, -1);
}

/**
 * The HTML of a value in text context: the escaping and value rules of `markup`. `escape` is
 * applied to text, `escapeSafe` to SafeHtml (kept as is unless the context says otherwise).
 */
export function htmlOf(value: unknown, escape: (s: string) => string = escapeHtml, escapeSafe: (html: string) => string = keepAsIs): string {
  switch (typeof value) {
    case "string":
      return escape(value);
    case "number":
    case "bigint":
      return escape(String(value));
    case "boolean":
      return value ? "true" : "";
    case "undefined":
      return "";
  }
  if (value === null) return "";
  if (SafeHtml.is(value)) return escapeSafe(value.toString());
  if (Array.isArray(value)) {
    let out = "";
    for (const item of value) out += htmlOf(item, escape, escapeSafe);
    return out;
  }
  throw new TypeError(`markup: cannot write a value of type ${describe(value)} as HTML (pass a string, a number, an array or SafeHtml)`);
}

/** A value in a place where only trusted HTML may go (script, style, on*, names, comments). */
function trustedOnly(value: unknown, where: string): string {
  if (value === null || value === undefined || value === false) return "";
  if (SafeHtml.is(value)) return value.toString();
  if (Array.isArray(value)) {
    let out = "";
    for (const item of value) out += trustedOnly(item, where);
    return out;
  }
  throw new TypeError(`markup: a value of type ${describe(value)} cannot be interpolated ${where}; only raw() SafeHtml is accepted there`);
}

/** The text the browser reads from a value written into an attribute (for the URL check). */
function attributeTextOf(value: unknown): string {
  if (value === null || value === undefined || value === false) return "";
  if (SafeHtml.is(value)) return decodeEntities(value.toString());
  if (Array.isArray(value)) return value.map(attributeTextOf).join("");
  return String(value);
}

// Entities that can spell a scheme: numeric ones, and the named ones for ':' tab and newline.
const ENTITY = /&(?:#(\d+)|#[xX]([0-9a-fA-F]+)|(colon|Tab|NewLine|amp|lt|gt|quot|apos));?/g;
const NAMED: Record<string, string> = { colon: ":", Tab: "\t", NewLine: "\n", amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(ENTITY, (_m, dec: string | undefined, hex: string | undefined, name: string | undefined) => {
    if (name !== undefined) return NAMED[name]!;
    const code = dec !== undefined ? Number.parseInt(dec, 10) : Number.parseInt(hex!, 16);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : "\uFFFD";
  });
}

export const UNSAFE_URL = "about:invalid#unsafe";
const URL_ATTRIBUTES = new Set(["href", "src", "action", "formaction", "xlink:href", "srcset", "imagesrcset", "poster", "cite", "background", "longdesc", "usemap", "data", "codebase", "manifest", "ping", "icon", "profile", "classid", "archive"]);
const IMAGE_ATTRIBUTES = new Set(["src", "srcset", "imagesrcset", "poster"]);

/** Whether a URL (as the browser reads it) runs code or carries a document: javascript:, vbscript:, data:. */
export function isUnsafeUrl(url: string, image = false): boolean {
  // Browsers drop leading C0 controls and spaces, and tabs and newlines anywhere.
  // eslint-disable-next-line no-control-regex
  const u = url.replace(/[\t\n\r]/g, "").replace(/^[\x00-\x20]+/, "").toLowerCase();
  if (u.startsWith("javascript:") || u.startsWith("vbscript:")) return true;
  if (!u.startsWith("data:")) return false;
  // An SVG is a document that can run script when opened on its own (iframe, object, navigation).
  return !(image && u.startsWith("data:image/") && !u.startsWith("data:image/svg"));
}

/** Whether a URL attribute's value, as written in HTML (entities and all), is unsafe there. */
export function isUnsafeUrlHtml(attribute: string, html: string): boolean {
  return isUnsafeAttribute(attribute, decodeEntities(html));
}

function isUnsafeAttribute(attribute: string, value: string): boolean {
  const image = IMAGE_ATTRIBUTES.has(attribute);
  if (attribute !== "srcset" && attribute !== "imagesrcset") return isUnsafeUrl(value, image);
  // srcset: comma-separated candidates "url [descriptor]"; one bad candidate spoils the value.
  for (const candidate of value.split(",")) {
    const url = candidate.trim().split(/\s+/)[0] ?? "";
    if (isUnsafeUrl(url, true)) return true;
  }
  return false;
}

// ---- the scan of the literal parts ----

const TEXT = 0, TAG_OPEN = 1, TAG_NAME = 2, BEFORE_ATTR = 3, ATTR_NAME = 4, AFTER_ATTR_NAME = 5, BEFORE_VALUE = 6;
const VALUE_DQ = 7, VALUE_SQ = 8, VALUE_UNQUOTED = 9, VALUE_AUTO = 10, RAW_TEXT = 11, COMMENT = 12, DECLARATION = 13;

/** How one interpolation is written. */
const H_TEXT = 0, H_QUOTED = 1, H_UNQUOTED = 2, H_TRUSTED = 3;
interface Hole {
  kind: number;
  /** For H_TRUSTED: where, for the error message. */
  where: string;
  /** Index of the URL value (see `UrlValue.index`) when the hole is inside a URL attribute value, else -1. */
  url: number;
  /** True in a value the author left unquoted (markup may quote it): SafeHtml is escaped there too. */
  unquoted: boolean;
}
/** A URL attribute value that holds interpolations, checked when it is complete. */
interface UrlValue {
  attribute: string;
  /** Literal text of the value around the holes (entities decoded): holes + 1 pieces. */
  pieces: string[];
  /** Position in the plan's URL values, set at its first interpolation. */
  index: number;
  /** Literal index and offset (in the literal's output) where the value starts and ends. */
  startLiteral: number;
  startOffset: number;
  endLiteral: number;
  endOffset: number;
}
interface Plan {
  /** The literal parts as written out (an auto-quoted value gains its quotes here). */
  literals: string[];
  holes: Hole[];
  urlValues: UrlValue[];
  /** URL values by literal index: the value starting / ending in that literal, or undefined. */
  startsIn: (UrlValue | undefined)[];
  endsIn: (UrlValue | undefined)[];
}

// Elements whose content is not markup: it ends only at the matching end tag, wherever that is
// (even inside what looks like an attribute). In script and style a value is code; in the others
// it is text, and escaping it is enough.
const SCRIPT_TAGS = new Set(["script", "style"]);
const TEXT_ONLY_TAGS = new Set(["title", "textarea", "noscript", "xmp", "iframe", "noembed", "noframes", "plaintext"]);

const isSpace = (c: string): boolean => c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f";
const isLetter = (c: string): boolean => (c >= "a" && c <= "z") || (c >= "A" && c <= "Z");

function scan(strings: readonly string[]): Plan {
  const literals: string[] = [];
  const holes: Hole[] = [];
  const urlValues: UrlValue[] = [];
  let state = TEXT;
  let tag = "";
  let closing = false;
  let attribute = "";
  let rawEnd = "";
  let value: UrlValue | null = null;
  let piece = "";

  for (let k = 0; k < strings.length; k++) {
    const s = strings[k]!;
    let out = "";
    const startValue = (): void => {
      piece = "";
      value = URL_ATTRIBUTES.has(attribute) ? { attribute, index: -1, pieces: [], startLiteral: k, startOffset: out.length, endLiteral: -1, endOffset: -1 } : null;
    };
    const endValue = (): void => {
      if (value !== null && value.pieces.length > 0) {
        value.pieces.push(decodeEntities(piece));
        value.endLiteral = k;
        value.endOffset = out.length;
      }
      value = null;
    };
    const endTag = (): void => {
      state = !closing && (SCRIPT_TAGS.has(tag) || TEXT_ONLY_TAGS.has(tag)) ? RAW_TEXT : TEXT;
      rawEnd = "</" + tag;
    };
    for (let i = 0; i < s.length; i++) {
      const c = s[i]!;
      switch (state) {
        case TEXT:
          if (c === "<") {
            state = TAG_OPEN;
            closing = false;
          }
          break;
        case TAG_OPEN:
          if (isLetter(c)) {
            state = TAG_NAME;
            tag = c.toLowerCase();
          } else if (c === "/" && !closing) {
            closing = true;
          } else if (c === "!" && !closing) {
            if (s.startsWith("--", i + 1)) {
              state = COMMENT;
              out += "!--";
              i += 2;
              continue;
            }
            state = DECLARATION;
          } else if (c === "?" && !closing) {
            state = DECLARATION;
          } else {
            state = c === "<" ? TAG_OPEN : TEXT;
          }
          if (state !== TAG_OPEN && state !== TAG_NAME) closing = false;
          break;
        case TAG_NAME:
          if (isSpace(c) || c === "/") state = BEFORE_ATTR;
          else if (c === ">") endTag();
          else tag += c.toLowerCase();
          break;
        case BEFORE_ATTR:
        case AFTER_ATTR_NAME:
          if (c === ">") endTag();
          else if (c === "=" && state === AFTER_ATTR_NAME) state = BEFORE_VALUE;
          else if (c === "/") state = BEFORE_ATTR;
          else if (!isSpace(c)) {
            state = ATTR_NAME;
            attribute = c.toLowerCase();
          }
          break;
        case ATTR_NAME:
          if (isSpace(c)) state = AFTER_ATTR_NAME;
          else if (c === "=") state = BEFORE_VALUE;
          else if (c === ">") endTag();
          else if (c === "/") state = BEFORE_ATTR;
          else attribute += c.toLowerCase();
          break;
        case BEFORE_VALUE:
          if (c === '"' || c === "'") {
            state = c === '"' ? VALUE_DQ : VALUE_SQ;
            out += c;
            startValue();
            continue;
          }
          if (c === ">") endTag();
          else if (!isSpace(c)) {
            state = VALUE_UNQUOTED;
            startValue();
            piece += c;
          }
          break;
        case VALUE_DQ:
        case VALUE_SQ:
          if (c === (state === VALUE_DQ ? '"' : "'")) {
            endValue();
            state = BEFORE_ATTR;
          } else piece += c;
          break;
        case VALUE_UNQUOTED:
          if (isSpace(c) || c === ">") {
            endValue();
            if (c === ">") endTag();
            else state = BEFORE_ATTR;
          } else piece += c;
          break;
        case VALUE_AUTO:
          if (isSpace(c) || c === ">") {
            endValue();
            out += '"';
            if (c === ">") endTag();
            else state = BEFORE_ATTR;
          } else {
            piece += c;
            if (c === '"') {
              out += "&quot;";
              continue;
            }
          }
          break;
        case RAW_TEXT:
          if (c === "<" && s.slice(i, i + rawEnd.length).toLowerCase() === rawEnd) {
            const after = s[i + rawEnd.length];
            if (after === undefined || isSpace(after) || after === "/" || after === ">") {
              state = TAG_OPEN;
              closing = false;
            }
          }
          break;
        case COMMENT:
          if (c === ">" && (out.endsWith("--") || out.endsWith("--!"))) state = TEXT;
          break;
        case DECLARATION:
          if (c === ">") state = TEXT;
          break;
      }
      out += c;
    }
    if (k === strings.length - 1) {
      // The template ends inside an auto-quoted value: close it.
      if (state === VALUE_AUTO) {
        endValue();
        out += '"';
      } else if (state === VALUE_DQ || state === VALUE_SQ || state === VALUE_UNQUOTED) endValue();
      literals.push(out);
      break;
    }
    // The hole after this literal.
    let kind: number;
    let where = "";
    // Event handlers hold script; srcdoc holds a whole HTML document, whose entities are decoded
    // before it is parsed, so escaped text would become markup again; style holds CSS, where
    // escaped text still loads URLs (background:url(...)) and rewrites the page.
    const event = attribute.startsWith("on") || attribute === "srcdoc" || attribute === "style";
    const eventWhere =
      attribute === "srcdoc" ? 'in the "srcdoc" attribute (an HTML document)' : attribute === "style" ? 'in the "style" attribute (CSS)' : `in the event handler attribute "${attribute}"`;
    const unquoted = state === BEFORE_VALUE || state === VALUE_AUTO || state === VALUE_UNQUOTED;
    switch (state) {
      case TEXT:
        kind = H_TEXT;
        break;
      case BEFORE_VALUE:
        if (event) {
          kind = H_TRUSTED;
          where = eventWhere;
          break;
        }
        out += '"';
        state = VALUE_AUTO;
        startValue();
        kind = H_QUOTED;
        break;
      case VALUE_DQ:
      case VALUE_SQ:
      case VALUE_AUTO:
      case VALUE_UNQUOTED:
        if (event) {
          kind = H_TRUSTED;
          where = eventWhere;
        } else kind = state === VALUE_UNQUOTED ? H_UNQUOTED : H_QUOTED;
        break;
      case RAW_TEXT:
        if (TEXT_ONLY_TAGS.has(tag)) kind = H_TEXT;
        else {
          kind = H_TRUSTED;
          where = `inside <${tag}>`;
        }
        break;
      case COMMENT:
        kind = H_TRUSTED;
        where = "inside an HTML comment";
        break;
      default:
        kind = H_TRUSTED;
        where = "in a tag or attribute name";
    }
    let url = -1;
    const open = value as UrlValue | null;
    if (open !== null && kind !== H_TRUSTED) {
      if (open.pieces.length === 0) {
        open.index = urlValues.length;
        urlValues.push(open);
      }
      open.pieces.push(decodeEntities(piece));
      piece = "";
      url = open.index;
    }
    holes.push({ kind, where, url, unquoted: unquoted && kind !== H_TRUSTED });
    literals.push(out);
  }
  const startsIn: (UrlValue | undefined)[] = [];
  const endsIn: (UrlValue | undefined)[] = [];
  for (const v of urlValues) {
    startsIn[v.startLiteral] = v;
    endsIn[v.endLiteral] = v;
  }
  return { literals, holes, urlValues, startsIn, endsIn };
}

const plans = new WeakMap<TemplateStringsArray, Plan>();

/** Where a value between literal parts lands, for other template languages (file templates). */
export interface HtmlContext {
  /**
   * "text" or "quoted": escapeHtml is enough; "unquoted": an attribute value the author did not
   * quote; "trusted": only SafeHtml (script, style, on*, comments, names).
   */
  readonly kind: "text" | "quoted" | "unquoted" | "trusted";
  /** Where the value is, for an error message ("inside <script>", "in an attribute value"). */
  readonly where: string;
  /** In a URL attribute value: its index in `HtmlScan.urlValues`, else -1. */
  readonly url: number;
}

/** A URL attribute value holding values: from just after its opening quote to its closing one. */
export interface UrlValueSpan {
  readonly attribute: string;
  /** Literal index and offset in that literal where the value starts. */
  readonly startLiteral: number;
  readonly startOffset: number;
  /** Where it ends (at its closing quote); endLiteral is -1 when the literals end inside it. */
  readonly endLiteral: number;
  readonly endOffset: number;
}

export interface HtmlScan {
  /** The context of each gap between the literals (literals.length - 1 of them). */
  readonly holes: readonly HtmlContext[];
  readonly urlValues: readonly UrlValueSpan[];
}

/**
 * How markup sees the gaps between `literals`. Offsets are in the literals as given as long as
 * no gap is an unquoted attribute value (markup writes quotes around those).
 */
export function scanHtml(literals: readonly string[]): HtmlScan {
  const plan = scan(literals);
  return {
    holes: plan.holes.map((hole) => ({
      kind: hole.kind === H_TEXT ? "text" : hole.kind === H_TRUSTED ? "trusted" : hole.unquoted ? "unquoted" : "quoted",
      where: hole.kind === H_TRUSTED ? hole.where : hole.kind === H_TEXT ? "in text" : "in an attribute value",
      url: hole.url,
    })),
    urlValues: plan.urlValues.map((v) => ({ attribute: v.attribute, startLiteral: v.startLiteral, startOffset: v.startOffset, endLiteral: v.endLiteral, endOffset: v.endOffset })),
  };
}

function holeHtml(hole: Hole, value: unknown): string {
  switch (hole.kind) {
    case H_TEXT:
      return htmlOf(value);
    case H_QUOTED:
      // A value the author did not quote, which markup quotes: SafeHtml must not close the quotes.
      return hole.unquoted ? htmlOf(value, escapeHtml, escapeSafeInUnquoted) : htmlOf(value);
    case H_UNQUOTED:
      return htmlOf(value, escapeUnquoted, escapeSafeInUnquoted);
    default:
      return trustedOnly(value, hole.where);
  }
}

/**
 * The HTML tag: markup`<li class=${cls}>${name}</li>`. Each value is escaped for its context
 * (see the top of this file); the result is SafeHtml, so templates compose by interpolation.
 */
export function markup(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let plan = plans.get(strings);
  if (plan === undefined) {
    plan = scan(strings);
    plans.set(strings, plan);
  }
  const { literals, holes, startsIn, endsIn } = plan;
  let out = "";
  let urlStart = 0;
  let urlTexts: string[] = [];
  for (let k = 0; k < literals.length; k++) {
    const literal = literals[k]!;
    const ending = endsIn[k];
    if (ending !== undefined) {
      let text = ending.pieces[0]!;
      for (let j = 0; j < urlTexts.length; j++) text += urlTexts[j]! + ending.pieces[j + 1]!;
      if (isUnsafeAttribute(ending.attribute, text)) out = out.slice(0, urlStart) + UNSAFE_URL + literal.slice(ending.endOffset);
      else out += literal;
    } else out += literal;
    const starting = startsIn[k];
    if (starting !== undefined) {
      urlStart = out.length - (literal.length - starting.startOffset);
      urlTexts = [];
    }
    if (k === holes.length) break;
    const hole = holes[k]!;
    const value = values[k];
    if (hole.url >= 0) urlTexts.push(attributeTextOf(value));
    out += holeHtml(hole, value);
  }
  return new SafeHtml(out);
}
