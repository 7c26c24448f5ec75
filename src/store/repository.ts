/**
 * Reading and writing traces, analyses and evaluation runs (the last two, and recorded runs, in
 * stores of their own that the Repository hands out). API keys never reach this layer:
 * settings are stored as given by the caller, who strips secrets.
 */
import { randomUUID } from 'node:crypto';
import type { Attribution } from '../attribution/method.js';
import { traceHash } from '../trace/hash.js';
import type { Trace, TraceLabels } from '../trace/model.js';
import { AnalysisStore } from './analyses.js';
import type { Db } from './database.js';
import { EvaluationStore } from './evaluations.js';
import { pageBounds, type Page, type Paged } from './paging.js';
import { RunStore } from './runs.js';
import type {
  AnalysisRecord,
  EvaluationSummaryRecord,
  HistoryEntry,
  TraceSummary,
  UserLabel,
} from './records.js';

export { MAX_PAGE, pageBounds, type Page, type Paged } from './paging.js';
export type {
  AnalysisRecord,
  EvaluationSummaryRecord,
  HistoryEntry,
  TraceSummary,
  UserLabel,
} from './records.js';

interface TraceRow {
  id: string;
  name: string;
  format: string;
  steps: number;
  created_at: string;
  trace_json: string;
  user_label_json: string | null;
}

/** The name an upload without a file name gets. */
export const PASTED = 'pasted trace';

const toSummary = (row: Omit<TraceRow, 'trace_json' | 'user_label_json'>): TraceSummary => ({
  id: row.id,
  name: row.name,
  format: row.format,
  steps: row.steps,
  createdAt: row.created_at,
});

/** A person's mark wins over the file's labels; undefined when there is neither. */
function labelOf(
  fileLabels: TraceLabels | undefined,
  userLabel: string | null,
): TraceLabels | undefined {
  if (userLabel) return { ...(JSON.parse(userLabel) as UserLabel), byUser: true };
  return fileLabels;
}

/** The file's labels as stored beside the trace (null when there are none). */
const fileLabelsOf = (json: string | null) =>
  json ? ((JSON.parse(json) as TraceLabels | null) ?? undefined) : undefined;

/** Typed access to the tables. */
export class Repository {
  /** Runs recorded by `faultline proxy`, kept in the same database. */
  readonly runs: RunStore;

  /** Analyses of stored traces. */
  readonly analyses: AnalysisStore;
  /** Evaluation runs, stored by `faultline eval` for the page. */
  readonly evaluations: EvaluationStore;

  constructor(private readonly db: Db) {
    this.runs = new RunStore(db);
    this.analyses = new AnalysisStore(db);
    this.evaluations = new EvaluationStore(db);
  }

  /**
   * Stores a trace; the same content uploaded again (under any name) returns the existing entry,
   * renamed when it had only the placeholder name of a paste.
   */
  saveTrace(trace: Trace, name: string): TraceSummary {
    const hash = traceHash(trace);
    const existing = this.db
      .prepare(
        'SELECT id, name, format, steps, created_at FROM traces WHERE content_hash = ? ORDER BY created_at LIMIT 1',
      )
      .get(hash) as TraceRow | undefined;
    if (existing) {
      if (existing.name === PASTED && name !== PASTED) {
        this.db.prepare('UPDATE traces SET name = ? WHERE id = ?').run(name, existing.id);
        existing.name = name;
      }
      return toSummary(existing);
    }
    const summary: TraceSummary = {
      id: randomUUID(),
      name,
      format: trace.format,
      steps: trace.steps.length,
      createdAt: new Date().toISOString(),
    };
    this.db
      .prepare(
        'INSERT INTO traces (id, content_hash, name, format, steps, trace_json, labels_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        summary.id,
        hash,
        name,
        summary.format,
        summary.steps,
        JSON.stringify(trace),
        trace.labels ? JSON.stringify(trace.labels) : null,
        summary.createdAt,
      );
    return summary;
  }

  /**
   * One page of the History table: stored traces, newest first, with their label (the person's
   * mark over the file's) and latest analysis, and how many match in all. `query` keeps the rows
   * whose name, format, latest method, model or blamed agent, or label contains it (any case).
   */
  listHistory(page: Page & { query?: string } = {}): Paged<HistoryEntry> {
    const { limit, offset } = pageBounds(page);
    const needle = page.query?.trim().toLowerCase();
    // The latest analysis per trace, found once for the count and the rows alike.
    const from = `FROM traces
           LEFT JOIN analyses AS latest ON latest.id = (
             SELECT id FROM analyses WHERE trace_id = traces.id ORDER BY created_at DESC LIMIT 1)`;
    const where = needle
      ? `WHERE instr(lower(traces.name), @needle) > 0 OR instr(lower(traces.format), @needle) > 0
            OR instr(lower(coalesce(latest.method, '')), @needle) > 0
            OR instr(lower(coalesce(latest.model, '')), @needle) > 0
            OR instr(lower(coalesce(json_extract(latest.result_json, '$.agent'), '')), @needle) > 0
            OR instr(lower(coalesce(traces.user_label_json, traces.labels_json, '')), @needle) > 0`
      : '';
    const parameters = needle ? { needle } : {};
    const { total } = this.db
      .prepare(`SELECT count(*) AS total ${from} ${where}`)
      .get(parameters) as {
      total: number;
    };
    const rows = this.db
      .prepare(
        `SELECT traces.id, traces.name, traces.format, traces.steps, traces.created_at,
                traces.user_label_json,
                traces.labels_json,
                latest.id AS analysis_id, latest.method, latest.model, latest.result_json
           ${from} ${where}
          ORDER BY traces.created_at DESC, traces.id LIMIT @limit OFFSET @offset`,
      )
      .all({ ...parameters, limit, offset }) as (TraceRow & {
      user_label_json: string | null;
      labels_json: string | null;
      analysis_id: string | null;
      method: string | null;
      model: string | null;
      result_json: string | null;
    })[];
    const items = rows.map((row) => {
      const result = row.result_json ? (JSON.parse(row.result_json) as Attribution) : null;
      return {
        ...toSummary(row),
        label: labelOf(fileLabelsOf(row.labels_json), row.user_label_json) ?? null,
        latest:
          row.analysis_id && result
            ? {
                id: row.analysis_id,
                method: row.method ?? result.method,
                model: row.model,
                agent: result.agent,
                step: result.step,
              }
            : null,
      };
    });
    return { items, total, limit, offset };
  }

