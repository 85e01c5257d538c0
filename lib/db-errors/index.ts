// keel/db-errors: database driver errors (PostgreSQL, MySQL, SQLite, ORM not-found) mapped to the
// uniform body. Register it once: `app.mapErrors(mapDatabaseError)`.
export { mapDatabaseError, isRetryableDatabaseError, DATABASE_RETRY_AFTER_SECONDS } from "./db-errors.js";
