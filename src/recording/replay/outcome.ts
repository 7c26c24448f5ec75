/**
 * Saying how a recorded run ended: its outcome is stored with the run (and written into its file),
 * and a failed run is attributed at once, the analysis stored beside it so the page shows it: with
 * the combined verdict (src/attribution/spectrum/combined.ts) where the store holds other runs of
 * its task, one of them passing, else with the offline method. Shared by `faultline outcome` and
 * `POST /api/runs/:id/outcome`.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { Attribution } from '../../attribution/method.js';
import { getMethod } from '../../attribution/registry.js';
import { COMBINED } from '../../attribution/spectrum/combined.js';
import { UserError } from '../../errors.js';
import type { AnalysisRecord, Repository } from '../../store/repository.js';
import type { RunRecord, RunStore } from '../../store/runs.js';
import type { Trace, TraceOutcome } from '../../trace/model.js';

/** The words an outcome may be given as. */
const WORDS: Record<string, TraceOutcome> = {
  failed: 'failure',
  failure: 'failure',
  fail: 'failure',
  passed: 'success',
  success: 'success',
  pass: 'success',
  succeeded: 'success',
  unknown: 'unknown',
};

/** The outcome a word names (`failed`, `passed`, `unknown` and their synonyms). */
export function outcomeOf(word: string): TraceOutcome {
  const outcome = WORDS[word.trim().toLowerCase()];
  if (!outcome) throw new UserError(`unknown outcome "${word}"; say failed or passed (or unknown)`);
  return outcome;
}

/** What marking an outcome did. */
export interface MarkedOutcome {
  run: RunRecord;
  /** The attribution of a failed run (combined, or offline), when asked for. */
  analysis?: AnalysisRecord;
}

/** Rewrites the outcome in a run's file, when the run has one that still exists. */
function writeOutcome(file: string | null, outcome: TraceOutcome): void {
  if (!file || !existsSync(file)) return;
  const trace = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  trace.outcome = outcome;
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(trace, null, 2)}\n`);
  renameSync(temporary, file);
}

/** Most runs of a task read for a failed run's combined verdict: its latest (FAMAS reruns 20). */
export const TASK_RUNS_READ = 50;
/** Most steps over those runs: the newest runs that fit (the spectrum of 2,100 takes 0.2 s). */
export const TASK_STEPS_READ = 20_000;

/** How many of a task's latest runs, and steps over them, are read (the newest that fit). */
export interface TaskRunLimits {
  runs: number;
  steps: number;
}

/**
 * The latest runs of a recorded run's task in the store, each with the outcome its row holds: the
 * newest within the limits, oldest first (none for a run stored before tasks were kept).
 */
export async function storedRunsOfTask(
  repository: Repository,
  run: RunRecord,
  limits: TaskRunLimits = { runs: TASK_RUNS_READ, steps: TASK_STEPS_READ },
): Promise<Trace[]> {
  if (run.task === null) return [];
  const latest = await repository.tasks.latest(run.task, limits.runs);
  let from = latest.length;
  for (let steps = 0; from > 0; from -= 1) {
    steps += latest[from - 1]!.trace.steps.length;
    if (steps > limits.steps) break;
  }
  return latest.slice(from).map(({ run: other, trace }) => ({ ...trace, outcome: other.outcome }));
}

/**
 * How a failed recorded run is attributed: by the combined verdict over the latest runs of its
 * task in the store (`storedRunsOfTask`) where they can speak for it (another run besides it, and
 * one of them passed: a passing run is what sets a failure apart, as `attribute FOLDER` asks),
 * else by the offline method.
 */
export async function failedRunMethod(
  repository: Repository,
  run: RunRecord,
  limits?: TaskRunLimits,
): Promise<{ method: string; runs?: Trace[] }> {
  const runs = await storedRunsOfTask(repository, run, limits);
  return runs.length > 1 && runs.some((trace) => trace.outcome === 'success')
    ? { method: COMBINED, runs }
    : { method: 'offline' };
}

/**
 * Marks a run (by run id or trace id) failed, passed or unknown; with `attribute` (the default for
 * a failure) the agent and step are named at once: by the combined verdict over the other runs of
 * its task in the store where one of them passed, else by the offline method.
 */
export async function markOutcome(
  runs: RunStore,
  repository: Repository,
  id: string,
  outcome: TraceOutcome,
  options: { attribute?: boolean } = {},
): Promise<MarkedOutcome> {
  const run = await runs.setOutcome(id, outcome);
  if (!run)
    throw new UserError(
      `no recorded run ${id}; runs appear once \`faultline proxy\` has recorded a call of theirs`,
    );
  writeOutcome(run.file, outcome);
  if (outcome !== 'failure' || options.attribute === false) return { run };
  const trace = await repository.getTrace(run.traceId);
  if (!trace || trace.steps.length === 0) return { run };
  const started = performance.now();
  const { method, runs: runsOfTask } = await failedRunMethod(repository, run);
  const result: Attribution = await getMethod(method).attribute(
    trace,
    runsOfTask ? { runs: runsOfTask } : {},
  );
  const analysis = await repository.saveAnalysis(
    run.traceId,
    { method, useGroundTruth: true },
    result,
    performance.now() - started,
  );
  return { run, analysis };
}
