// keel/middleware: requestId() keeps a valid incoming x-request-id or makes a UUID v4.
export { requestId, compileRequestIdPolicy, isPlainRequestId, REQUEST_ID_HEADER, type RequestIdOptions, type RequestIdPolicy } from "../../shared/request-id.js";
