// A logger that keeps every record, for asserting on what keel logs.
import type { Logger } from "../../lib/index.js";

export interface CapturedRecord {
  level: number;
  msg: string;
  fields: Record<string, unknown>;
}

export function captureLogger(level = 0): Logger & { records: CapturedRecord[] } {
  const records: CapturedRecord[] = [];
  return {
    level,
    records,
    log(l, msg, fields = {}) {
      if (l >= level) records.push({ level: l, msg, fields });
    },
  };
}
