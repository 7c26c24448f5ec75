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

/** A stored recorded run. */
export interface RunRecord {
  runId: string;
  /** The trace's id in the store (what the page's addresses use). */
  traceId: string;
  /** The file the proxy writes the run to, when it writes one. */
  file: string | null;
  outcome: TraceOutcome;
  steps: number;
  createdAt: string;
  updatedAt: string;
}

interface RunRow {
  run_id: string;
  trace_id: string;
  file: string | null;
  outcome: string;
  steps: number;
  created_at: string;
  updated_at: string;
}

const OUTCOMES = new Set<TraceOutcome>(['success', 'failure', 'unknown']);

const toRecord = (row: RunRow): RunRecord => ({
  runId: row.run_id,
  traceId: row.trace_id,
  file: row.file,
  outcome: OUTCOMES.has(row.outcome as TraceOutcome) ? (row.outcome as TraceOutcome) : 'unknown',
  steps: row.steps,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const SELECT = `SELECT runs.run_id, runs.trace_id, runs.file, runs.outcome, runs.created_at,
                       runs.updated_at, traces.steps
                  FROM runs JOIN traces ON traces.id = runs.trace_id`;

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
      if (existing) {
        this.db
          .prepare('UPDATE traces SET trace_json = ?, steps = ?, content_hash = ? WHERE id = ?')
          .run(json, stored.steps.length, traceHash(stored), existing.traceId);
        this.db
          .prepare(
            'UPDATE runs SET outcome = ?, file = coalesce(?, file), updated_at = ? WHERE run_id = ?',
          )
          .run(outcome, options.file ?? null, now, trace.id);
      } else {
        const traceId = randomUUID();
        this.db
          .prepare(
            'INSERT INTO traces (id, content_hash, name, format, steps, trace_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
          )
          .run(
            traceId,
            traceHash(stored),
            options.name ?? trace.id,
            stored.format,
            stored.steps.length,
            json,
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
      this.db
        .prepare("UPDATE traces SET trace_json = json_set(trace_json, '$.outcome', ?) WHERE id = ?")
        .run(outcome, run.traceId);
    })();
    return this.get(run.runId);
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
