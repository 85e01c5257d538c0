// The upgrade mechanics of WebSocket routes, installed on an app by `useWebSockets(app, acceptor)`
// (keel/plugin; keel/ws's `websockets()` plugin calls it). `route.ws(...)` declares a GET route
// whose layers and extractors run on the upgrade request as on any other (auth, rate limits,
// request ids); when they pass, the chain's last step answers with an UpgradeReply instead of
// calling the handler. The socket then goes to the acceptor (the handshake and RFC 6455 itself)
// and the handler gets the open connection and the extracted values. A refused upgrade is an
// ordinary reply: the uniform error body, written on the socket by the normal writer. The request
// comes in through the app's front door (App.contextFor), so a bad target or Host is refused here
// exactly as on a plain request.
import { ServerResponse, type IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { App } from "../core/app.js";
import { handlerStep, type Chain } from "../core/chain.js";
import type { Context } from "../core/context.js";
import { ApiError, type ErrorType } from "../core/errors.js";
import { Reply } from "../core/reply.js";
import type { RouteDefinition } from "../core/route.js";
import type { WebSocketAcceptor } from "../core/upgrade.js";
import type { UpgradeProtocol } from "../core/upgrade-protocol.js";
import { isPromise } from "../util/is-promise.js";
import { upgradeChannel } from "../core/tracing.js";
import { writeReply } from "./write.js";

/** The reply of an accepted upgrade: the extracted values, for the handler once the socket is open. */
class UpgradeReply extends Reply<101, undefined> {
  readonly args: readonly unknown[];
  constructor(args: readonly unknown[]) {
    super(101, null);
    this.args = args;
  }
}

/** Requests that arrived through the server's 'upgrade' event (they have no ServerResponse of their own). */
const upgrading = new WeakSet<IncomingMessage>();

/** Give `app`'s `route.ws` routes the WebSocket protocol of `acceptor`. */
export function useWebSockets(app: App, acceptor: WebSocketAcceptor): App {
  return app.useUpgrades(webSocketUpgrades(app, acceptor));
}

function webSocketUpgrades(app: App, acceptor: WebSocketAcceptor): UpgradeProtocol {
  /**
   * The last step of a WebSocket route: a plain GET is told to upgrade (426); an upgrade request
   * whose handshake headers are wrong gets the acceptor's refusal; otherwise the extractors run
   * and their values wait in an UpgradeReply for the handler (see finish).
   */
  const step = (def: RouteDefinition): Chain => {
    const options = def.meta.websocket ?? {};
    const extract = handlerStep(def.extractors, (...args: unknown[]) => new UpgradeReply(args), null, false);
    return (ctx) => {
      if (!upgrading.has(ctx.req)) {
        throw new ApiError(426, "upgrade_required", "This route speaks WebSocket: send an upgrade request", { headers: { upgrade: "websocket", connection: "upgrade" } });
      }
      const refusal = acceptor.check(ctx.req, options);
      if (refusal !== null) {
        const type = refusal.type ?? (refusal.status === 403 ? "forbidden" : "bad_request");
        throw new ApiError(refusal.status, type as ErrorType, refusal.message, refusal.headers === undefined ? {} : { headers: { ...refusal.headers } });
      }
      return extract(ctx);
    };
  };

  const finish = (ctx: Context, reply: Reply, socket: Duplex, head: Buffer): void => {
    // App.chainFor sets ctx.route (listen compiled the app) to the matched RouteDefinition.
    const route = ctx.route as RouteDefinition | null;
    if (!(reply instanceof UpgradeReply) || route === null) {
      if (upgradeChannel.hasSubscribers) upgradeChannel.publish({ context: ctx, route: route?.pattern ?? null, params: ctx.params, status: reply.status, websocket: null });
      writeReply(ctx, reply);
      return;
    }
    const res = ctx.res!;
    res.detachSocket(socket as Socket);
    if (socket.destroyed) return;
    let ws;
    try {
      ws = acceptor.accept(ctx.req, socket, head, route.meta.websocket ?? {}, reply.headers);
    } catch (err) {
      app.runtime.logger.log(50, "websocket handshake failed", { message: err instanceof Error ? err.message : String(err), route: route.pattern });
      socket.destroy();
      return;
    }
    if (upgradeChannel.hasSubscribers) upgradeChannel.publish({ context: ctx, route: route.pattern, params: ctx.params, status: 101, websocket: ws });
    const failed = (err: unknown): void => {
      app.runtime.logger.log(50, "websocket handler failed", { message: err instanceof Error ? err.message : String(err), route: route.pattern });
      ws.close(1011, "internal error");
    };
    try {
      const out = route.handler(ws, ...reply.args);
      if (isPromise(out)) out.then(undefined, failed);
    } catch (err) {
      failed(err);
    }
  };

  /**
   * The node:http 'upgrade' listener (taken by `listen` when the app has WebSocket routes). The
   * request runs through the same chain as any other, answered through a ServerResponse on the
   * raw socket, so a refusal (404, 401, 429, a bad handshake) is the uniform error; an accepted
   * upgrade hands the socket to the acceptor and the connection to the route's handler.
   */
  const listener = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    upgrading.add(req);
    const res = new ServerResponse(req);
    res.assignSocket(socket as Socket);
    res.shouldKeepAlive = false;
    // A refusal ends the connection once written: the socket was never the server's to reuse.
    res.once("finish", () => socket.end());
    socket.on("error", () => socket.destroy());
    const ctx = app.contextFor(req, res);
    const r = app.chainFor(ctx)(ctx);
    if (isPromise(r)) r.then((reply) => finish(ctx, reply, socket, head));
    else finish(ctx, r, socket, head);
  };

  return { step, listener, closeAll: (timeoutMs) => acceptor.closeAll(timeoutMs) };
}
