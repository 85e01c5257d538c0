// A batch of spans written as OTLP/HTTP protobuf bytes as the spans arrive (the protobuf twin of
// span-batch.ts). The spans are written from a fixed offset that leaves room for the request's
// prefix (the resource_spans, resource, scope_spans and scope fields), whose lengths are known
// only when the batch is finished; finish() writes that prefix so that it ends where the spans
// begin and returns the bytes from its start, so nothing is moved.
// The bytes are exactly `otlpTracesRequestProtobuf(spans, resource, scope)`.
import { Buffer } from "node:buffer";
import type { SpanRecord } from "../service/index.js";
import { protobufPrefixRoom, writeProtobufPrefix, writeProtobufSpan, type ProtobufBatchHead } from "./otlp-protobuf.js";
import { ProtoWriter } from "./proto-writer.js";
import { sharedBytes } from "./shared-bytes.js";
import type { ExportBatch } from "./span-batch.js";

const INITIAL_BYTES = 64 * 1024;

export class ProtobufSpanBatch implements ExportBatch {
  private readonly head: ProtobufBatchHead;
  private readonly writer: ProtoWriter;
  /** Where the first span starts. */
  private readonly spansStart: number;
  /** Spans in the batch. */
  count = 0;

  /** `reuse`: a buffer no longer in use (its contents are overwritten); otherwise one is allocated. */
  constructor(head: ProtobufBatchHead, reuse?: Buffer) {
    this.head = head;
    this.spansStart = protobufPrefixRoom(head);
    const buf = reuse !== undefined && reuse.length >= this.spansStart ? reuse : sharedBytes(Math.max(INITIAL_BYTES, this.spansStart * 2));
    this.writer = new ProtoWriter(buf, this.spansStart);
  }

  /** The whole underlying buffer, to hand to the next batch once this one's export is over. */
  get buffer(): Buffer {
    return this.writer.buf;
  }

  add(record: SpanRecord): void {
    writeProtobufSpan(this.writer, record);
    this.count++;
  }

  /** The request body. The batch is done with. */
  finish(): Buffer {
    const w = this.writer;
    const start = writeProtobufPrefix(w.buf, this.spansStart, this.head, w.pos - this.spansStart);
    return w.buf.subarray(start, w.pos);
  }
}
