// The one "is this production" rule (KEEL_ENV, the spec's FRAMEWORK_ENV). Every place that
// behaves differently in production (5xx masking, mandatory secrets, log defaults) asks here, so a
// value can never half-apply. `KEEL_ENV_VALUES` is what the service configuration accepts.

export const KEEL_ENV_VALUES = ["development", "dev", "test", "production", "prod"] as const;
export type KeelEnv = (typeof KEEL_ENV_VALUES)[number];

/** True for `production` / `prod` (any case); everything else is not production. */
export function isProductionEnv(env: string | undefined): boolean {
  const v = (env ?? "").toLowerCase();
  return v === "production" || v === "prod";
}
