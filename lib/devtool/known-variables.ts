// The KEEL_* environment variables something in keel reads: `keel doctor` calls any other one a
// problem (most likely a typo: KEEL_ENVIRONMENT, KEEL_JWT_SECRETS). An app reading names of its
// own passes them with `keel doctor --known NAME,NAME`. spec/cli checks the list against lib/.
export const KNOWN_KEEL_VARIABLES: readonly string[] = [
  // kernel and service
  "KEEL_ENV",
  "KEEL_WORKER_SLOT",
  // the sample service's settings (lib/sample/settings.ts, main.ts)
  "KEEL_JWT_SECRET",
  "KEEL_CORS_ORIGINS",
  "KEEL_ADMIN_TOKEN",
  "KEEL_AUDIT_DIR",
  "KEEL_REPLAY_FILE",
  "KEEL_JOB_LEASE_MS",
  "KEEL_REPORT_DELAY_MS",
  "KEEL_EVENTS_MAX_SUBSCRIBERS",
  "KEEL_DATA_DIR",
  "KEEL_MIGRATE",
];
