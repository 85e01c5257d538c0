// keel/toon: the TOON codec (spec v4), TOON request bodies, and JSON/TOON content negotiation
// with token-count headers.
export * from "./codec/index.js";
export { estimateTokens } from "./tokens.js";
export { toon, type ToonBodyOptions } from "./toon-body.js";
export {
  negotiated,
  negotiation,
  negotiateReply,
  isNegotiatedRoute,
  NegotiatedReply,
  NEGOTIATED_MEDIA_TYPES,
  TOKEN_COUNT_JSON_HEADER,
  TOKEN_COUNT_TOON_HEADER,
  TOKEN_SAVINGS_HEADER,
  FORMAT_USED_HEADER,
  type NegotiatedReplyOptions,
  type NegotiationOptions,
} from "./negotiated.js";
export {
  parseAccept,
  acceptQuality,
  selectMediaType,
  negotiateFormat,
  MAX_ACCEPT_RANGES,
  TOON_MEDIA_TYPE,
  TOON_TEXT_MEDIA_TYPE,
  TOON_MEDIA_TYPES,
  type AcceptRange,
  type FormatChoice,
  type ResponseFormat,
} from "./negotiate.js";
