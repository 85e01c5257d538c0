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
// TypeError.
// The scan reads a character at a time from a state (HtmlState) and never looks ahead, so it can
// start anywhere and stop anywhere: scanHtmlText, htmlContext and htmlContextKey expose it to the
// file templates (lib/web/templates), which follow it through their {{#if}} and {{#each}} blocks.
// A value right after "<" inside <title>, <textarea>, ... is trusted-only: it could end the element.
import { SafeHtml, escapeHtml, escapeUnquoted, escapeSafeInUnquoted, htmlOf, trustedOnly, attributeTextOf, decodeEntities, UNSAFE_URL, URL_ATTRIBUTES, isUnsafeAttribute } from "./html-values.js";
export { SafeHtml, raw, escapeHtml, htmlOf, isUnsafeUrl, isUnsafeUrlHtml, UNSAFE_URL } from "./html-values.js";

// ---- the scan of the literal parts ----

// Modes of the scan: what the next character means.
const TEXT = 0, TAG_OPEN = 1, TAG_NAME = 2, BEFORE_ATTR = 3, ATTR_NAME = 4, AFTER_ATTR_NAME = 5, BEFORE_VALUE = 6;
const VALUE_DQ = 7, VALUE_SQ = 8, VALUE_UNQUOTED = 9, VALUE_AUTO = 10, RAW_TEXT = 11, RAW_END = 12, COMMENT = 13;
const BANG = 14, BANG_DASH = 15, DECLARATION = 16;

/**
 * Where the scan is in the HTML. The scan reads one character at a time and never looks ahead,
 * so text cut anywhere (between literals, or around a file template's blocks) is read as the
 * whole would be, and a scan can go on from any state. Fields a mode does not use are reset
 * ("" or 0), so equal states are equal field by field.
 */
export interface HtmlState {
  readonly mode: number;
  /** The element's name: in a tag, and in the raw text of script, style, textarea, ... */
  readonly tag: string;
  /** In an end tag (</p ...>). */
  readonly closing: boolean;
  /** The attribute's name, in its name and in its value. */
  readonly attribute: string;
  /** RAW_END: characters of "</tag" read; COMMENT: 0, 1 or 2 dashes just read, 3 after "--!". */
  readonly count: number;
}
type ScanState = { -readonly [K in keyof HtmlState]: HtmlState[K] };

/** The state at the start of a document: in text. */
export const HTML_TEXT: HtmlState = Object.freeze({ mode: TEXT, tag: "", closing: false, attribute: "", count: 0 });

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
const isValueMode = (mode: number): boolean => mode >= VALUE_DQ && mode <= VALUE_AUTO;

/** What a character did to an attribute value: opened one (it starts after / at the character), closed one. */
const NO_EDGE = 0, OPENS_AFTER = 1, OPENS_AT = 2, CLOSES = 3;

function endTag(st: ScanState): void {
  st.mode = !st.closing && (SCRIPT_TAGS.has(st.tag) || TEXT_ONLY_TAGS.has(st.tag)) ? RAW_TEXT : TEXT;
  if (st.mode === TEXT) st.tag = "";
  st.closing = false;
  st.attribute = "";
  st.count = 0;
}

function betweenAttributes(st: ScanState): void {
  st.mode = BEFORE_ATTR;
  st.attribute = "";
}

