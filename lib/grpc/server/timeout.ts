// grpc-timeout: "TimeoutValue TimeoutUnit", at most 8 ASCII digits and one of H M S m u n
// (hours, minutes, seconds, milliseconds, microseconds, nanoseconds).
const UNIT_MS: Readonly<Record<string, number>> = { H: 3_600_000, M: 60_000, S: 1000, m: 1, u: 0.001, n: 0.000_001 };
const TIMEOUT = /^(\d{1,8})([HMSmun])$/;

/** The timeout in milliseconds (fractions kept), or undefined when the value is malformed. */
export function parseGrpcTimeout(value: string): number | undefined {
  const match = TIMEOUT.exec(value);
  if (match === null) return undefined;
  return Number(match[1]) * UNIT_MS[match[2]!]!;
}
