// The files of a file audit log: `audit-000001.jsonl`, `audit-000002.jsonl`, ... in one
// directory. The number is at least six digits and grows past them (`audit-1000000.jsonl`);
// anything else in the directory (the lock, torn-line files) is not part of the log.
import { readdir } from "node:fs/promises";

export interface AuditFileName {
  readonly name: string;
  readonly index: number;
}

const PREFIX = "audit-";
const SUFFIX = ".jsonl";

export function auditFileName(index: number): string {
  return PREFIX + String(index).padStart(6, "0") + SUFFIX;
}

/** The file's index, or null when `name` is not a log file name (exactly as auditFileName writes it). */
export function auditFileIndex(name: string): number | null {
  if (!name.startsWith(PREFIX) || !name.endsWith(SUFFIX)) return null;
  const digits = name.slice(PREFIX.length, name.length - SUFFIX.length);
  if (digits.length < 6 || digits.length > 15) return null;
  for (let i = 0; i < digits.length; i++) {
    const c = digits.charCodeAt(i);
    if (c < 48 || c > 57) return null;
  }
  const index = Number(digits);
  return index >= 1 && auditFileName(index) === name ? index : null;
}

/** The log's files in `dir`, oldest first. */
export async function listAuditFiles(dir: string): Promise<AuditFileName[]> {
  const files: AuditFileName[] = [];
  for (const name of await readdir(dir)) {
    const index = auditFileIndex(name);
    if (index !== null) files.push({ name, index });
  }
  return files.sort((a, b) => a.index - b.index);
}
