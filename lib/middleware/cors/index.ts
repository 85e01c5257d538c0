// keel/middleware: cors() answers preflights and decorates responses for allowed origins.
export { cors, addVary, type CorsOptions, type CorsOriginPredicate } from "./cors.js";
