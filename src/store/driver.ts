/**
 * What the store's queries need of a database, met by SQLite (sqlite.ts) and PostgreSQL
 * (postgres.ts) alike: a Kysely instance over the store's tables, asynchronous throughout. On
 * SQLite the calls are better-sqlite3's, fast and local, answered as promises; on PostgreSQL they
 * go through a pool of connections, several statements in flight at once and each transaction on a
 * client of its own. Queries are written with the builder; the few expressions the two databases
 * spell differently come from dialect-sql.ts, by `store.dialect`.
 */
import type { Kysely } from 'kysely';
import type { StoreTables } from './tables.js';

/** Which database a store talks to. */
export type Dialect = 'sqlite' | 'postgres';

/** The query builder over the store's tables (a transaction is one too). */
export type Queries = Kysely<StoreTables>;

/** An open database. */
export interface Db {
  readonly dialect: Dialect;
  /** Where it points, for log lines (a URL without its password). */
  readonly location: string;
  /** The query builder; `queries.transaction().execute(…)` runs a body in one transaction. */
  readonly queries: Queries;
  /** Closes the connection (SQLite) or ends the pool (PostgreSQL). */
  close(): Promise<void>;
}

/** Whether a database setting names a PostgreSQL server rather than a SQLite file. */
export const isPostgresUrl = (target: string) => /^postgres(ql)?:\/\//i.test(target);

/** A PostgreSQL URL with its password replaced, safe to log and to put in error messages. */
export function redactUrl(target: string): string {
  try {
    const url = new URL(target);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return target.replace(/\/\/[^@/]*@/, '//***@');
  }
}
