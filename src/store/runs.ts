/**
 * Runs recorded by `faultline proxy`, stored as traces so they appear on the page. A run grows as
 * its calls arrive, so it is stored by run id and rewritten in place (Repository.saveTrace keeps
 * one row per content and would add a row for every step). Its outcome, once a person or a check
 * says it, is kept beside the trace and survives the proxy rewriting the run.
 */
import { randomUUID } from 'node:crypto';
import { traceHash } from '../trace/hash.js';
import type { Trace, TraceOutcome } from '../trace/model.js';
import type { Db } from './database.js';
import { pageBounds, type Page, type Paged } from './paging.js';
import type { AgentBlame, RunRecord, RunVerdict } from './records.js';

export type { AgentBlame, RunRecord, RunVerdict } from './records.js';

interface RunRow {
  run_id: string;
  trace_id: string;
  file: string | null;
  outcome: string;
  steps: number;
  name: string;
  format: string;
  created_at: string;
  updated_at: string;
  analysis_id: string | null;
  analysis_method: string | null;
  analysis_result: string | null;
  analysis_created: string | null;
}

/** The fields of a stored analysis the list reads. */
function verdictOf(row: RunRow): RunVerdict | null {
  if (!row.analysis_id || !row.analysis_result) return null;
  const result = JSON.parse(row.analysis_result) as {
    agent?: string | null;
    step?: number | null;
    modes?: { code: string }[];
  };
  return {
    analysisId: row.analysis_id,
    method: row.analysis_method ?? '',
    agent: result.agent ?? null,
    step: result.step ?? null,
    modes: (result.modes ?? []).map((mode) => mode.code),
    createdAt: row.analysis_created ?? '',
  };
}

const OUTCOMES = new Set<TraceOutcome>(['success', 'failure', 'unknown']);

