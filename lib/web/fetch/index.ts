// keel/web fetch: the seam to Web fetch handlers, both ways. fetchHandler(app) drives a keel app
// with a `Request` (tests, edge adapters, other runtimes); mountFetch(prefix, handler) runs a
// `(Request) => Response` handler (a Hono app, better-auth, Auth.js) under a prefix of a keel app,
// inside its layers. See docs/features/fetch.md.
export { fetchHandler, type FetchHandler, type FetchInfo } from "./fetch-handler.js";
export { mountFetch, type MountFetchOptions, type WebFetchHandler } from "./mount-fetch.js";
