// keel/replay: record a sample of requests with their answers (secrets redacted), keep them in
// memory or a JSONL file, browse them through guarded admin routes, and replay one against
// another server with a structural diff of the answers (`runReplayCommand` for a service CLI).
// Exported names carry "Replay" where a generic one could meet another feature's in dist/keel.js.
export { replay, type ReplayOptions, type ReplayPlugin } from "./plugin.js";
export type { ReplayRecord, RecordedRequest, RecordedResponse, RecordedBody, RecordedHeaders, RecordMeta, ReplayListFilter } from "./record.js";
export type { ReplayRouteFilter } from "./route-filter.js";
export type { ReplayStore } from "./store.js";
export { MemoryReplayStore, type MemoryReplayStoreOptions } from "./memory-store.js";
export { FileReplayStore, type FileReplayStoreOptions } from "./file-store.js";
export {
  DEFAULT_SECRET_HEADERS as REPLAY_SECRET_HEADERS,
  RECORDED_REQUEST_HEADERS as REPLAY_RECORDED_HEADERS,
  SECRET_FIELD_NAMES as REPLAY_SECRET_FIELDS,
  REDACTED as REPLAY_REDACTED,
} from "./redaction.js";
export { DEFAULT_ADMIN_PATH as DEFAULT_REPLAY_ADMIN_PATH, type ReplaySummary } from "./admin-routes.js";
export { replayRecord, parseReplayTarget, type ReplayTargetOptions, type ReplayedResponse } from "./replay-request.js";
export { ReplayError } from "./replay-error.js";
export {
  diffReplay,
  VOLATILE_HEADERS as REPLAY_VOLATILE_HEADERS,
  VOLATILE_FIELDS as REPLAY_VOLATILE_FIELDS,
  type ReplayDiff,
  type ReplayDiffOptions,
  type HeaderChange as ReplayHeaderChange,
  type BodyDiff as ReplayBodyDiff,
  type ComparableResponse as ReplayComparableResponse,
} from "./diff.js";
export type { JsonChange as ReplayJsonChange } from "./json-diff.js";
export type { LineChange as ReplayLineChange } from "./text-diff.js";
export { formatDiff as formatReplayDiff } from "./format-diff.js";
export { runReplayCommand, REPLAY_USAGE, type ReplayCommandIo, type ReplayCommandOptions } from "./command.js";
