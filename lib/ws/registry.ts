// The open connections of a server, for draining on shutdown: closeAll() sends every one a
// close frame (1001 Going Away by default) and resolves when all have closed, or terminates
// the stragglers at the deadline.
import { CloseCode, ReadyState } from "./constants.js";
import type { WebSocket } from "./websocket.js";

export interface CloseAllOptions {
  /** Wait at most this long for the closing handshakes (default 5000 ms), then terminate. */
  timeoutMs?: number;
}

export class WebSocketRegistry {
  private readonly open = new Set<WebSocket>();

  /** Track a connection until it closes (acceptWebSocket does this with `options.registry`). */
  add(ws: WebSocket): void {
    if (ws.readyState === ReadyState.CLOSED || this.open.has(ws)) return;
    this.open.add(ws);
    ws.once("close", () => this.open.delete(ws));
  }

  get size(): number {
    return this.open.size;
  }

  [Symbol.iterator](): IterableIterator<WebSocket> {
    return this.open.values();
  }

  /** Close every open connection; resolves when all are closed or after the deadline. */
  closeAll(code: number = CloseCode.GoingAway, reason = "", options: CloseAllOptions = {}): Promise<void> {
    const timeoutMs = options.timeoutMs ?? 5000;
    const pending = [...this.open];
    if (pending.length === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      let left = pending.length;
      let timer: NodeJS.Timeout | undefined;
      const closed = (): void => {
        if (--left === 0) {
          if (timer !== undefined) clearTimeout(timer);
          resolve();
        }
      };
      for (const ws of pending) {
        if (ws.readyState === ReadyState.CLOSED) {
          closed();
          continue;
        }
        ws.once("close", closed);
        ws.close(code, reason);
      }
      if (left > 0) {
        timer = setTimeout(() => {
          for (const ws of pending) ws.terminate(); // their 'close' events resolve the promise
        }, timeoutMs);
        timer.unref();
      }
    });
  }
}
