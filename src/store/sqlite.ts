/**
 * The embedded database: SQLite through better-sqlite3, in WAL mode so readers never block the
 * writer and a killed process loses at most the transaction in flight. Migrations live in code
 * and run in order on open; `PRAGMA user_version` records how far a file has come. The store's
 * queries reach it through Kysely's SQLite dialect: better-sqlite3's calls, answered as promises.
 */
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { UserError } from '../errors.js';
import type { Db } from './driver.js';
import type { StoreTables } from './tables.js';

/**
 * Schema changes, applied in order; never edit a released one, append a new one (and its
 * counterpart to postgres-schema.ts).
 */
const MIGRATIONS: string[] = [
  `CREATE TABLE traces (
     id TEXT PRIMARY KEY,
     content_hash TEXT NOT NULL,
     name TEXT NOT NULL,
     format TEXT NOT NULL,
     steps INTEGER NOT NULL,
     trace_json TEXT NOT NULL,
     created_at TEXT NOT NULL
   );
   CREATE INDEX traces_created ON traces (created_at);
   CREATE TABLE analyses (
     id TEXT PRIMARY KEY,
     trace_id TEXT NOT NULL REFERENCES traces (id) ON DELETE CASCADE,
     method TEXT NOT NULL,
     model TEXT,
     settings_json TEXT NOT NULL,
     result_json TEXT NOT NULL,
     usage_json TEXT NOT NULL,
     milliseconds REAL NOT NULL,
     created_at TEXT NOT NULL
   );
   CREATE INDEX analyses_trace ON analyses (trace_id, created_at);
   CREATE TABLE evaluations (
     id TEXT PRIMARY KEY,
     title TEXT NOT NULL,
     methods TEXT NOT NULL,
     traces INTEGER NOT NULL,
     summary_json TEXT NOT NULL,
     created_at TEXT NOT NULL
   );`,
  // A label a person set on the page (teach it), kept apart from the labels the file carried.
  `ALTER TABLE traces ADD COLUMN user_label_json TEXT;
   CREATE INDEX traces_hash ON traces (content_hash);`,
  // Runs recorded by `faultline proxy`: each is one trace, rewritten as its steps arrive, with the
  // outcome a person or a check gave it and the file it is written to.
  `CREATE TABLE runs (
     run_id TEXT PRIMARY KEY,
     trace_id TEXT NOT NULL UNIQUE REFERENCES traces (id) ON DELETE CASCADE,
     file TEXT,
     outcome TEXT NOT NULL DEFAULT 'unknown',
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL
   );`,
  // The file's labels beside the trace, so that History, its filter and a label check read a
  // small column rather than have SQLite parse every stored trace (tens of MB each, at worst).
  `ALTER TABLE traces ADD COLUMN labels_json TEXT;
   UPDATE traces SET labels_json = json_extract(trace_json, '$.labels');`,
  // The task a run is a run of (its declared task, else its task text's fingerprint), so that runs
  // of one task are found together (spectrum analysis); runs stored before get it when next saved.
  `ALTER TABLE runs ADD COLUMN task TEXT;
   CREATE INDEX runs_task ON runs (task, created_at);`,
];

/** Opens (creating if needed) the SQLite database at `file` and brings its schema up to date. */
export function openSqlite(file: string): Db {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  let raw: Database.Database;
  try {
    raw = new Database(file);
  } catch (error) {
    throw new UserError(
      `${file}: cannot open the database (${error instanceof Error ? error.message : String(error)})`,
      { cause: error },
    );
  }
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = NORMAL');
  raw.pragma('foreign_keys = ON');
  raw.pragma('busy_timeout = 5000');
  const version = raw.pragma('user_version', { simple: true }) as number;
  if (version > MIGRATIONS.length) {
    raw.close();
    throw new UserError(
      `${file}: the database was written by a newer faultline (schema ${version}); upgrade faultline`,
    );
  }
  for (let index = version; index < MIGRATIONS.length; index += 1) {
    raw.transaction(() => {
      raw.exec(MIGRATIONS[index]!);
      raw.pragma(`user_version = ${index + 1}`);
    })();
  }
  const queries = new Kysely<StoreTables>({ dialect: new SqliteDialect({ database: raw }) });
  return {
    dialect: 'sqlite',
    location: file,
    queries,
    // Destroying the Kysely instance closes the better-sqlite3 handle.
    close: () => queries.destroy(),
  };
}
