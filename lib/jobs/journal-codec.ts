// Journal lines: `<crc32 of the JSON, 8 lowercase hex> <JSON event>\n`. The checksum tells a
// torn or damaged line from a good one when the journal is read back after a crash.
import * as zlib from "node:zlib";
import { isJobEvent, type JobEvent } from "./job-events.js";

// zlib.crc32 arrived in Node 20.15 / 22.2; older Node 20 releases use the table below.
const nativeCrc32 = (zlib as unknown as { crc32?: (data: string | Uint8Array) => number }).crc32;

let table: Uint32Array | null = null;
function crcTable(): Uint32Array {
  if (table !== null) return table;
  table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
}

/** CRC-32 (IEEE 802.3, as zlib/gzip compute it) of bytes, or of a string's UTF-8 encoding. */
export function crc32(data: string | Uint8Array): number {
  if (nativeCrc32 !== undefined) return nativeCrc32(data) >>> 0;
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  const t = crcTable();
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = t[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function hex8(n: number): string {
  return n.toString(16).padStart(8, "0");
}

/** One journal line (with its newline). Throws when the event is not JSON-serializable. */
export function encodeJournalLine(event: JobEvent): string {
  const json = JSON.stringify(event);
  return hex8(crc32(json)) + " " + json + "\n";
}

export interface JournalReadResult {
  events: JobEvent[];
  /** Bytes up to the end of the last good line; a torn tail lies beyond. */
  goodBytes: number;
  /** Bytes dropped at the end: a line cut short by a crash. */
  tornBytes: number;
  /** Complete lines in the middle that failed their checksum or shape check (skipped). */
  corruptLines: number;
}

const NEWLINE = 0x0a;
const HEX = /^[0-9a-f]{8}$/;

function decodeLine(buf: Buffer, start: number, end: number): JobEvent | null {
  if (end - start < 10 || buf[start + 8] !== 0x20) return null;
  const head = buf.toString("latin1", start, start + 8);
  if (!HEX.test(head)) return null;
  const body = buf.subarray(start + 9, end);
  if (crc32(body) !== parseInt(head, 16)) return null;
  let value: unknown;
  try {
    value = JSON.parse(body.toString("utf8"));
  } catch {
    return null;
  }
  return isJobEvent(value) ? value : null;
}

/**
 * Decode a journal. A damaged line at the very end (no newline, or failing its checksum with only
 * damaged lines after it) is a torn write and is dropped; damaged lines in the middle are skipped
 * and counted.
 */
export function readJournal(buf: Buffer): JournalReadResult {
  const events: JobEvent[] = [];
  let goodBytes = 0;
  let pendingCorrupt = 0;
  let corruptLines = 0;
  let start = 0;
  while (start < buf.length) {
    const nl = buf.indexOf(NEWLINE, start);
    if (nl === -1) break;
    const ev = decodeLine(buf, start, nl);
    if (ev === null) pendingCorrupt++;
    else {
      corruptLines += pendingCorrupt;
      pendingCorrupt = 0;
      events.push(ev);
      goodBytes = nl + 1;
    }
    start = nl + 1;
  }
  return { events, goodBytes, tornBytes: buf.length - goodBytes, corruptLines };
}