/** Read one character: update the state, and say whether it opened or closed an attribute value. */
function step(st: ScanState, c: string): number {
  switch (st.mode) {
    case TEXT:
      if (c === "<") {
        st.mode = TAG_OPEN;
        st.closing = false;
      }
      break;
    case TAG_OPEN:
      if (isLetter(c)) {
        st.mode = TAG_NAME;
        st.tag = c.toLowerCase();
      } else if (c === "/" && !st.closing) st.closing = true;
      else if (c === "!" && !st.closing) st.mode = BANG;
      else if (c === "?" && !st.closing) st.mode = DECLARATION;
      else {
        st.mode = c === "<" ? TAG_OPEN : TEXT;
        st.closing = false;
      }
      break;
    case TAG_NAME:
      if (isSpace(c) || c === "/") betweenAttributes(st);
      else if (c === ">") endTag(st);
      else st.tag += c.toLowerCase();
      break;
    case BEFORE_ATTR:
    case AFTER_ATTR_NAME:
      if (c === ">") endTag(st);
      else if (c === "=" && st.mode === AFTER_ATTR_NAME) st.mode = BEFORE_VALUE;
      else if (c === "/") betweenAttributes(st);
      else if (!isSpace(c)) {
        st.mode = ATTR_NAME;
        st.attribute = c.toLowerCase();
      }
      break;
    case ATTR_NAME:
      if (isSpace(c)) st.mode = AFTER_ATTR_NAME;
      else if (c === "=") st.mode = BEFORE_VALUE;
      else if (c === ">") endTag(st);
      else if (c === "/") betweenAttributes(st);
      else st.attribute += c.toLowerCase();
      break;
    case BEFORE_VALUE:
      if (c === '"' || c === "'") {
        st.mode = c === '"' ? VALUE_DQ : VALUE_SQ;
        return OPENS_AFTER;
      }
      if (c === ">") endTag(st);
      else if (!isSpace(c)) {
        st.mode = VALUE_UNQUOTED;
        return OPENS_AT;
      }
      break;
    case VALUE_DQ:
    case VALUE_SQ:
      if (c === (st.mode === VALUE_DQ ? '"' : "'")) {
        betweenAttributes(st);
        return CLOSES;
      }
      break;
    case VALUE_UNQUOTED:
    case VALUE_AUTO:
      if (isSpace(c) || c === ">") {
        if (c === ">") endTag(st);
        else betweenAttributes(st);
        return CLOSES;
      }
      break;
    case RAW_TEXT:
      if (c === "<") {
        st.mode = RAW_END;
        st.count = 1;
      }
      break;
    case RAW_END: {
      // Reading what may be "</tag" followed by a space, "/" or ">": the element's end tag.
      const end = "</" + st.tag;
      if (st.count < end.length && c.toLowerCase() === end[st.count]) st.count++;
      else if (st.count === end.length && (isSpace(c) || c === "/" || c === ">")) {
        st.closing = true;
        st.count = 0;
        if (c === ">") endTag(st);
        else st.mode = BEFORE_ATTR;
      } else if (c === "<") st.count = 1;
      else {
        st.mode = RAW_TEXT;
        st.count = 0;
      }
      break;
    }
    case BANG:
    case BANG_DASH:
      if (c === "-" && st.mode === BANG) st.mode = BANG_DASH;
      else if (c === "-") {
        // "<!--": a comment; the browser also ends "<!-->" and "<!--->" at their ">".
        st.mode = COMMENT;
        st.count = 2;
      } else st.mode = c === ">" ? TEXT : DECLARATION;
      break;
    case COMMENT:
      if (c === ">" && st.count >= 2) {
        st.mode = TEXT;
        st.count = 0;
      } else if (c === "-") st.count = st.count === 3 ? 1 : Math.min(st.count + 1, 2);
      else st.count = c === "!" && st.count === 2 ? 3 : 0;
      break;
    case DECLARATION:
      if (c === ">") st.mode = TEXT;
      break;
  }
  return NO_EDGE;
}

const EVENT_WHERE = (attribute: string): string =>
  attribute === "srcdoc" ? 'in the "srcdoc" attribute (an HTML document)' : attribute === "style" ? 'in the "style" attribute (CSS)' : `in the event handler attribute "${attribute}"`;

