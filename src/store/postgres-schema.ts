/**
 * The PostgreSQL schema: the same tables, columns and indexes as SQLite's migrations leave
 * (sqlite.ts), in PostgreSQL's own SQL. (Its first version also defined SQLite's `instr` and
 * `json_extract` so that one SQL text could serve both; the second drops them, since each dialect
 * now has its own expressions, dialect-sql.ts.) Text that is sorted (ids, times) uses the "C" collation, so that PostgreSQL
 * orders rows byte by byte as SQLite does whatever the server's locale. Versions are counted in
 * `faultline_schema`; migrations run under an advisory lock, so instances starting at once apply
 * each one once.
 */
import { sql } from 'kysely';
import { UserError } from '../errors.js';
import type { Queries } from './driver.js';

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
  `DROP FUNCTION IF EXISTS instr(TEXT, TEXT);
   DROP FUNCTION IF EXISTS json_extract(TEXT, TEXT);`,
  // Stored traces are large JSON texts: lz4 compresses them several times faster than the default
  // pglz, where the server has it (PostgreSQL 14 or later, built with lz4); elsewhere nothing changes.
  `DO $$ BEGIN
     EXECUTE 'ALTER TABLE traces ALTER COLUMN trace_json SET COMPRESSION lz4';
   EXCEPTION WHEN OTHERS THEN NULL;
   END $$;`,
  // The task a run is a run of (its declared task, else its task text's fingerprint), as sqlite.ts.
  `ALTER TABLE runs ADD COLUMN task TEXT COLLATE "C";
   CREATE INDEX runs_task ON runs (task, created_at);`,
];

/** The advisory lock key migrations hold ("faultline" in ASCII, cut to 64 bits). */
const MIGRATION_LOCK = 0x6661756c746c696en;

/**
 * Brings a PostgreSQL database's schema up to date, one migration at a time, in one transaction
 * on one client that holds the migration lock.
 */
export async function migratePostgres(queries: Queries, location: string): Promise<void> {
  await queries.transaction().execute(async (transaction) => {
    // Held until this transaction ends: a second instance waits here, then finds nothing to do.
    await sql`SELECT pg_advisory_xact_lock(${sql.lit(MIGRATION_LOCK)})`.execute(transaction);
    await sql`CREATE TABLE IF NOT EXISTS faultline_schema (version INTEGER NOT NULL)`.execute(
      transaction,
    );
    const { rows } = await sql<{
      version: number;
    }>`SELECT version FROM faultline_schema`.execute(transaction);
    if (!rows[0]) await sql`INSERT INTO faultline_schema (version) VALUES (0)`.execute(transaction);
    const version = rows[0]?.version ?? 0;
    if (version > MIGRATIONS.length)
      throw new UserError(
        `${location}: the database was written by a newer faultline (schema ${version}); upgrade faultline`,
      );
    for (let index = version; index < MIGRATIONS.length; index += 1) {
      // Several statements and no parameters: sent as one simple query.
      await sql.raw(MIGRATIONS[index]!).execute(transaction);
      await sql`UPDATE faultline_schema SET version = ${index + 1}`.execute(transaction);
    }
  });
}
