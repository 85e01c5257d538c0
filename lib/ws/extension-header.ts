// Parser of Sec-WebSocket-Extensions (RFC 6455 §9.1):
//   extension-list = 1#( token *( ";" token [ "=" ( token / quoted-string ) ] ) )
// Whitespace around separators is allowed; a quoted value must unescape to a token.
// Returns null for a header that does not follow the grammar.
import { isHttpToken, isTchar } from "../plugin.js";

export interface ExtensionOffer {
  name: string;
  /** Parameters in order; `true` for a parameter without a value. Duplicates are kept. */
  params: Array<[name: string, value: string | true]>;
}

/** Header-length cap: a handshake header longer than this is refused outright. */
const MAX_HEADER = 4096;

export function parseExtensionHeader(header: string): ExtensionOffer[] | null {
  if (header.length > MAX_HEADER) return null;
  const offers: ExtensionOffer[] = [];
  const n = header.length;
  let i = 0;
  const skipSpace = (): void => {
    while (i < n && (header.charCodeAt(i) === 0x20 || header.charCodeAt(i) === 0x09)) i++;
  };
  const readToken = (): string => {
    const start = i;
    while (i < n && isTchar(header.charCodeAt(i))) i++;
    return header.slice(start, i);
  };
  for (;;) {
    skipSpace();
    // Empty list elements ("a, , b") are allowed by the #rule.
    if (i < n && header.charCodeAt(i) === 0x2c) {
      i++;
      continue;
    }
    if (i >= n) break;
    const name = readToken();
    if (name === "") return null;
    const offer: ExtensionOffer = { name: name.toLowerCase(), params: [] };
    skipSpace();
    while (i < n && header.charCodeAt(i) === 0x3b) {
      i++;
      skipSpace();
      const param = readToken();
      if (param === "") return null;
      skipSpace();
      let value: string | true = true;
      if (i < n && header.charCodeAt(i) === 0x3d) {
        i++;
        skipSpace();
        if (i < n && header.charCodeAt(i) === 0x22) {
          i++;
          let text = "";
          for (;;) {
            if (i >= n) return null;
            const c = header.charCodeAt(i);
            if (c === 0x22) break;
            if (c === 0x5c) {
              i++;
              if (i >= n) return null;
            }
            text += header[i];
            i++;
          }
          i++; // closing quote
          if (!isHttpToken(text)) return null;
          value = text;
        } else {
          value = readToken();
          if (value === "") return null;
        }
        skipSpace();
      }
      offer.params.push([param.toLowerCase(), value]);
    }
    offers.push(offer);
    if (i >= n) break;
    if (header.charCodeAt(i) !== 0x2c) return null;
    i++;
  }
  return offers.length === 0 ? null : offers;
}
