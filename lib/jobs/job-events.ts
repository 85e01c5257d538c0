// State changes of a job store, as events. The in-memory table applies them; the file store
// also writes them, one per journal line, and replays them on startup: the same code path
// both times, so a restarted store ends up in the state the old one had.
import type { JobRecord } from "./job-record.js";

export type JobEvent =
  /** A new job (or, in a compacted journal, a job as it was at compaction time). */
  | { e: "put"; r: JobRecord }
  /** pending -> running, attempts + 1. */
  | { e: "start"; id: string; at: number }
  /** running -> succeeded. */
  | { e: "done"; id: string; at: number }
  /** running -> pending at `next`, or -> dead when `next` is null; `err` joins the history. */
  | { e: "fail"; id: string; at: number; err: string; next: number | null }
  /** running -> pending without using up the attempt, keeping its run-at (drain deadline passed). */
  | { e: "rel"; id: string; at: number }
  /** dead -> pending now, attempts reset. */
  | { e: "retry"; id: string; at: number }
  /** dead -> gone. */
  | { e: "del"; id: string };

const STATES = new Set(["pending", "running", "succeeded", "dead"]);

function isFiniteNumber(v: unknown): v is number {
  return typeof v === "number" && Number.isFinite(v);
}

function isRecord(v: unknown): v is JobRecord {
  if (typeof v !== "object" || v === null) return false;
  const r = v as Record<string, unknown>;
  return (
    typeof r["id"] === "string" &&
    typeof r["type"] === "string" &&
    typeof r["state"] === "string" &&
    STATES.has(r["state"]) &&
    isFiniteNumber(r["attempts"]) &&
    isFiniteNumber(r["maxAttempts"]) &&
    isFiniteNumber(r["runAt"]) &&
    isFiniteNumber(r["createdAt"]) &&
    isFiniteNumber(r["updatedAt"]) &&
    (r["key"] === null || typeof r["key"] === "string") &&
    Array.isArray(r["errors"])
  );
}

/** Shape check for events read back from a journal; anything else is treated as corrupt. */
export function isJobEvent(v: unknown): v is JobEvent {
  if (typeof v !== "object" || v === null) return false;
  const ev = v as Record<string, unknown>;
  switch (ev["e"]) {
    case "put":
      return isRecord(ev["r"]);
    case "start":
    case "done":
    case "rel":
    case "retry":
      return typeof ev["id"] === "string" && isFiniteNumber(ev["at"]);
    case "fail":
      return typeof ev["id"] === "string" && isFiniteNumber(ev["at"]) && typeof ev["err"] === "string" && (ev["next"] === null || isFiniteNumber(ev["next"]));
    case "del":
      return typeof ev["id"] === "string";
    default:
      return false;
  }
}
