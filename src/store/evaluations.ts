/** The evaluations table: an evaluation run's title, methods, trace count and summary. */
import { randomUUID } from 'node:crypto';
import type { Db } from './database.js';
import { pageBounds, type Page, type Paged } from './paging.js';
import type { EvaluationSummaryRecord } from './records.js';

/** Typed access to the evaluations table (Repository hands it out as `evaluations`). */
export class EvaluationStore {
  constructor(private readonly db: Db) {}

  save(
    title: string,
    methods: string[],
    traces: number,
    summary: unknown,
  ): EvaluationSummaryRecord {
    const record: EvaluationSummaryRecord = {
      id: randomUUID(),
      title,
      methods,
      traces,
      createdAt: new Date().toISOString(),
    };
    this.db
      .prepare(
        'INSERT INTO evaluations (id, title, methods, traces, summary_json, created_at) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(
        record.id,
        title,
        JSON.stringify(methods),
        traces,
        JSON.stringify(summary),
        record.createdAt,
      );
    return record;
  }

  /** One page of evaluation runs, newest first, and how many there are. */
  list(page: Page = {}): Paged<EvaluationSummaryRecord> {
    const { limit, offset } = pageBounds(page);
    const { total } = this.db.prepare('SELECT count(*) AS total FROM evaluations').get() as {
      total: number;
    };
    const rows = this.db
      .prepare(
        'SELECT id, title, methods, traces, created_at FROM evaluations ORDER BY created_at DESC, id LIMIT ? OFFSET ?',
      )
      .all(limit, offset) as {
      id: string;
      title: string;
      methods: string;
      traces: number;
      created_at: string;
    }[];
    return {
      items: rows.map((row) => ({
        id: row.id,
        title: row.title,
        methods: JSON.parse(row.methods) as string[],
        traces: row.traces,
        createdAt: row.created_at,
      })),
      total,
      limit,
      offset,
    };
  }

  get(id: string): (EvaluationSummaryRecord & { summary: unknown }) | undefined {
    const row = this.db.prepare('SELECT * FROM evaluations WHERE id = ?').get(id) as
      | {
          id: string;
          title: string;
          methods: string;
          traces: number;
          summary_json: string;
          created_at: string;
        }
      | undefined;
    if (!row) return undefined;
    return {
      id: row.id,
      title: row.title,
      methods: JSON.parse(row.methods) as string[],
      traces: row.traces,
      createdAt: row.created_at,
      summary: JSON.parse(row.summary_json),
    };
  }
}
