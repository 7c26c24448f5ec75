/**
 * The stored runs whose spans no importer could read (format UNREADABLE_FORMAT, their spans kept
 * in the trace's metadata, see src/live/store-run.ts): how many there are, for `/api/health`, and
 * which, to read them again at server start.
 */
import type { Db } from './database.js';
import { UNREADABLE_FORMAT } from './records.js';

/** Queries over unreadable runs. */
export class UnreadableRuns {
  constructor(private readonly db: Db) {}

  /** How many stored runs are unreadable. */
  async count(): Promise<number> {
    const row = await this.db.queries
      .selectFrom('runs')
      .innerJoin('traces', 'traces.id', 'runs.trace_id')
      .select((builder) => builder.fn.countAll<number>().as('total'))
      .where('traces.format', '=', UNREADABLE_FORMAT)
      .executeTakeFirstOrThrow();
    return Number(row.total);
  }

  /** The run ids of unreadable runs, oldest first (at most `limit`). */
  async ids(limit = 1000): Promise<string[]> {
    const rows = await this.db.queries
      .selectFrom('runs')
      .innerJoin('traces', 'traces.id', 'runs.trace_id')
      .select('runs.run_id')
      .where('traces.format', '=', UNREADABLE_FORMAT)
      .orderBy('runs.created_at')
      .limit(limit)
      .execute();
    return rows.map((row) => row.run_id);
  }
}
