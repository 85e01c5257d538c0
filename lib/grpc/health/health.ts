// The standard health service (grpc.health.v1.Health): Check answers a service's status (the
// empty name is the server as a whole), Watch streams it and every change after. Registered with
// server.addService(health), it turns everything NOT_SERVING first thing in close(), so load
// balancers stop sending calls while in-flight ones drain; open Watch streams get that update and
// then end.
import type { DecodedMessage, ServiceDescriptor } from "../proto/index.js";
import type { GrpcCall } from "../server/call.js";
import { GrpcError } from "../server/grpc-error.js";
import type { ServiceImplementation } from "../server/handlers.js";
import type { GrpcServiceRegistration } from "../server/server.js";
import { GrpcStatus } from "../server/status.js";
import { healthServiceDescriptor } from "./health-proto.js";

export type ServingStatus = "SERVING" | "NOT_SERVING";

interface HealthResponse {
  status: ServingStatus | "SERVICE_UNKNOWN";
}

export class HealthService implements GrpcServiceRegistration {
  readonly service: ServiceDescriptor;
  readonly implementation: ServiceImplementation;
  readonly #statuses = new Map<string, ServingStatus>();
  readonly #listeners = new Set<() => void>();
  #shuttingDown = false;

  constructor(statusMap: Readonly<Record<string, ServingStatus>> = {}) {
    this.service = healthServiceDescriptor();
    this.#statuses.set("", "SERVING");
    for (const name of Object.keys(statusMap)) this.#set(name, statusMap[name]!);
    this.implementation = {
      Check: (request: DecodedMessage): HealthResponse => {
        const status = this.#statuses.get(String(request["service"] ?? ""));
        if (status === undefined) throw new GrpcError(GrpcStatus.NOT_FOUND, "Unknown service");
        return { status };
      },
      Watch: (request: DecodedMessage, call: GrpcCall): AsyncIterable<HealthResponse> => this.#watch(String(request["service"] ?? ""), call.signal),
    };
  }

  /** Set a service's status ("" is the whole server). Ignored once shutdown began. */
  setStatus(service: string, status: ServingStatus): void {
    if (this.#shuttingDown) return;
    this.#set(service, status);
  }

  /** The status of `service`, undefined if it was never set. */
  getStatus(service: string): ServingStatus | undefined {
    return this.#statuses.get(service);
  }

  /** Every service NOT_SERVING, for good (the server calls this when close() begins). */
  onShutdown(): void {
    if (this.#shuttingDown) return;
    for (const name of this.#statuses.keys()) this.#statuses.set(name, "NOT_SERVING");
    this.#shuttingDown = true;
    this.#notify();
  }

  #set(service: string, status: ServingStatus): void {
    if (status !== "SERVING" && status !== "NOT_SERVING") throw new TypeError(`healthService: status must be "SERVING" or "NOT_SERVING", got ${JSON.stringify(status)}`);
    if (this.#statuses.get(service) === status) return;
    this.#statuses.set(service, status);
    this.#notify();
  }

  #notify(): void {
    const listeners = [...this.#listeners];
    this.#listeners.clear();
    for (const listener of listeners) listener();
  }

  async *#watch(service: string, signal: AbortSignal): AsyncGenerator<HealthResponse> {
    let last: string | undefined;
    while (!signal.aborted) {
      const status = this.#statuses.get(service) ?? "SERVICE_UNKNOWN";
      if (status !== last) {
        last = status;
        yield { status };
      }
      if (this.#shuttingDown) return;
      await this.#nextChange(signal);
    }
  }

  #nextChange(signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = (): void => {
        signal.removeEventListener("abort", done);
        this.#listeners.delete(done);
        resolve();
      };
      this.#listeners.add(done);
      signal.addEventListener("abort", done, { once: true });
    });
  }
}

/** A health service with `statusMap` (the overall "" entry defaults to SERVING). */
export function healthService(statusMap?: Readonly<Record<string, ServingStatus>>): HealthService {
  return new HealthService(statusMap);
}
