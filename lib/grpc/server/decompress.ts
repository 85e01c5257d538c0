// Compressed request messages (flag 1) under the request's grpc-encoding. The output is bounded
// by the receive limit, so a small compressed message cannot expand into a large allocation.
import { promisify } from "node:util";
import { gunzip, inflate, type InputType, type ZlibOptions } from "node:zlib";
import { GrpcError } from "./grpc-error.js";
import { GrpcStatus } from "./status.js";

type Inflater = (buffer: InputType, options: ZlibOptions) => Promise<Buffer>;

const INFLATERS: ReadonlyMap<string, Inflater> = new Map<string, Inflater>([
  ["gzip", promisify(gunzip) as Inflater],
  ["deflate", promisify(inflate) as Inflater],
]);

/** What the server can read, for grpc-accept-encoding. */
export const ACCEPTED_ENCODINGS = "identity,deflate,gzip";

/** Whether a request's grpc-encoding is one this server reads. */
export function isSupportedEncoding(encoding: string): boolean {
  return encoding === "identity" || INFLATERS.has(encoding);
}

export async function decompressMessage(data: Buffer, encoding: string, maxLength: number): Promise<Buffer> {
  const inflater = INFLATERS.get(encoding);
  if (inflater === undefined) {
    // A compressed flag under identity (or no grpc-encoding) is a protocol violation.
    throw new GrpcError(GrpcStatus.INTERNAL, `Compressed message received with grpc-encoding "${encoding}"`);
  }
  try {
    // maxOutputLength is the limit + 1 so a message of exactly the limit passes and one more byte fails.
    const out = await inflater(data, { maxOutputLength: maxLength + 1 });
    if (out.byteLength > maxLength) throw new RangeError("too large");
    return out;
  } catch (err) {
    if (err instanceof RangeError || (err as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") {
      throw new GrpcError(GrpcStatus.RESOURCE_EXHAUSTED, `Received message that decompresses to a size larger than ${maxLength}`);
    }
    throw new GrpcError(GrpcStatus.INTERNAL, "Failed to decompress message");
  }
}
