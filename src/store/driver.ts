/**
 * What the store's queries need of a database, met by SQLite (sqlite.ts) and PostgreSQL
 * (postgres.ts) alike. The interface is better-sqlite3's own shape, synchronous: the store, the
 * server's routes, the job workers and the recording proxy call it without awaiting, and the
 * PostgreSQL driver answers each call by blocking until its connection thread has the rows.
 * SQL is written once, with `?` and `@name` placeholders and the functions both databases have
 * (PostgreSQL gets `instr` and `json_extract` from its schema); the few statements that must
 * differ ask `db.dialect`.
 */

/** Which database a connection talks to. */
export type Dialect = 'sqlite' | 'postgres';

/** Parameters of one statement: positional values, or one object of named ones (`@name`). */
export type Parameters = unknown[];

/** A statement ready to run with parameters. */
export interface Statement {
  /** The first row, or undefined. */
  get(...parameters: Parameters): unknown;
  /** Every row. */
  all(...parameters: Parameters): unknown[];
  /** Runs a change; `changes` is how many rows it touched. */
  run(...parameters: Parameters): { changes: number };
}

/** An open connection. */
export interface Db {
  readonly dialect: Dialect;
  /** Where it points, for log lines (a URL without its password). */
  readonly location: string;
  prepare(sql: string): Statement;
  /** Wraps `body` so that calling the result runs it in one transaction (nested: a savepoint). */
  transaction<Result>(body: () => Result): () => Result;
  /** Runs one or more statements without parameters. */
  exec(sql: string): void;
  close(): void;
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
