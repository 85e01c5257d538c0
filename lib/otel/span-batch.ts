// A batch of spans written as OTLP/HTTP JSON bytes as the spans arrive: the exporter hands spans
// over in runs of up to 32 (exporter.ts), each is turned into its JSON text and appended to one
// growing buffer, so no span objects wait for the whole batch to be sent (hundreds of them would
// outlive young-generation GCs and be promoted) and no large string is built, flattened and
// re-encoded per batch.
// The bytes are exactly `otlpTracesRequestJson(spans, resource, scope)` encoded as UTF-8.
// A batch may be given the buffer of an earlier one (sent and done with): at hundreds of kilobytes
// a batch, fresh buffers would be external memory churn that V8 answers with full collections.
// Its buffers are shared memory, which the export worker reads in place (shared-bytes.ts).
import { Buffer } from "node:buffer";
import type { SpanAttributeValue, SpanRecord } from "../service/index.js";
import { otlpSpanJson, otlpTracesRequestJson, type OtlpScope } from "./otlp-json.js";
import { sharedBytes } from "./shared-bytes.js";

/** What the exporter needs of a batch, whatever its encoding (this file's JSON, protobuf-span-batch.ts). */
export interface ExportBatch {
  /** Spans in the batch. */
  readonly count: number;
  /** The whole underlying buffer, for reuse by a later batch once the export is over. */
  readonly buffer: Buffer;
  add(record: SpanRecord): void;
  /** The request body; the batch is done with. */
  finish(): Buffer;
}

const TAIL = "]}]}]}";
const INITIAL_BYTES = 64 * 1024;

/** The text every batch starts with (resource and scope), for `new SpanBatch(head)`. */
export function spanBatchHead(resource: Readonly<Record<string, SpanAttributeValue>>, scope: OtlpScope): string {
  const empty = otlpTracesRequestJson([], resource, scope);
  return empty.slice(0, empty.length - TAIL.length);
}

export class SpanBatch implements ExportBatch {
  private buf: Buffer;
  private length: number;
  /** Spans in the batch. */
  count = 0;

  /** `reuse`: a buffer no longer in use (its contents are overwritten); otherwise one is allocated. */
  constructor(head: string, reuse?: Buffer) {
    const least = head.length * 3 + TAIL.length;
    this.buf = reuse !== undefined && reuse.length >= least ? reuse : sharedBytes(Math.max(INITIAL_BYTES, least));
    this.length = this.buf.write(head, 0, "utf8");
  }

  /** The whole underlying buffer, to hand to the next batch once this one's export is over. */
  get buffer(): Buffer {
    return this.buf;
  }

  add(record: SpanRecord): void {
    const json = otlpSpanJson(record);
    // A UTF-16 code unit is at most 3 UTF-8 bytes; +1 for the comma.
    this.reserve(json.length * 3 + 1);
    if (this.count > 0) this.buf[this.length++] = 0x2c; // ","
    this.length += this.buf.write(json, this.length, "utf8");
    this.count++;
  }

  /** The request body: the bytes so far and the closing brackets. The batch is done with. */
  finish(): Buffer {
    this.reserve(TAIL.length);
    this.length += this.buf.write(TAIL, this.length, "latin1");
    return this.buf.subarray(0, this.length);
  }

  private reserve(bytes: number): void {
    if (this.length + bytes <= this.buf.length) return;
    const grown = sharedBytes(Math.max(this.buf.length * 2, this.length + bytes));
    this.buf.copy(grown, 0, 0, this.length);
    this.buf = grown;
  }
}