  getTrace(id: string): Trace | undefined {
    const row = this.db
      .prepare('SELECT trace_json, user_label_json FROM traces WHERE id = ?')
      .get(id) as Pick<TraceRow, 'trace_json' | 'user_label_json'> | undefined;
    if (!row) return undefined;
    const trace = JSON.parse(row.trace_json) as Trace;
    const labels = labelOf(trace.labels, row.user_label_json);
    return labels ? { ...trace, labels } : trace;
  }

  /**
   * A trace as JSON text, as getTrace would give it, without parsing it in JavaScript: the
   * server answers with it as it is, so opening a large trace does not hold up other requests.
   */
  getTraceJson(id: string): string | undefined {
    // The one place the JSON functions differ: PostgreSQL's work on jsonb.
    const withLabel =
      this.db.dialect === 'postgres'
        ? `jsonb_set(trace_json::jsonb, '{labels}', user_label_json::jsonb || '{"byUser": true}')::text`
        : `json_set(trace_json, '$.labels', json_set(user_label_json, '$.byUser', json('true')))`;
    const row = this.db
      .prepare(
        `SELECT CASE WHEN user_label_json IS NULL THEN trace_json ELSE ${withLabel} END AS json
           FROM traces WHERE id = ?`,
      )
      .get(id) as { json: string } | undefined;
    return row?.json;
  }

  /**
   * Whether a stored trace has a step with this index (undefined: no such trace), from its step
   * count: a canonical trace numbers its steps 0 to n-1.
   */
  hasStep(id: string, index: number): boolean | undefined {
    const row = this.db.prepare('SELECT steps FROM traces WHERE id = ?').get(id) as
      { steps: number } | undefined;
    return row ? index >= 0 && index < row.steps : undefined;
  }

  /** A trace's labels (the person's mark over the file's), read without parsing the trace. */
  getLabels(id: string): TraceLabels | undefined {
    const row = this.db
      .prepare('SELECT labels_json, user_label_json FROM traces WHERE id = ?')
      .get(id) as { labels_json: string | null; user_label_json: string | null } | undefined;
    return row ? labelOf(fileLabelsOf(row.labels_json), row.user_label_json) : undefined;
  }

  /**
   * Sets (or with `null` clears) the label a person gave a trace; returns false when there is no
   * such trace. The file's own labels stay stored and come back when the mark is cleared.
   */
  setUserLabel(id: string, label: UserLabel | null): boolean {
    const changed = this.db
      .prepare('UPDATE traces SET user_label_json = ? WHERE id = ?')
      .run(label ? JSON.stringify(label) : null, id).changes;
    return changed > 0;
  }

  /** Deletes a trace and its analyses; returns false when there was none. */
  deleteTrace(id: string): boolean {
    return this.db.prepare('DELETE FROM traces WHERE id = ?').run(id).changes > 0;
  }

  /** Every stored trace that carries a label (a person's or the file's), for training. */
  labelledTraces(): Trace[] {
    const rows = this.db
      .prepare(
        `SELECT id FROM traces
          WHERE user_label_json IS NOT NULL OR labels_json IS NOT NULL
          ORDER BY created_at`,
      )
      .all() as Pick<TraceRow, 'id'>[];
    return rows
      .map((row) => this.getTrace(row.id))
      .filter((trace): trace is Trace => trace?.labels !== undefined);
  }

  /** Stores a finished analysis in one transaction. */
  saveAnalysis(...args: Parameters<AnalysisStore['save']>): AnalysisRecord {
    return this.analyses.save(...args);
  }

  /** One page of analyses, newest first (of one trace, when given), and how many there are. */
  listAnalyses(...args: Parameters<AnalysisStore['list']>): ReturnType<AnalysisStore['list']> {
    return this.analyses.list(...args);
  }

  /** The analysis an evaluation's record was opened as before, if it was. */
  findOpenedRecord(
    ...args: Parameters<AnalysisStore['findOpened']>
  ): ReturnType<AnalysisStore['findOpened']> {
    return this.analyses.findOpened(...args);
  }

  getAnalysis(id: string): ReturnType<AnalysisStore['get']> {
    return this.analyses.get(id);
  }

  saveEvaluation(...args: Parameters<EvaluationStore['save']>): EvaluationSummaryRecord {
    return this.evaluations.save(...args);
  }

  /** One page of evaluation runs, newest first, and how many there are. */
  listEvaluations(page: Page = {}): Paged<EvaluationSummaryRecord> {
    return this.evaluations.list(page);
  }

  getEvaluation(id: string): ReturnType<EvaluationStore['get']> {
    return this.evaluations.get(id);
  }
}
