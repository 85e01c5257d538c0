// Lingering close, as nginx does it. When we answer before the request body was read (a 413, a
// 401 before the upload), closing the socket at once makes the kernel send a reset while the
// client is still writing, and the reset throws away our answer on the client's side (EPIPE or
// ECONNRESET instead of the 413). So after the answer is sent we half-close (FIN), keep reading
// and discarding what the client still sends, and close when it is done, or after `lingerBytes`
// or `lingerTimeout`, whichever comes first.
//
// Node closes a `connection: close` socket through `socket.destroySoon()` once the response is
// finished; this file gives that one socket its own destroySoon. Nothing else changes, and the
// common path (the body was read, or there was none) never comes here.
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";

const LINGER_POLL_MS = 50;

export interface LingerLimits {
  readonly lingerBytes: number;
  readonly lingerTimeout: number;
}

/** Arm a lingering close for the socket of `req`, used when its unread body must be discarded. */
export function armLingeringClose(req: IncomingMessage, limits: LingerLimits): void {
  const socket = req.socket as Socket & { destroySoon?: () => void };
  if (socket === null || socket === undefined || socket.destroyed || typeof socket.destroySoon !== "function") return;
  socket.destroySoon = function lingeringDestroySoon(this: Socket) {
    linger(this, req, limits);
  };
}

function linger(socket: Socket, req: IncomingMessage, limits: LingerLimits): void {
  if (socket.writable) socket.end(); // our FIN goes out after the response bytes
  if (req.complete || limits.lingerTimeout === 0) {
    closeWhenFlushed(socket);
    return;
  }
  // Bytes are counted on the socket: the parser may read the handle directly and a dumped
  // request emits no 'data', so a coarse poll is the one count that always works.
  const startBytes = socket.bytesRead;
  const deadline = Date.now() + limits.lingerTimeout;
  const poll = setInterval(() => {
    if (socket.bytesRead - startBytes > limits.lingerBytes || Date.now() >= deadline) stop();
  }, LINGER_POLL_MS);
  poll.unref();
  function stop(): void {
    clearInterval(poll);
    closeWhenFlushed(socket);
  }
  // The body ending, or the client closing its side (it read the answer), ends the wait.
  req.once("end", stop);
  req.once("error", stop);
  socket.once("end", stop);
  socket.once("close", () => clearInterval(poll));
  req.resume(); // flowing with no reader: the parser's body chunks are dropped
}

function closeWhenFlushed(socket: Socket): void {
  if (socket.destroyed) return;
  if (socket.writableFinished) socket.destroy();
  else socket.once("finish", () => socket.destroy());
}
