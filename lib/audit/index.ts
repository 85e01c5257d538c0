// keel/audit: a tamper-evident audit log. Records are JSON lines chained by SHA-256 (each names
// the hash of the line before it), numbered without gaps, appended by one writer to rotating
// files (the oldest deleted past a total size or age, vouched for in the chain); `verifyAuditLog(dir)`
// / `audit verify <dir>` find the first modified, deleted, reordered or truncated record. `audit()` is the app plugin and the handlers' recorder.
export { auditLog, type AuditLog, type AuditLogOptions } from "./audit-log.js";
export { fileAuditSink, AuditLogOpenError, DEFAULT_AUDIT_FILE_BYTES, DEFAULT_AUDIT_TOTAL_BYTES, type FileAuditSinkOptions, type AuditFsyncPolicy } from "./file-sink.js";
export { memoryAuditSink, DEFAULT_MEMORY_AUDIT_LINES, type MemoryAuditSink, type MemoryAuditSinkOptions } from "./memory-sink.js";
export { FRESH_HEAD, type AuditSink, type AuditSinkOpening, type AuditChainHead, type AuditRetentionPlan, type TornLineReport } from "./sink.js";
export { GENESIS_HASH, lineHash, type AuditEvent, type AuditRecord, type AuditOutcome, type AuditActor } from "./record.js";
export { REDACTED as AUDIT_REDACTED } from "./redact.js";
export { auditFileName } from "./file-names.js";
export { audit, type AuditPluginOptions } from "./plugin.js";
export { isAdminRoute } from "./automatic-events.js";
export { AUDIT_STATE_KEY, requestActor, type AuditRequestEvent } from "./request-event.js";
export { verifyAuditLog, type AuditVerifyResult, type AuditVerifyOk, type AuditVerifyProblem, type AuditVerifyOptions } from "./verify.js";
export { runAuditCommand, AUDIT_USAGE, type AuditCommandIo } from "./cli.js";
