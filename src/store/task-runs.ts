/**
 * The runs of one task in the store (`runs.task`, set when a run is saved: its declared task, else
 * its task text's fingerprint, src/trace/task.ts): the tasks with their runs counted by outcome
 * (the page's Runs view), and one task's latest runs with their traces (`faultline spectrum
 * --task`, the page's task view). Runs stored before tasks were kept have none and are not listed.
 */
import type { Trace, TraceOutcome } from '../trace/model.js';
import type { Db } from './driver.js';
import type { TaskRun, TaskSummary } from './records.js';
import { pageBounds, type Page, type Paged } from './paging.js';
import { storedOutcome } from './run-rows.js';

export type { TaskRun, TaskSummary } from './records.js';

/** The traces of the runs of one task, oldest first: every run, or the latest `limit`. */
export async function tracesOfTask(
  db: Db,
  task: string,
  options: { limit?: number } = {},
): Promise<Trace[]> {
  return (await latestRunsOfTask(db, task, options.limit)).map((row) => row.trace);
}

/** The latest runs of a task (all when `limit` is undefined) with their traces, oldest first. */
async function latestRunsOfTask(
  db: Db,
  task: string,
  limit: number | undefined,
): Promise<{ run: TaskRun; trace: Trace }[]> {
  let query = db.queries
    .selectFrom('runs')
    .innerJoin('traces', 'traces.id', 'runs.trace_id')
    .select([
      'runs.run_id',
      'runs.trace_id',
      'runs.outcome',
      'runs.created_at',
      'traces.name',
      'traces.steps',
      'traces.trace_json',
    ])
    .where('runs.task', '=', task)
    .orderBy('runs.created_at', 'desc')
    .orderBy('runs.run_id', 'desc');
  if (limit !== undefined) query = query.limit(limit);
  const rows = await query.execute();
  return rows.reverse().map((row) => ({
    run: {
      runId: row.run_id,
      traceId: row.trace_id,
      name: row.name,
      outcome: storedOutcome(row.outcome),
      steps: Number(row.steps),
      createdAt: row.created_at,
    },
    trace: JSON.parse(row.trace_json) as Trace,
  }));
}

/** Typed access to the runs of tasks. */
export class TaskStore {
  constructor(private readonly db: Db) {}

  /** One page of tasks, the one whose latest run is newest first, and how many there are. */
  async list(page: Page = {}): Promise<Paged<TaskSummary>> {
    const { limit, offset } = pageBounds(page);
    const counted = (outcome: TraceOutcome) =>
      this.db.queries.fn
        .sum<number>(
          this.db.queries.case().when('runs.outcome', '=', outcome).then(1).else(0).end(),
        )
        .as(outcome);
    const [total, rows] = await Promise.all([
      this.db.queries
        .selectFrom('runs')
        .select((builder) => builder.fn.count<number>('runs.task').distinct().as('total'))
        .where('runs.task', 'is not', null)
        .executeTakeFirstOrThrow(),
      this.db.queries
        .selectFrom('runs')
        .select((builder) => [
          'runs.task',
          builder.fn.countAll<number>().as('runs'),
          counted('failure'),
          counted('success'),
          builder.fn.max('runs.created_at').as('latest_at'),
        ])
        .where('runs.task', 'is not', null)
        .groupBy('runs.task')
        .orderBy('latest_at', 'desc')
        .orderBy('runs.task')
        .limit(limit)
        .offset(offset)
        .execute(),
    ]);
    return {
      items: rows.map((row) => {
        const [runs, failed, passed] = [row.runs, row.failure, row.success].map(Number) as [
          number,
          number,
          number,
        ];
        return {
          task: row.task!,
          runs,
          failed,
          passed,
          unknown: runs - failed - passed,
          latestAt: String(row.latest_at),
        };
      }),
      total: Number(total.total),
      limit,
      offset,
    };
  }

  /** How many runs the store holds of a task. */
  async count(task: string): Promise<number> {
    const row = await this.db.queries
      .selectFrom('runs')
      .select((builder) => builder.fn.countAll<number>().as('total'))
      .where('runs.task', '=', task)
      .executeTakeFirstOrThrow();
    return Number(row.total);
  }

  /** A task's latest `limit` runs with their traces, oldest first. */
  latest(task: string, limit: number): Promise<{ run: TaskRun; trace: Trace }[]> {
    return latestRunsOfTask(this.db, task, limit);
  }
}
