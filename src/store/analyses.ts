/** The analyses table: a method's finished result on a stored trace, with its settings and time. */
import { randomUUID } from 'node:crypto';
import type { Attribution } from '../attribution/method.js';
import type { Db } from './database.js';
import { pageBounds, type Page, type Paged } from './paging.js';
import type { AnalysisRecord } from './records.js';

interface AnalysisRow {
  id: string;
  trace_id: string;
  method: string;
  model: string | null;
  settings_json: string;
  result_json: string;
  milliseconds: number;
  created_at: string;
}

const toAnalysis = (row: AnalysisRow): AnalysisRecord => ({
  id: row.id,
  traceId: row.trace_id,
  method: row.method,
  model: row.model,
  settings: JSON.parse(row.settings_json) as Record<string, unknown>,
  result: JSON.parse(row.result_json) as Attribution,
  milliseconds: row.milliseconds,
  createdAt: row.created_at,
});

/** Typed access to the analyses table (Repository hands it out as `analyses`). */
export class AnalysisStore {
  constructor(private readonly db: Db) {}

  /** Stores a finished analysis in one transaction. */
  save(
    traceId: string,
    settings: Record<string, unknown>,
    result: Attribution,
    milliseconds: number,
  ): AnalysisRecord {
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
    this.db
      .prepare(
        'INSERT INTO analyses (id, trace_id, method, model, settings_json, result_json, usage_json, milliseconds, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        record.id,
        traceId,
        record.method,
        record.model,
        JSON.stringify(settings),
        JSON.stringify(result),
        JSON.stringify(result.usage),
        milliseconds,
        record.createdAt,
      );
    return record;
  }

  /** One page of analyses, newest first (of one trace, when given), and how many there are. */
  list(page: Page & { traceId?: string } = {}): Paged<AnalysisRecord & { traceName: string }> {
    const { limit, offset } = pageBounds(page);
    const where = page.traceId ? 'WHERE analyses.trace_id = @traceId' : '';
    const parameters = page.traceId ? { traceId: page.traceId } : {};
    const { total } = this.db
      .prepare(`SELECT count(*) AS total FROM analyses ${where}`)
      .get(parameters) as { total: number };
    const rows = this.db
      .prepare(
        `SELECT analyses.*, traces.name AS trace_name FROM analyses JOIN traces ON traces.id = analyses.trace_id
          ${where} ORDER BY analyses.created_at DESC, analyses.id LIMIT @limit OFFSET @offset`,
      )
      .all({ ...parameters, limit, offset }) as (AnalysisRow & { trace_name: string })[];
    return {
      items: rows.map((row) => ({ ...toAnalysis(row), traceName: row.trace_name })),
      total,
      limit,
      offset,
    };
  }

  /** The analysis an evaluation's record was opened as before, if it was. */
  findOpened(
    traceId: string,
    opened: { evaluation: string; record: number; method: string },
  ): (AnalysisRecord & { traceName: string }) | undefined {
    const row = this.db
      .prepare(
        `SELECT analyses.*, traces.name AS trace_name FROM analyses JOIN traces ON traces.id = analyses.trace_id
          WHERE analyses.trace_id = ? AND analyses.method = ?
            AND json_extract(analyses.settings_json, '$.evaluation') = ?
            AND json_extract(analyses.settings_json, '$.record') = ?
          ORDER BY analyses.created_at DESC LIMIT 1`,
      )
      .get(traceId, opened.method, opened.evaluation, opened.record) as
      (AnalysisRow & { trace_name: string }) | undefined;
    return row ? { ...toAnalysis(row), traceName: row.trace_name } : undefined;
  }

  get(id: string): (AnalysisRecord & { traceName: string }) | undefined {
    const row = this.db
      .prepare(
        'SELECT analyses.*, traces.name AS trace_name FROM analyses JOIN traces ON traces.id = analyses.trace_id WHERE analyses.id = ?',
      )
      .get(id) as (AnalysisRow & { trace_name: string }) | undefined;
    return row ? { ...toAnalysis(row), traceName: row.trace_name } : undefined;
  }
}
