// The default connection cap of a service: below the process's open-file limit, so slow or idle
// sockets cannot take every descriptor and starve the log file, the job store and new clients.
// Linux reports the limit in /proc/self/limits; elsewhere no cap is derived.
import { readFileSync } from "node:fs";

/** Descriptors kept for everything that is not a client socket (logs, stores, DNS, cluster IPC). */
const RESERVED_DESCRIPTORS = 128;

/** The soft "Max open files" limit, or undefined when it cannot be read or is unlimited. */
export function openFileLimit(limitsText?: string): number | undefined {
  let text = limitsText;
  if (text === undefined) {
    try {
      text = readFileSync("/proc/self/limits", "latin1");
    } catch {
      return undefined;
    }
  }
  const m = /^Max open files\s+(\d+|unlimited)\s/m.exec(text);
  if (m === null || m[1] === "unlimited") return undefined;
  return Number(m[1]);
}

/** 90% of what is left after the reserve (at least 16); 0 (no cap) when the limit is unknown. */
export function defaultMaxConnections(limit: number | undefined): number {
  if (limit === undefined) return 0;
  return Math.max(16, Math.floor((limit - RESERVED_DESCRIPTORS) * 0.9));
}