/** How a value written at this state is written (kind, where for messages, unquoted). */
function classify(st: HtmlState): { kind: number; where: string; unquoted: boolean } {
  switch (st.mode) {
    case TEXT:
      return { kind: H_TEXT, where: "in text", unquoted: false };
    case BEFORE_VALUE:
    case VALUE_DQ:
    case VALUE_SQ:
    case VALUE_UNQUOTED:
    case VALUE_AUTO: {
      // Event handlers hold script; srcdoc holds a whole HTML document, whose entities are
      // decoded before it is parsed, so escaped text would become markup again; style holds CSS,
      // where escaped text still loads URLs (background:url(...)) and rewrites the page.
      const a = st.attribute;
      if (a.startsWith("on") || a === "srcdoc" || a === "style") return { kind: H_TRUSTED, where: EVENT_WHERE(a), unquoted: false };
      const unquoted = st.mode === BEFORE_VALUE || st.mode === VALUE_AUTO || st.mode === VALUE_UNQUOTED;
      return { kind: st.mode === VALUE_UNQUOTED ? H_UNQUOTED : H_QUOTED, where: "in an attribute value", unquoted };
    }
    case RAW_TEXT:
      return TEXT_ONLY_TAGS.has(st.tag) ? { kind: H_TEXT, where: "in text", unquoted: false } : { kind: H_TRUSTED, where: `inside <${st.tag}>`, unquoted: false };
    case RAW_END:
      // After "<" even escaped text ("/title") could end the element, and what follows would be markup.
      return { kind: H_TRUSTED, where: TEXT_ONLY_TAGS.has(st.tag) ? `right after "<" inside <${st.tag}> (it could end the element)` : `inside <${st.tag}>`, unquoted: false };
    case COMMENT:
      return { kind: H_TRUSTED, where: "inside an HTML comment", unquoted: false };
    default:
      return { kind: H_TRUSTED, where: "in a tag or attribute name", unquoted: false };
  }
}

/** The state after a value of this kind is written: what it wrote is unknown to the scan. */
function afterHole(st: ScanState, kind: number): void {
  switch (st.mode) {
    case BEFORE_VALUE:
      // markup quotes the value itself (it writes the opening quote here, the closing one later).
      if (kind !== H_TRUSTED) st.mode = VALUE_AUTO;
      break;
    case COMMENT:
      st.count = 0;
      break;
    case RAW_END:
      if (st.count === st.tag.length + 2) {
        // "</script" and a trusted value: read on as the end tag's name.
        st.mode = TAG_NAME;
        st.closing = true;
      } else st.mode = RAW_TEXT;
      st.count = 0;
      break;
    case BANG:
    case BANG_DASH:
      st.mode = DECLARATION;
      break;
  }
}

