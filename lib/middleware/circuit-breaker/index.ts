// keel/middleware: circuitBreaker() per route and dependencyBreaker() around outgoing calls.
export {
  circuitBreaker,
  dependencyBreaker,
  BreakerCore,
  type CircuitBreakerOptions,
  type CircuitBreakerLayer,
  type DependencyBreaker,
  type DependencyBreakerOptions,
  type BreakerOptions,
  type BreakerState,
  type BreakerSnapshot,
  type BreakerRecord,
} from "./circuit-breaker.js";
