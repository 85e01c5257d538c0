// keel/auth: apiKey(), keys stored as digests and compared in constant time.
export { apiKey, apiKeyDigest, apiKeySecurityScheme, type ApiKeyOptions, type ApiKeyEntry, type ApiKeyVerdict } from "./api-key.js";
