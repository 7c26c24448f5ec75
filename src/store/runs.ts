/**
 * Runs recorded by `faultline proxy`, stored as traces so they appear on the page, by run id and
 * rewritten in place as their calls arrive (Repository.saveTrace keeps one row per content). The
 * outcome a person or a check gives is kept beside the trace and survives the rewriting, and so is
 * the run's task (src/trace/task.ts). Saving is one transaction (on PostgreSQL, on a client of its
 * own while other statements go on).
 */
import { randomUUID } from 'node:crypto';
import { sql, type QueryCreator } from 'kysely';
import { taskOf } from '../trace/task.js';
import { traceHash } from '../trace/hash.js';
import type { Trace, TraceOutcome } from '../trace/model.js';
import type { Db, Queries } from './database.js';
import type { Dialect } from './driver.js';
import { jsonPathText, jsonText, traceWithOutcome } from './dialect-sql.js';
import type { StoreTables } from './tables.js';
import { pageBounds, type Page, type Paged } from './paging.js';
import { UNREADABLE_FORMAT, type AgentBlame, type RunRecord } from './records.js';
import { toRecord } from './run-rows.js';

export type { AgentBlame, RunRecord, RunVerdict } from './records.js';

/** Runs with their trace's size and name and their latest analysis, as the list shows them. */
function selectRuns(queries: QueryCreator<StoreTables>, dialect: Dialect) {
  // Why a run's spans could not be read: read from its trace only for such a run.
  const unreadable = sql<
    string | null
  >`CASE WHEN ${sql.ref('traces.format')} = ${UNREADABLE_FORMAT} THEN ${jsonPathText(dialect, 'traces.trace_json', ['metadata', 'unreadable'])} END`;
  return queries
    .selectFrom('runs')
    .innerJoin('traces', 'traces.id', 'runs.trace_id')
    .leftJoin('analyses as latest', (join) =>
      join.on((builder) =>
        builder(
          'latest.id',
          '=',
          builder
            .selectFrom('analyses as newest')
            .select('newest.id')
            .whereRef('newest.trace_id', '=', 'runs.trace_id')
            .orderBy('newest.created_at', 'desc')
            .limit(1),
        ),
      ),
    )
    .select([
      'runs.run_id',
      'runs.trace_id',
      'runs.file',
      'runs.outcome',
      'runs.task',
      'runs.created_at',
      'runs.updated_at',
      'traces.steps',
      'traces.name',
      'traces.format',
      'latest.id as analysis_id',
      'latest.method as analysis_method',
      'latest.result_json as analysis_result',
      'latest.created_at as analysis_created',
      unreadable.as('unreadable'),
    ]);
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Typed access to recorded runs. */
export class RunStore {
  constructor(private readonly db: Db) {}

  /** Stores a run's trace under its run id (the trace's id): inserted once, rewritten after. */
  save(trace: Trace, options: { file?: string; name?: string } = {}): Promise<RunRecord> {
    return this.db.queries.transaction().execute(async (transaction) => {
      const now = new Date().toISOString();
      const existing = await this.find(transaction, trace.id, false);
      const outcome = trace.outcome === 'unknown' && existing ? existing.outcome : trace.outcome;
      const stored = outcome === trace.outcome ? trace : { ...trace, outcome };
      const json = JSON.stringify(stored);
      const labelsJson = stored.labels ? JSON.stringify(stored.labels) : null;
      // An outcome already stored wins over a trace that says none; the task is the run's.
      const columns = { outcome, task: taskOf(stored) ?? null };
      if (existing) {
        await transaction
          .updateTable('traces')
          .set({
            trace_json: json,
            // A run read again (it was unreadable spans) takes the format that read it.
            format: stored.format,
            steps: stored.steps.length,
            content_hash: traceHash(stored),
            labels_json: labelsJson,
          })
          .where('id', '=', existing.traceId)
          .execute();
        await transaction
          .updateTable('runs')
          .set((builder) => ({
            ...columns,
            file: options.file ?? builder.ref('file'),
            updated_at: now,
          }))
          .where('run_id', '=', trace.id)
          .execute();
      } else {
        const traceId = randomUUID();
        await transaction
          .insertInto('traces')
          .values({
            id: traceId,
            content_hash: traceHash(stored),
            name: options.name ?? trace.id,
            format: stored.format,
            steps: stored.steps.length,
            trace_json: json,
            labels_json: labelsJson,
            created_at: now,
          })
          .execute();
        await transaction
          .insertInto('runs')
          .values({
            run_id: trace.id,
            trace_id: traceId,
            file: options.file ?? null,
            ...columns,
            created_at: now,
            updated_at: now,
          })
          .execute();
      }
      return (await this.find(transaction, trace.id, false))!;
    });
  }

  /** A run by its run id, else by its trace id (unless `byTraceId` is false). */
  get(id: string, options: { byTraceId?: boolean } = {}): Promise<RunRecord | undefined> {
    return this.find(this.db.queries, id, options.byTraceId !== false);
  }

  /** The run whose trace is `traceId` (the store's trace id, never a run id). */
  ofTrace(traceId: string): Promise<RunRecord | undefined> {
    return this.findBy(this.db.queries, 'runs.trace_id', traceId);
  }

  private async find(
    queries: Queries,
    id: string,
    byTraceId: boolean,
  ): Promise<RunRecord | undefined> {
    return (
      (await this.findBy(queries, 'runs.run_id', id)) ??
      (byTraceId ? await this.findBy(queries, 'runs.trace_id', id) : undefined)
    );
  }

  private async findBy(
    queries: Queries,
    column: 'runs.run_id' | 'runs.trace_id',
    id: string,
  ): Promise<RunRecord | undefined> {
    const row = await selectRuns(queries, this.db.dialect)
      .where(column, '=', id)
      .executeTakeFirst();
    return row ? toRecord(row) : undefined;
  }

  /** The trace stored for a run (by run id or trace id). */
  async trace(id: string): Promise<Trace | undefined> {
    const run = await this.get(id);
    if (!run) return undefined;
    const row = await this.db.queries
      .selectFrom('traces')
      .select('trace_json')
      .where('id', '=', run.traceId)
      .executeTakeFirst();
    return row ? (JSON.parse(row.trace_json) as Trace) : undefined;
  }

  /** Sets a run's outcome (in the run and in its trace); undefined when there is no such run. */
  async setOutcome(id: string, outcome: TraceOutcome): Promise<RunRecord | undefined> {
    const run = await this.get(id);
    if (!run) return undefined;
    await this.db.queries.transaction().execute(async (transaction) => {
      await transaction
        .updateTable('runs')
        .set({ outcome, updated_at: new Date().toISOString() })
        .where('run_id', '=', run.runId)
        .execute();
      await transaction
        .updateTable('traces')
        .set({ trace_json: traceWithOutcome(this.db.dialect, outcome) })
        .where('id', '=', run.traceId)
        .execute();
    });
    return this.get(run.runId);
  }

  /**
   * Per agent, how many failed runs' latest analyses blamed it in the last 7 days and in the 7
   * before (by when the analysis was made), most blamed this week first.
   */
  async blameByAgent(now = new Date()): Promise<AgentBlame[]> {
    const thisWeek = new Date(now.getTime() - 7 * DAY_MS).toISOString();
    const lastWeek = new Date(now.getTime() - 14 * DAY_MS).toISOString();
    const rows = await this.db.queries
      .with('blamed', (queries) =>
        selectRuns(queries, this.db.dialect)
          .clearSelect()
          .select([
            jsonText(this.db.dialect, 'latest.result_json', 'agent').as('agent'),
            'latest.created_at as created_at',
          ])
          .where('runs.outcome', '=', 'failure')
          .where('latest.created_at', '>=', lastWeek),
      )
      .selectFrom('blamed')
      .select((builder) => [
        'blamed.agent',
        builder.fn
          .sum<number>(
            builder.case().when('blamed.created_at', '>=', thisWeek).then(1).else(0).end(),
          )
          .as('this_week'),
        builder.fn
          .sum<number>(
            builder.case().when('blamed.created_at', '<', thisWeek).then(1).else(0).end(),
          )
          .as('last_week'),
      ])
      .where('blamed.agent', 'is not', null)
      .groupBy('blamed.agent')
      .orderBy('this_week', 'desc')
      .orderBy('last_week', 'desc')
      .orderBy('blamed.agent')
      .limit(50)
      .execute();
    return rows.map((row) => ({
      agent: row.agent!,
      thisWeek: Number(row.this_week),
      lastWeek: Number(row.last_week),
    }));
  }

  /** One page of recorded runs, most recently changed first, and how many there are. */
  async list(page: Page = {}): Promise<Paged<RunRecord>> {
    const { limit, offset } = pageBounds(page);
    const [counted, rows] = await Promise.all([
      this.db.queries
        .selectFrom('runs')
        .select((builder) => builder.fn.countAll<number>().as('total'))
        .executeTakeFirstOrThrow(),
      selectRuns(this.db.queries, this.db.dialect)
        .orderBy('runs.updated_at', 'desc')
        .orderBy('runs.run_id')
        .limit(limit)
        .offset(offset)
        .execute(),
    ]);
    return { items: rows.map(toRecord), total: Number(counted.total), limit, offset };
  }
}
