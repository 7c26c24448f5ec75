/**
 * Reading and writing traces, analyses and evaluation runs (the last two, and recorded runs, in
 * stores of their own that the Repository hands out). Every method answers a promise: on
 * PostgreSQL the statements of different callers are in flight at once. API keys never reach this
 * layer: settings are stored as given by the caller, who strips secrets.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { traceHash } from '../trace/hash.js';
import type { Trace, TraceLabels } from '../trace/model.js';
import { AnalysisStore } from './analyses.js';
import type { Db } from './database.js';
import { traceWithUserLabel } from './dialect-sql.js';
import { EvaluationStore } from './evaluations.js';
import { fileLabelsOf, labelOf, listHistory } from './history.js';
import type { Page, Paged } from './paging.js';
import { UnreadableRuns } from './unreadable-runs.js';
import { latestRunBy, type RunKey } from './run-lookup.js';
import { RunStore } from './runs.js';
import { TaskStore } from './task-runs.js';
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

/** The name an upload without a file name gets. */
export const PASTED = 'pasted trace';

const toSummary = (row: {
  id: string;
  name: string;
  format: string;
  steps: number;
  created_at: string;
}): TraceSummary => ({
  id: row.id,
  name: row.name,
  format: row.format,
  steps: row.steps,
  createdAt: row.created_at,
});

/** Typed access to the tables. */
export class Repository {
  /** Runs recorded by `faultline proxy`, kept in the same database. */
  readonly runs: RunStore;
  /** Runs whose spans no importer could read. */
  readonly unreadableRuns: UnreadableRuns;
  /** The runs of each task (runs.task). */
  readonly tasks: TaskStore;

  /** Analyses of stored traces. */
  readonly analyses: AnalysisStore;
  /** Evaluation runs, stored by `faultline eval` for the page. */
  readonly evaluations: EvaluationStore;

  constructor(private readonly db: Db) {
    this.runs = new RunStore(db);
    this.unreadableRuns = new UnreadableRuns(db);
    this.tasks = new TaskStore(db);
    this.analyses = new AnalysisStore(db);
    this.evaluations = new EvaluationStore(db);
  }

  /**
   * Stores a trace; the same content uploaded again (under any name) returns the existing entry,
   * renamed when it had only the placeholder name of a paste. A new trace is one statement (an
   * insert that adds nothing when the content is there), so the common case is one round trip.
   */
  async saveTrace(trace: Trace, name: string): Promise<TraceSummary> {
    const hash = traceHash(trace);
    const { queries } = this.db;
    const summary: TraceSummary = {
      id: randomUUID(),
      name,
      format: trace.format,
      steps: trace.steps.length,
      createdAt: new Date().toISOString(),
    };
    const inserted = await queries
      .insertInto('traces')
      .columns([
        'id',
        'content_hash',
        'name',
        'format',
        'steps',
        'trace_json',
        'labels_json',
        'created_at',
      ])
      .expression(
        queries
          .selectNoFrom([
            sql.val(summary.id).as('id'),
            sql.val(hash).as('content_hash'),
            sql.val(name).as('name'),
            sql.val(summary.format).as('format'),
            // Typed, so that PostgreSQL reads the value as a number, not as text.
            sql`cast(${summary.steps} as integer)`.as('steps'),
            sql.val(JSON.stringify(trace)).as('trace_json'),
            sql.val(trace.labels ? JSON.stringify(trace.labels) : null).as('labels_json'),
            sql.val(summary.createdAt).as('created_at'),
          ])
          .where(({ not, exists, selectFrom }) =>
            not(exists(selectFrom('traces').select('id').where('content_hash', '=', hash))),
          ),
      )
      .executeTakeFirstOrThrow();
    if (Number(inserted.numInsertedOrUpdatedRows) > 0) return summary;
    const existing = await queries
      .selectFrom('traces')
      .select(['id', 'name', 'format', 'steps', 'created_at'])
      .where('content_hash', '=', hash)
      .orderBy('created_at')
      .limit(1)
      .executeTakeFirstOrThrow();
    if (existing.name === PASTED && name !== PASTED) {
      await queries.updateTable('traces').set({ name }).where('id', '=', existing.id).execute();
      existing.name = name;
    }
    return toSummary(existing);
  }

