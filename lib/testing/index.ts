// keel/testing: mockServer(), a loopback server answering declared expectations, for testing the
// calls an app makes (tracedFetch, JWKS, OTLP export) without the network.
export { mockServer, MockServer, DEFAULT_MOCK_MAX_BODY_BYTES, DEFAULT_MOCK_MAX_REQUESTS, MAX_MOCK_EXPECTATIONS, type MockServerOptions } from "./mock-server.js";
export { Expectation, type MockAnswer, type MockFault, type MockReply } from "./expectation.js";
export { partialMatch, type BodyMatcher, type RequestMatcher, type ValueMatcher } from "./matchers.js";
export type { ReceivedRequest } from "./received.js";
export { MockVerificationError } from "./verification-error.js";
