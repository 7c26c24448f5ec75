/** The analyses table: a method's finished result on a stored trace, with its settings and time. */
import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Attribution } from '../attribution/method.js';
import type { Db } from './database.js';
import { jsonHas } from './dialect-sql.js';
import { pageBounds, type Page, type Paged } from './paging.js';
import type { AnalysisRecord } from './records.js';
import type { AnalysesTable } from './tables.js';

/** An analysis with the name of its trace, as the lists and the page show it. */
export type NamedAnalysis = AnalysisRecord & { traceName: string };

const toAnalysis = (row: Selectable<AnalysesTable> & { trace_name: string }): NamedAnalysis => ({
  id: row.id,
  traceId: row.trace_id,
  method: row.method,
  model: row.model,
  settings: JSON.parse(row.settings_json) as Record<string, unknown>,
  result: JSON.parse(row.result_json) as Attribution,
  milliseconds: row.milliseconds,
  createdAt: row.created_at,
  traceName: row.trace_name,
});

/** Typed access to the analyses table (Repository hands it out as `analyses`). */
export class AnalysisStore {
  constructor(private readonly db: Db) {}

  /** Analyses joined with their trace's name. */
  private named() {
    return this.db.queries
      .selectFrom('analyses')
      .innerJoin('traces', 'traces.id', 'analyses.trace_id')
      .selectAll('analyses')
      .select('traces.name as trace_name');
  }

  /** Stores a finished analysis (one statement). */
  async save(
    traceId: string,
    settings: Record<string, unknown>,
    result: Attribution,
    milliseconds: number,
  ): Promise<AnalysisRecord> {
    const record: AnalysisRecord = {
      id: randomUUID(),
      traceId,
      method: result.method,
      model: result.model ?? null,
      settings,
      result,
      milliseconds,
      createdAt: new Date().toISOString(),
    };
    await this.db.queries
      .insertInto('analyses')
      .values({
        id: record.id,
        trace_id: traceId,
        method: record.method,
        model: record.model,
        settings_json: JSON.stringify(settings),
        result_json: JSON.stringify(result),
        usage_json: JSON.stringify(result.usage),
        milliseconds,
        created_at: record.createdAt,
      })
      .execute();
    return record;
  }

  /** One page of analyses, newest first (of one trace, when given), and how many there are. */
  async list(page: Page & { traceId?: string } = {}): Promise<Paged<NamedAnalysis>> {
    const { limit, offset } = pageBounds(page);
    const { traceId } = page;
    const [counted, rows] = await Promise.all([
      this.db.queries
        .selectFrom('analyses')
        .$if(traceId !== undefined, (query) => query.where('trace_id', '=', traceId!))
        .select((builder) => builder.fn.countAll<number>().as('total'))
        .executeTakeFirstOrThrow(),
      this.named()
        .$if(traceId !== undefined, (query) => query.where('analyses.trace_id', '=', traceId!))
        .orderBy('analyses.created_at', 'desc')
        .orderBy('analyses.id')
        .limit(limit)
        .offset(offset)
        .execute(),
    ]);
    return { items: rows.map(toAnalysis), total: Number(counted.total), limit, offset };
  }

  /** The analysis an evaluation's record was opened as before, if it was. */
  async findOpened(
    traceId: string,
    opened: { evaluation: string; record: number; method: string },
  ): Promise<NamedAnalysis | undefined> {
    const row = await this.named()
      .where('analyses.trace_id', '=', traceId)
      .where('analyses.method', '=', opened.method)
      .where(
        jsonHas(this.db.dialect, 'analyses.settings_json', {
          evaluation: opened.evaluation,
          record: opened.record,
        }),
      )
      .orderBy('analyses.created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? toAnalysis(row) : undefined;
  }

  async get(id: string): Promise<NamedAnalysis | undefined> {
    const row = await this.named().where('analyses.id', '=', id).executeTakeFirst();
    return row ? toAnalysis(row) : undefined;
  }
}
