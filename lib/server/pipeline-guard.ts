// Pipelined requests that the client never reads the answers to pile up: Node parses a whole
// socket read (up to 64 KiB, thousands of tiny requests) before it pauses, and each one costs a
// request, a response and our context until its turn to be written. Requests that arrive behind
// an unanswered one are counted per socket; past the limit the socket is cut. The common case
// (one request at a time) never gets here: its response owns the socket at once.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { LOG_LEVELS, type Logger } from "../util/logger.js";

const waiting = new WeakMap<Socket, number>();

/** Count a request queued behind another on its socket; false when it must not run. */
export function admitPipelined(req: IncomingMessage, res: ServerResponse, max: number, logger: Logger): boolean {
  const socket = req.socket;
  if (socket.destroyed) return false;
  const count = (waiting.get(socket) ?? 0) + 1;
  if (count > max) {
    if (LOG_LEVELS.warn >= logger.level) {
      logger.log(LOG_LEVELS.warn, "too many pipelined requests; connection closed", { limit: max, remote_addr: socket.remoteAddress });
    }
    socket.destroy();
    return false;
  }
  waiting.set(socket, count);
  res.once("close", () => {
    const n = waiting.get(socket);
    if (n !== undefined) waiting.set(socket, n - 1);
  });
  return true;
}