const toRecord = (row: RunRow): RunRecord => ({
  runId: row.run_id,
  traceId: row.trace_id,
  file: row.file,
  outcome: OUTCOMES.has(row.outcome as TraceOutcome) ? (row.outcome as TraceOutcome) : 'unknown',
  steps: row.steps,
  name: row.name,
  format: row.format,
  verdict: verdictOf(row),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const SELECT = `SELECT runs.run_id, runs.trace_id, runs.file, runs.outcome, runs.created_at,
                       runs.updated_at, traces.steps, traces.name, traces.format,
                       latest.id AS analysis_id, latest.method AS analysis_method,
                       latest.result_json AS analysis_result, latest.created_at AS analysis_created
                  FROM runs JOIN traces ON traces.id = runs.trace_id
                  LEFT JOIN analyses AS latest ON latest.id = (
                    SELECT id FROM analyses WHERE trace_id = runs.trace_id
                     ORDER BY created_at DESC LIMIT 1)`;

const DAY_MS = 24 * 60 * 60 * 1000;

/** Typed access to recorded runs. */
export class RunStore {
  constructor(private readonly db: Db) {}

  /**
   * Stores a run's trace under its run id (the trace's id), inserting it the first time and
   * rewriting it after. An outcome already stored wins over a trace that says none.
   */
  save(trace: Trace, options: { file?: string; name?: string } = {}): RunRecord {
    return this.db.transaction(() => {
      const now = new Date().toISOString();
      const existing = this.get(trace.id, { byTraceId: false });
      const outcome = trace.outcome === 'unknown' && existing ? existing.outcome : trace.outcome;
      const stored = outcome === trace.outcome ? trace : { ...trace, outcome };
      const json = JSON.stringify(stored);
      const labelsJson = stored.labels ? JSON.stringify(stored.labels) : null;
      if (existing) {
        this.db
          .prepare(
            'UPDATE traces SET trace_json = ?, steps = ?, content_hash = ?, labels_json = ? WHERE id = ?',
          )
          .run(json, stored.steps.length, traceHash(stored), labelsJson, existing.traceId);
        this.db
          .prepare(
            'UPDATE runs SET outcome = ?, file = coalesce(?, file), updated_at = ? WHERE run_id = ?',
          )
          .run(outcome, options.file ?? null, now, trace.id);
      } else {
        const traceId = randomUUID();
        this.db
          .prepare(
            'INSERT INTO traces (id, content_hash, name, format, steps, trace_json, labels_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
          )
          .run(
            traceId,
            traceHash(stored),
            options.name ?? trace.id,
            stored.format,
            stored.steps.length,
            json,
            labelsJson,
            now,
          );
        this.db
          .prepare(
            'INSERT INTO runs (run_id, trace_id, file, outcome, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
          )
          .run(trace.id, traceId, options.file ?? null, outcome, now, now);
      }
      return this.get(trace.id, { byTraceId: false })!;
    })();
  }

  /** A run by its run id, else by its trace id (unless `byTraceId` is false). */
  get(id: string, options: { byTraceId?: boolean } = {}): RunRecord | undefined {
    const row =
      (this.db.prepare(`${SELECT} WHERE runs.run_id = ?`).get(id) as RunRow | undefined) ??
      (options.byTraceId === false
        ? undefined
        : (this.db.prepare(`${SELECT} WHERE runs.trace_id = ?`).get(id) as RunRow | undefined));
    return row ? toRecord(row) : undefined;
  }

  /** The trace stored for a run (by run id or trace id). */
  trace(id: string): Trace | undefined {
    const run = this.get(id);
    if (!run) return undefined;
    const row = this.db.prepare('SELECT trace_json FROM traces WHERE id = ?').get(run.traceId) as
      { trace_json: string } | undefined;
    return row ? (JSON.parse(row.trace_json) as Trace) : undefined;
  }

  /** Sets a run's outcome (in the run and in its trace); undefined when there is no such run. */
  setOutcome(id: string, outcome: TraceOutcome): RunRecord | undefined {
    const run = this.get(id);
    if (!run) return undefined;
    this.db.transaction(() => {
      this.db
        .prepare('UPDATE runs SET outcome = ?, updated_at = ? WHERE run_id = ?')
        .run(outcome, new Date().toISOString(), run.runId);
      const setOutcome =
        this.db.dialect === 'postgres'
          ? "jsonb_set(trace_json::jsonb, '{outcome}', to_jsonb(?::text))::text"
          : "json_set(trace_json, '$.outcome', ?)";
      this.db
        .prepare(`UPDATE traces SET trace_json = ${setOutcome} WHERE id = ?`)
        .run(outcome, run.traceId);
    })();
    return this.get(run.runId);
  }

  /**
   * Per agent, how many failed runs' latest analyses blamed it in the last 7 days and in the 7
   * before (by when the analysis was made), most blamed this week first.
   */
  blameByAgent(now = new Date()): AgentBlame[] {
    const thisWeek = new Date(now.getTime() - 7 * DAY_MS).toISOString();
    const lastWeek = new Date(now.getTime() - 14 * DAY_MS).toISOString();
    const rows = this.db
      .prepare(
        `WITH blamed AS (
           SELECT json_extract(latest.result_json, '$.agent') AS agent, latest.created_at
             FROM runs
             JOIN analyses AS latest ON latest.id = (
               SELECT id FROM analyses WHERE trace_id = runs.trace_id
                ORDER BY created_at DESC LIMIT 1)
            WHERE runs.outcome = 'failure' AND latest.created_at >= @lastWeek)
         SELECT agent, sum(CASE WHEN created_at >= @thisWeek THEN 1 ELSE 0 END) AS this_week,
                sum(CASE WHEN created_at < @thisWeek THEN 1 ELSE 0 END) AS last_week
           FROM blamed WHERE agent IS NOT NULL
          GROUP BY agent ORDER BY this_week DESC, last_week DESC, agent LIMIT 50`,
      )
      .all({ thisWeek, lastWeek }) as { agent: string; this_week: number; last_week: number }[];
    return rows.map((row) => ({
      agent: row.agent,
      thisWeek: row.this_week,
      lastWeek: row.last_week,
    }));
  }

  /** One page of recorded runs, most recently changed first, and how many there are. */
  list(page: Page = {}): Paged<RunRecord> {
    const { limit, offset } = pageBounds(page);
    const { total } = this.db.prepare('SELECT count(*) AS total FROM runs').get() as {
      total: number;
    };
    const rows = this.db
      .prepare(`${SELECT} ORDER BY runs.updated_at DESC, runs.run_id LIMIT ? OFFSET ?`)
      .all(limit, offset) as RunRow[];
    return { items: rows.map(toRecord), total, limit, offset };
  }
}
