/** The evaluations table: an evaluation run's title, methods, trace count and summary. */
import { randomUUID } from 'node:crypto';
import type { Db } from './database.js';
import { pageBounds, type Page, type Paged } from './paging.js';
import type { EvaluationSummaryRecord } from './records.js';

const toSummary = (row: {
  id: string;
  title: string;
  methods: string;
  traces: number;
  created_at: string;
}): EvaluationSummaryRecord => ({
  id: row.id,
  title: row.title,
  methods: JSON.parse(row.methods) as string[],
  traces: row.traces,
  createdAt: row.created_at,
});

/** Typed access to the evaluations table (Repository hands it out as `evaluations`). */
export class EvaluationStore {
  constructor(private readonly db: Db) {}

  async save(
    title: string,
    methods: string[],
    traces: number,
    summary: unknown,
  ): Promise<EvaluationSummaryRecord> {
    const record: EvaluationSummaryRecord = {
      id: randomUUID(),
      title,
      methods,
      traces,
      createdAt: new Date().toISOString(),
    };
    await this.db.queries
      .insertInto('evaluations')
      .values({
        id: record.id,
        title,
        methods: JSON.stringify(methods),
        traces,
        summary_json: JSON.stringify(summary),
        created_at: record.createdAt,
      })
      .execute();
    return record;
  }

  /** One page of evaluation runs, newest first, and how many there are. */
  async list(page: Page = {}): Promise<Paged<EvaluationSummaryRecord>> {
    const { limit, offset } = pageBounds(page);
    const [counted, rows] = await Promise.all([
      this.db.queries
        .selectFrom('evaluations')
        .select((builder) => builder.fn.countAll<number>().as('total'))
        .executeTakeFirstOrThrow(),
      this.db.queries
        .selectFrom('evaluations')
        .select(['id', 'title', 'methods', 'traces', 'created_at'])
        .orderBy('created_at', 'desc')
        .orderBy('id')
        .limit(limit)
        .offset(offset)
        .execute(),
    ]);
    return { items: rows.map(toSummary), total: Number(counted.total), limit, offset };
  }

  async get(id: string): Promise<(EvaluationSummaryRecord & { summary: unknown }) | undefined> {
    const row = await this.db.queries
      .selectFrom('evaluations')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? { ...toSummary(row), summary: JSON.parse(row.summary_json) } : undefined;
  }
}
