// Server-side sessions: session(options) is the layer, sessionState() gives a handler its
// request's Session (a signed random id in a cookie, the data as JSON in a Store).
export { session, sessionState, SESSION_KEY, type SessionOptions } from "./session-layer.js";
export type { Session } from "./session.js";
