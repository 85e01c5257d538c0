// keel/auth: authentication layers (JWT bearer, API keys), guards and the OAuth2 PKCE client.
// Token signing and verification live in keel/jose; this entry is the HTTP side of them.
export * from "./jwt/index.js";
export * from "./guards/index.js";
export * from "./api-key/index.js";
export * from "./oauth2/index.js";
