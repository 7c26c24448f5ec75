/**
 * The PostgreSQL schema: the same tables, columns and indexes as SQLite's migrations leave
 * (sqlite.ts), plus the two SQLite functions the shared queries call (`instr`, `json_extract` for
 * `$.key` paths). Text that is sorted (ids, times) uses the "C" collation, so that PostgreSQL
 * orders rows byte by byte as SQLite does whatever the server's locale. Versions are counted in
 * `faultline_schema`; migrations run under an advisory lock, so instances starting at once apply
 * each one once.
 */
import { UserError } from '../errors.js';
import type { Db } from './driver.js';

/** Schema changes, applied in order; never edit a released one, append a new one. */
const MIGRATIONS: string[] = [
  `CREATE TABLE traces (
     id TEXT COLLATE "C" PRIMARY KEY,
     content_hash TEXT NOT NULL,
     name TEXT NOT NULL,
     format TEXT NOT NULL,
     steps INTEGER NOT NULL,
     trace_json TEXT NOT NULL,
     created_at TEXT COLLATE "C" NOT NULL,
     user_label_json TEXT,
     labels_json TEXT
   );
   CREATE INDEX traces_created ON traces (created_at);
   CREATE INDEX traces_hash ON traces (content_hash);
   CREATE TABLE analyses (
     id TEXT COLLATE "C" PRIMARY KEY,
     trace_id TEXT COLLATE "C" NOT NULL REFERENCES traces (id) ON DELETE CASCADE,
     method TEXT NOT NULL,
     model TEXT,
     settings_json TEXT NOT NULL,
     result_json TEXT NOT NULL,
     usage_json TEXT NOT NULL,
     milliseconds DOUBLE PRECISION NOT NULL,
     created_at TEXT COLLATE "C" NOT NULL
   );
   CREATE INDEX analyses_trace ON analyses (trace_id, created_at);
   CREATE TABLE evaluations (
     id TEXT COLLATE "C" PRIMARY KEY,
     title TEXT NOT NULL,
     methods TEXT NOT NULL,
     traces INTEGER NOT NULL,
     summary_json TEXT NOT NULL,
     created_at TEXT COLLATE "C" NOT NULL
   );
   CREATE TABLE runs (
     run_id TEXT COLLATE "C" PRIMARY KEY,
     trace_id TEXT COLLATE "C" NOT NULL UNIQUE REFERENCES traces (id) ON DELETE CASCADE,
     file TEXT,
     outcome TEXT NOT NULL DEFAULT 'unknown',
     created_at TEXT COLLATE "C" NOT NULL,
     updated_at TEXT COLLATE "C" NOT NULL
   );
   CREATE FUNCTION instr(haystack TEXT, needle TEXT) RETURNS INTEGER
     LANGUAGE sql IMMUTABLE AS 'SELECT strpos(haystack, needle)';
   CREATE FUNCTION json_extract(document TEXT, path TEXT) RETURNS TEXT
     LANGUAGE sql IMMUTABLE
     AS 'SELECT document::jsonb #>> string_to_array(substr(path, 3), ''.'')';`,
];

/** The advisory lock key migrations hold ("faultline" in ASCII, cut to 64 bits). */
const MIGRATION_LOCK = 0x6661756c746c696en;

/** Brings a PostgreSQL database's schema up to date, one migration at a time, under a lock. */
export function migratePostgres(db: Db): void {
  db.transaction(() => {
    // Held until this transaction ends: a second instance waits here, then finds nothing to do.
    db.exec(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    db.exec('CREATE TABLE IF NOT EXISTS faultline_schema (version INTEGER NOT NULL)');
    const row = db.prepare('SELECT version FROM faultline_schema').get() as
      { version: number } | undefined;
    if (!row) db.exec('INSERT INTO faultline_schema (version) VALUES (0)');
    const version = row?.version ?? 0;
    if (version > MIGRATIONS.length)
      throw new UserError(
        `${db.location}: the database was written by a newer faultline (schema ${version}); upgrade faultline`,
      );
    for (let index = version; index < MIGRATIONS.length; index += 1) {
      db.exec(MIGRATIONS[index]!);
      db.prepare('UPDATE faultline_schema SET version = ?').run(index + 1);
    }
  })();
}
