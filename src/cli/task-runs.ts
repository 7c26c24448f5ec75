/**
 * Reads the runs of one task from files and folders, for `faultline spectrum` and `attribute
 * --runs`: every run read, its outcome from its folder where the file does not say (`passed/`,
 * `failed/`, src/trace/task.ts), grouped by task; several tasks among them is an error that lists
 * them, unless `--task` picks one or `--one-task` says they are all one.
 */
import { databaseLocation } from '../config.js';
import { UserError } from '../errors.js';
import type { Trace } from '../trace/model.js';
import { outcomeFromPath, taskOf, TASK_KEY } from '../trace/task.js';
import { forEachTrace, type BatchOutcome } from './batch.js';

/** How to read and pick the runs. */
export interface TaskRunOptions {
  format?: string;
  /** Keep the runs of this task (declared, or the fingerprint spectrum lists). */
  task?: string;
  /** Treat every run read as a run of one task. */
  oneTask?: boolean;
}

/** Runs read, grouped by task. */
export interface TaskRuns {
  task: string;
  runs: Trace[];
  batch: BatchOutcome;
}

/** The runs of one task among the files and folders given. */
export async function readTaskRuns(
  paths: readonly string[],
  options: TaskRunOptions,
): Promise<TaskRuns> {
  const traces: Trace[] = [];
  const batch = await forEachTrace(
    paths,
    options.format ? { format: options.format } : {},
    (trace, file) => {
      traces.push(withPathOutcome(trace, file));
    },
  );
  if (options.oneTask) {
    const task = options.task ?? taskOf(traces[0]!) ?? 'task';
    return {
      task,
      runs: traces.map((trace) => ({
        ...trace,
        metadata: { ...trace.metadata, [TASK_KEY]: task },
      })),
      batch,
    };
  }
  const byTask = new Map<string, Trace[]>();
  for (const trace of traces) {
    const task = taskOf(trace) ?? '(no task text)';
    byTask.set(task, [...(byTask.get(task) ?? []), trace]);
  }
  if (options.task !== undefined) {
    const runs = byTask.get(options.task);
    if (!runs)
      throw new UserError(
        `no run of task ${options.task} among the ${traces.length} runs read; their tasks: ${tasksListed(byTask)}`,
      );
    return { task: options.task, runs, batch };
  }
  if (byTask.size > 1)
    throw new UserError(
      `the ${traces.length} runs read are of ${byTask.size} tasks (${tasksListed(byTask)}); pick one with --task ID, or say they are one with --one-task`,
    );
  const [task, runs] = [...byTask][0]!;
  return { task, runs, batch };
}

/** `task-1a2b… (12 runs), task-3c4d… (9 runs)`, the largest first, at most five. */
function tasksListed(byTask: ReadonlyMap<string, Trace[]>): string {
  const sorted = [...byTask].sort((left, right) => right[1].length - left[1].length);
  const shown = sorted
    .slice(0, 5)
    .map(([task, runs]) => `${task} (${runs.length} run${runs.length === 1 ? '' : 's'})`);
  return sorted.length > 5 ? `${shown.join(', ')} and ${sorted.length - 5} more` : shown.join(', ');
}

/** The runs of a task in the store (`runs.task`: recorded by the proxy, rerun, or received). */
export async function storedTaskRuns(task: string): Promise<TaskRuns> {
  const [{ openDatabase }, { tracesOfTask }] = await Promise.all([
    import('../store/database.js'),
    import('../store/task-runs.js'),
  ]);
  const db = await openDatabase(databaseLocation());
  try {
    const runs = await tracesOfTask(db, task);
    if (runs.length === 0)
      throw new UserError(
        `the store holds no run of task ${task} (faultline rerun --task records some)`,
      );
    return { task, runs, batch: { files: 0, traces: runs.length, failedFiles: 0 } };
  } finally {
    await db.close();
  }
}

/** A run read in a batch, with its outcome from its folder where the file does not say. */
export const withPathOutcome = (trace: Trace, file: string): Trace =>
  trace.outcome === 'unknown' ? { ...trace, outcome: outcomeFromPath(file) } : trace;

/**
 * The runs of a batch that other runs of their task in it can speak for: each run that did not pass,
 * with every run of its task read, where one of those passed (a passing run is what sets a failure
 * apart; tasks whose runs all failed need `--runs`, where the user says they belong together).
 */
export function siblingsInBatch(traces: readonly Trace[]): Map<Trace, Trace[]> {
  const byTask = new Map<string, Trace[]>();
  for (const trace of traces) {
    const task = taskOf(trace);
    if (task === undefined) continue;
    const runs = byTask.get(task);
    if (runs) runs.push(trace);
    else byTask.set(task, [trace]);
  }
  const siblings = new Map<Trace, Trace[]>();
  for (const runs of byTask.values()) {
    if (runs.length < 2 || !runs.some((run) => run.outcome === 'success')) continue;
    for (const run of runs) if (run.outcome !== 'success') siblings.set(run, runs);
  }
  return siblings;
}
