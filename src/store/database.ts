/**
 * Opening the store's database: a SQLite file (sqlite.ts; the default, in FAULTLINE_HOME) or a
 * PostgreSQL server named by a `postgres://` URL (postgres.ts), either brought up to date by its
 * migrations. Both answer the same asynchronous interface (driver.ts).
 */
import { isPostgresUrl, type Db } from './driver.js';
import { openPostgres, type PostgresOptions } from './postgres.js';
import { openSqlite } from './sqlite.js';

export type { Db, Dialect, Queries } from './driver.js';
export { isPostgresUrl } from './driver.js';
export type { PostgresOptions } from './postgres.js';
export { StoreUnavailableError } from './unavailable.js';

/**
 * Opens (creating if needed) the database at `target`, a SQLite file path, `:memory:`, or a
 * `postgres://` URL, and brings its schema up to date. A PostgreSQL server that cannot be reached
 * rejects with a StoreUnavailableError whose message is one line.
 */
export async function openDatabase(target: string, options: PostgresOptions = {}): Promise<Db> {
  return isPostgresUrl(target) ? openPostgres(target, options) : openSqlite(target);
}
