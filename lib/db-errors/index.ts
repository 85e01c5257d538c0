// keel/db-errors: database driver errors (PostgreSQL, MySQL, SQLite, ORM not-found) mapped to the
// uniform body. Register it once: `app.mapErrors(mapDatabaseError)`.
export { mapDatabaseError } from "./db-errors.js";