  /**
   * One page of the History table: stored traces, newest first, with their label (the person's
   * mark over the file's) and latest analysis, and how many match in all. `query` keeps the rows
   * whose name, format, latest method, model or blamed agent, or label contains it (any case).
   */
  listHistory(page: Page & { query?: string } = {}): Promise<Paged<HistoryEntry>> {
    return listHistory(this.db, page);
  }

  /** The latest run whose trace names this session or function id (run-lookup.ts). */
  latestRunBy(key: RunKey, value: string): Promise<string | undefined> {
    return latestRunBy(this.db, key, value);
  }

  async getTrace(id: string): Promise<Trace | undefined> {
    const row = await this.db.queries
      .selectFrom('traces')
      .select(['trace_json', 'user_label_json'])
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) return undefined;
    const trace = JSON.parse(row.trace_json) as Trace;
    const labels = labelOf(trace.labels, row.user_label_json);
    return labels ? { ...trace, labels } : trace;
  }

  /**
   * A trace as JSON text, as getTrace would give it, without parsing it in JavaScript: the
   * server answers with it as it is, so opening a large trace does not hold up other requests.
   */
  async getTraceJson(id: string): Promise<string | undefined> {
    const row = await this.db.queries
      .selectFrom('traces')
      .select((builder) =>
        builder
          .case()
          .when('user_label_json', 'is', null)
          .then(builder.ref('trace_json'))
          .else(traceWithUserLabel(this.db.dialect))
          .end()
          .as('json'),
      )
      .where('id', '=', id)
      .executeTakeFirst();
    return row?.json;
  }

  /**
   * Whether a stored trace has a step with this index (undefined: no such trace), from its step
   * count: a canonical trace numbers its steps 0 to n-1.
   */
  async hasStep(id: string, index: number): Promise<boolean | undefined> {
    const row = await this.db.queries
      .selectFrom('traces')
      .select('steps')
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? index >= 0 && index < row.steps : undefined;
  }

  /** A trace's labels (the person's mark over the file's), read without parsing the trace. */
  async getLabels(id: string): Promise<TraceLabels | undefined> {
    const row = await this.db.queries
      .selectFrom('traces')
      .select(['labels_json', 'user_label_json'])
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? labelOf(fileLabelsOf(row.labels_json), row.user_label_json) : undefined;
  }

  /**
   * Sets (or with `null` clears) the label a person gave a trace; returns false when there is no
   * such trace. The file's own labels stay stored and come back when the mark is cleared.
   */
  async setUserLabel(id: string, label: UserLabel | null): Promise<boolean> {
    const result = await this.db.queries
      .updateTable('traces')
      .set({ user_label_json: label ? JSON.stringify(label) : null })
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Deletes a trace and its analyses; returns false when there was none. */
  async deleteTrace(id: string): Promise<boolean> {
    const result = await this.db.queries
      .deleteFrom('traces')
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Every stored trace that carries a label (a person's or the file's), for training. */
  async labelledTraces(): Promise<Trace[]> {
    const rows = await this.db.queries
      .selectFrom('traces')
      .select('id')
      .where((builder) =>
        builder.or([
          builder('user_label_json', 'is not', null),
          builder('labels_json', 'is not', null),
        ]),
      )
      .orderBy('created_at')
      .execute();
    const traces: Trace[] = [];
    // One at a time: a store of large traces is not read into memory all at once.
    for (const row of rows) {
      const trace = await this.getTrace(row.id);
      if (trace?.labels !== undefined) traces.push(trace);
    }
    return traces;
  }

  /** Stores a finished analysis. */
  saveAnalysis(...args: Parameters<AnalysisStore['save']>): Promise<AnalysisRecord> {
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

  saveEvaluation(...args: Parameters<EvaluationStore['save']>): Promise<EvaluationSummaryRecord> {
    return this.evaluations.save(...args);
  }

  /** One page of evaluation runs, newest first, and how many there are. */
  listEvaluations(page: Page = {}): Promise<Paged<EvaluationSummaryRecord>> {
    return this.evaluations.list(page);
  }

  getEvaluation(id: string): ReturnType<EvaluationStore['get']> {
    return this.evaluations.get(id);
  }
}
