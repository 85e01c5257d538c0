// Signed cookies: cookieSigner(keys) signs values (HMAC-SHA256, bound to the cookie name, key
// rotation) and signedCookie(name, signer) reads one back in a handler. Setting them is the
// kernel's `reply.setCookie(name, signer.sign(value, name), options)`.
export { cookieSigner, MIN_COOKIE_KEY_BYTES, type CookieSigner } from "./cookie-signer.js";
export { signedCookie } from "./signed-cookie.js";
