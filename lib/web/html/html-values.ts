// What a value becomes in HTML, for the markup`` tag (markup.ts) and the file templates: SafeHtml
// and raw(), the escapers for text, quoted and unquoted attribute values, the trusted-only rule,
// and the URL scheme check (javascript:, vbscript:, data: except images; entities decoded first).
import { brandedHtml, HTML_BRAND, type BrandedHtml } from "../../plugin.js";

/**
 * HTML that is safe to write as is. Only `markup`, `raw` and trusted code make one. It carries
 * its markup under the kernel's HTML_BRAND, so the kernel's html() reply and a handler's return
 * value send it as is, while an object that merely has a toString() is neither here nor there.
 */
export class SafeHtml implements BrandedHtml {
  readonly [HTML_BRAND]: string;
  constructor(html: string) {
    this[HTML_BRAND] = String(html);
  }
  toString(): string {
    return this[HTML_BRAND];
  }
  /** Whether a value carries the brand (a SafeHtml, or branded HTML made elsewhere). */
  static is(value: unknown): value is BrandedHtml {
    return brandedHtml(value) !== undefined;
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

export function escapeUnquoted(text: string): string {
  return text.replace(UNQUOTED_SPECIALS_ALL, replaceSpecial);
}

/** SafeHtml in a value the author left unquoted: it may not end the value nor the tag. */
export function escapeSafeInUnquoted(html: string): string {
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
  const safe = brandedHtml(value);
  if (safe !== undefined) return escapeSafe(safe);
  if (Array.isArray(value)) {
    let out = "";
    for (const item of value) out += htmlOf(item, escape, escapeSafe);
    return out;
  }
  throw new TypeError(`markup: cannot write a value of type ${describe(value)} as HTML (pass a string, a number, an array or SafeHtml)`);
}

/** A value in a place where only trusted HTML may go (script, style, on*, names, comments). */
export function trustedOnly(value: unknown, where: string): string {
  if (value === null || value === undefined || value === false) return "";
  const safe = brandedHtml(value);
  if (safe !== undefined) return safe;
  if (Array.isArray(value)) {
    let out = "";
    for (const item of value) out += trustedOnly(item, where);
    return out;
  }
  throw new TypeError(`markup: a value of type ${describe(value)} cannot be interpolated ${where}; only raw() SafeHtml is accepted there`);
}

/** The text the browser reads from a value written into an attribute (for the URL check). */
export function attributeTextOf(value: unknown): string {
  if (value === null || value === undefined || value === false) return "";
  const safe = brandedHtml(value);
  if (safe !== undefined) return decodeEntities(safe);
  if (Array.isArray(value)) return value.map(attributeTextOf).join("");
  return String(value);
}

// Entities that can spell a scheme: numeric ones, and the named ones for ':' tab and newline.
const ENTITY = /&(?:#(\d+)|#[xX]([0-9a-fA-F]+)|(colon|Tab|NewLine|amp|lt|gt|quot|apos));?/g;
const NAMED: Record<string, string> = { colon: ":", Tab: "\t", NewLine: "\n", amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
export function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(ENTITY, (_m, dec: string | undefined, hex: string | undefined, name: string | undefined) => {
    if (name !== undefined) return NAMED[name]!;
    const code = dec !== undefined ? Number.parseInt(dec, 10) : Number.parseInt(hex!, 16);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : "\uFFFD";
  });
}

export const UNSAFE_URL = "about:invalid#unsafe";
export const URL_ATTRIBUTES = new Set(["href", "src", "action", "formaction", "xlink:href", "srcset", "imagesrcset", "poster", "cite", "background", "longdesc", "usemap", "data", "codebase", "manifest", "ping", "icon", "profile", "classid", "archive"]);
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

export function isUnsafeAttribute(attribute: string, value: string): boolean {
  const image = IMAGE_ATTRIBUTES.has(attribute);
  if (attribute !== "srcset" && attribute !== "imagesrcset") return isUnsafeUrl(value, image);
  // srcset: comma-separated candidates "url [descriptor]"; one bad candidate spoils the value.
  for (const candidate of value.split(",")) {
    const url = candidate.trim().split(/\s+/)[0] ?? "";
    if (isUnsafeUrl(url, true)) return true;
  }
  return false;
}

