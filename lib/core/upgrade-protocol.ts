// What App asks of the upgrade mechanics. App holds an UpgradeProtocol only when a feature
// installed one (keel/plugin's useWebSockets, which keel/ws's websockets() plugin calls; built in
// lib/server/upgrade.ts), so an app without WebSocket routes carries neither the mechanics nor
// the protocol.
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { Chain } from "./chain.js";
import type { RouteDefinition } from "./route.js";

/** What App asks of the upgrade mechanics (built by useWebSockets in lib/server/upgrade.ts). */
export interface UpgradeProtocol {
  /** The last step of an upgrade route's chain, in place of its handler. */
  step(def: RouteDefinition): Chain;
  /** The server's 'upgrade' listener. */
  readonly listener: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
  /** Close every upgraded connection (drain); resolves when they are gone or cut off. */
  closeAll(timeoutMs: number): Promise<void>;
}
