/**
 * Opening the store's database: a SQLite file (sqlite.ts; the default, in FAULTLINE_HOME) or a
 * PostgreSQL server named by a `postgres://` URL (postgres.ts), either brought up to date by its
 * migrations. Both answer the same synchronous interface (driver.ts).
 */
import { isPostgresUrl, type Db } from './driver.js';
import { openPostgres } from './postgres.js';
import { openSqlite } from './sqlite.js';

export type { Db, Dialect, Statement } from './driver.js';
export { isPostgresUrl } from './driver.js';

/**
 * Opens (creating if needed) the database at `target`, a SQLite file path, `:memory:`, or a
 * `postgres://` URL, and brings its schema up to date.
 */
export function openDatabase(target: string): Db {
  return isPostgresUrl(target) ? openPostgres(target) : openSqlite(target);
}
