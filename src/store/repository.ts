/**
 * Reading and writing traces, analyses and evaluation runs. API keys never reach this layer:
 * settings are stored as given by the caller, who strips secrets.
 */
import { randomUUID } from 'node:crypto';
import type { Attribution } from '../attribution/method.js';
import { traceHash } from '../trace/hash.js';
import type { Trace } from '../trace/model.js';
import type { Db } from './database.js';
import type { AnalysisRecord, EvaluationSummaryRecord, TraceSummary } from './records.js';

export type { AnalysisRecord, EvaluationSummaryRecord, TraceSummary } from './records.js';

interface TraceRow {
  id: string;
  name: string;
  format: string;
  steps: number;
  created_at: string;
  trace_json: string;
}

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

/** Typed access to the tables. */
export class Repository {
  constructor(private readonly db: Db) {}

  /** Stores a trace; the same content uploaded again returns the existing id. */
  saveTrace(trace: Trace, name: string): TraceSummary {
    const hash = traceHash(trace);
    const existing = this.db
      .prepare(
        'SELECT id, name, format, steps, created_at FROM traces WHERE content_hash = ? AND name = ?',
      )
      .get(hash, name) as TraceRow | undefined;
    if (existing)
      return {
        id: existing.id,
        name: existing.name,
        format: existing.format,
        steps: existing.steps,
        createdAt: existing.created_at,
      };
    const summary: TraceSummary = {
      id: randomUUID(),
      name,
      format: trace.format,
      steps: trace.steps.length,
      createdAt: new Date().toISOString(),
    };
    this.db
      .prepare(
        'INSERT INTO traces (id, content_hash, name, format, steps, trace_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        summary.id,
        hash,
        name,
        summary.format,
        summary.steps,
        JSON.stringify(trace),
        summary.createdAt,
      );
    return summary;
  }

  listTraces(limit = 200): TraceSummary[] {
    const rows = this.db
      .prepare(
        'SELECT id, name, format, steps, created_at FROM traces ORDER BY created_at DESC LIMIT ?',
      )
      .all(limit) as TraceRow[];
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      format: row.format,
      steps: row.steps,
      createdAt: row.created_at,
    }));
  }

  getTrace(id: string): Trace | undefined {
    const row = this.db.prepare('SELECT trace_json FROM traces WHERE id = ?').get(id) as
      Pick<TraceRow, 'trace_json'> | undefined;
    return row ? (JSON.parse(row.trace_json) as Trace) : undefined;
  }

  /** Stores a finished analysis in one transaction. */
  saveAnalysis(
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

  listAnalyses(traceId?: string, limit = 200): (AnalysisRecord & { traceName: string })[] {
    const sql = `SELECT analyses.*, traces.name AS trace_name FROM analyses JOIN traces ON traces.id = analyses.trace_id ${traceId ? 'WHERE trace_id = ?' : ''} ORDER BY analyses.created_at DESC LIMIT ?`;
    const rows = (
      traceId ? this.db.prepare(sql).all(traceId, limit) : this.db.prepare(sql).all(limit)
    ) as (AnalysisRow & { trace_name: string })[];
    return rows.map((row) => ({ ...toAnalysis(row), traceName: row.trace_name }));
  }

  getAnalysis(id: string): AnalysisRecord | undefined {
    const row = this.db.prepare('SELECT * FROM analyses WHERE id = ?').get(id) as
      AnalysisRow | undefined;
    return row ? toAnalysis(row) : undefined;
  }

  saveEvaluation(
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

  listEvaluations(limit = 100): EvaluationSummaryRecord[] {
    const rows = this.db
      .prepare(
        'SELECT id, title, methods, traces, created_at FROM evaluations ORDER BY created_at DESC LIMIT ?',
      )
      .all(limit) as {
      id: string;
      title: string;
      methods: string;
      traces: number;
      created_at: string;
    }[];
    return rows.map((row) => ({
      id: row.id,
      title: row.title,
      methods: JSON.parse(row.methods) as string[],
      traces: row.traces,
      createdAt: row.created_at,
    }));
  }

  getEvaluation(id: string): (EvaluationSummaryRecord & { summary: unknown }) | undefined {
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