function scan(strings: readonly string[]): Plan {
  const literals: string[] = [];
  const holes: Hole[] = [];
  const urlValues: UrlValue[] = [];
  const st: ScanState = { ...HTML_TEXT };
  let value: UrlValue | null = null;
  let piece = "";

  for (let k = 0; k < strings.length; k++) {
    const s = strings[k]!;
    let out = "";
    const startValue = (): void => {
      piece = "";
      value = URL_ATTRIBUTES.has(st.attribute) ? { attribute: st.attribute, index: -1, pieces: [], startLiteral: k, startOffset: out.length, endLiteral: -1, endOffset: -1 } : null;
    };
    const endValue = (): void => {
      if (value !== null && value.pieces.length > 0) {
        value.pieces.push(decodeEntities(piece));
        value.endLiteral = k;
        value.endOffset = out.length;
      }
      value = null;
    };
    for (let i = 0; i < s.length; i++) {
      const c = s[i]!;
      const was = st.mode;
      if (was === VALUE_AUTO) {
        // A value markup quotes: a " in it is written as an entity; a space or > ends it.
        if (c === '"') {
          piece += c;
          out += "&quot;";
          continue;
        }
        if (isSpace(c) || c === ">") {
          endValue();
          out += '"';
        }
      }
      const edge = step(st, c);
      if (edge === OPENS_AFTER) {
        out += c;
        startValue();
        continue;
      }
      if (edge === OPENS_AT) startValue();
      else if (edge === CLOSES && was !== VALUE_AUTO) endValue();
      if (edge !== CLOSES && isValueMode(st.mode)) piece += c;
      out += c;
    }
    if (k === strings.length - 1) {
      // The template ends inside an auto-quoted value: close it.
      if (st.mode === VALUE_AUTO) {
        endValue();
        out += '"';
      } else if (isValueMode(st.mode)) endValue();
      literals.push(out);
      break;
    }
    // The hole after this literal.
    const { kind, where, unquoted } = classify(st);
    const opensValue = st.mode === BEFORE_VALUE && kind !== H_TRUSTED;
    afterHole(st, kind);
    if (opensValue) {
      out += '"';
      startValue();
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

// ---- the scan, step by step, for other template languages (file templates) ----

/** Where a value written at a state lands. */
export interface HtmlContext {
  /**
   * "text" or "quoted": escapeHtml is enough; "unquoted": an attribute value the author did not
   * quote; "trusted": only SafeHtml (script, style, on*, comments, names).
   */
  readonly kind: "text" | "quoted" | "unquoted" | "trusted";
  /** Where the value is, for an error message ("inside <script>", "in an attribute value"). */
  readonly where: string;
  /** In a URL attribute value: the attribute (its value must be checked whole), else null. */
  readonly url: string | null;
}

/** The context of a value written at `state`. */
export function htmlContext(state: HtmlState): HtmlContext {
  const { kind, where, unquoted } = classify(state);
  const url = kind !== H_TRUSTED && isValueMode(state.mode) && URL_ATTRIBUTES.has(state.attribute) ? state.attribute : null;
  return { kind: kind === H_TEXT ? "text" : kind === H_TRUSTED ? "trusted" : unquoted ? "unquoted" : "quoted", where, url };
}

/** The state after a value is written at `state` (what it wrote is unknown to the scan). */
export function htmlAfterValue(state: HtmlState): HtmlState {
  const st: ScanState = { ...state };
  afterHole(st, classify(state).kind);
  return st;
}

/** Inside a scanned text: where a URL attribute value starts (after its quote) or ends (at it). */
export interface UrlValueEdge {
  readonly offset: number;
  readonly edge: "start" | "end";
  readonly attribute: string;
}

/** Scan `text` from `from`: the state at its end, and the edges of URL attribute values in it. */
export function scanHtmlText(from: HtmlState, text: string): { readonly end: HtmlState; readonly urlEdges: readonly UrlValueEdge[] } {
  const st: ScanState = { ...from };
  const urlEdges: UrlValueEdge[] = [];
  for (let i = 0; i < text.length; i++) {
    const attribute = st.attribute;
    const edge = step(st, text[i]!);
    if (edge === NO_EDGE || !URL_ATTRIBUTES.has(attribute)) continue;
    urlEdges.push({ offset: edge === OPENS_AFTER ? i + 1 : i, edge: edge === CLOSES ? "end" : "start", attribute });
  }
  return { end: st, urlEdges };
}

/**
 * Two states with the same key are the same place for a value and for the text that follows,
 * up to an attribute name being typed (`<li` + ` class="a"` and `<li` are both "in the <li> tag").
 */
export function htmlContextKey(state: HtmlState): string {
  switch (state.mode) {
    case TEXT:
      return "text";
    case RAW_TEXT:
    case RAW_END:
      return `raw ${state.tag}`;
    case COMMENT:
      return "comment";
    case BANG:
    case BANG_DASH:
    case DECLARATION:
      return "declaration";
    case TAG_OPEN:
      return state.closing ? "</" : "<";
  }
  const tag = `${state.closing ? "/" : ""}${state.tag}`;
  return isValueMode(state.mode) ? `value ${state.mode} ${state.attribute} ${tag}` : `tag ${tag}`;
}

/** The place a state is in, in words, for error messages ("in the "title" attribute value (double-quoted)"). */
export function describeHtmlState(state: HtmlState): string {
  switch (state.mode) {
    case TEXT:
      return "in text";
    case RAW_TEXT:
    case RAW_END:
      return `inside <${state.tag}>`;
    case COMMENT:
      return "inside an HTML comment";
    case BANG:
    case BANG_DASH:
    case DECLARATION:
      return "inside a <!...> or <?...> declaration";
    case TAG_OPEN:
      return `right after "${state.closing ? "</" : "<"}"`;
  }
  const tag = `<${state.closing ? "/" : ""}${state.tag}>`;
  if (!isValueMode(state.mode)) return `inside the ${tag} tag`;
  const quoting = state.mode === VALUE_DQ ? "double-quoted" : state.mode === VALUE_SQ ? "single-quoted" : "unquoted";
  return `in the "${state.attribute}" attribute value (${quoting}) of ${tag}`;
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
 *
 * @example
 * route.get("/hello/{name}", [path("name")], (name) => markup`<p title=${name}>Hello ${name}</p>`);
 *
 * @see docs/features/web.md
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
