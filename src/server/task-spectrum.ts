/**
 * The task view's answer, a job (jobs.ts): a task's latest runs read from the store with their
 * traces (at most `limit`, so a task run thousands of times costs what 200 runs cost) and their
 * spectrum (src/attribution/spectrum/), studying one failed run: the one asked for, else the latest
 * failing one. A task without a failed run among those read has its runs and no spectrum, with why.
 */
import { HTTPException } from 'hono/http-exception';
import { analyseSpectrum } from '../attribution/spectrum/rank.js';
import type { Repository } from '../store/repository.js';
import type { Trace } from '../trace/model.js';
import type { TaskResponse } from './api-types.js';

/** Runs of a task read by default: the latest 200. */
export const DEFAULT_TASK_RUNS = 200;
/** Most units the answer lists (the most suspicious). */
export const TASK_UNITS = 50;

/** What the route has checked. */
export interface TaskSpectrumRequest {
  task: string;
  /** The failed run to study, by run id or trace id. */
  failed?: string;
  limit: number;
}

const OUTCOME_WORD = { success: 'passed', failure: 'failed', unknown: 'unknown' } as const;

/** The task's latest runs and their spectrum. */
export async function taskSpectrum(
  repository: Repository,
  request: TaskSpectrumRequest,
): Promise<TaskResponse> {
  const { task, limit } = request;
  const total = await repository.tasks.count(task);
  if (total === 0)
    throw new HTTPException(404, {
      message: `no run of task ${task} in the store (GET /api/tasks lists the tasks)`,
    });
  const latest = await repository.tasks.latest(task, limit);
  // The runs table holds the outcome a person or a check gave last: the trace says the same, but
  // the column is what the strip shows, so the analysis counts it too.
  const traces: Trace[] = latest.map(({ run, trace }) => ({ ...trace, outcome: run.outcome }));
  const runs = latest.map(({ run }) => run);
  const answer = { task, runs, total, limit };
  // The studied run by its place among the runs read (trace ids come from the files and may repeat):
  // the one asked for, else the latest that failed.
  let studiedAt = traces.findLastIndex((trace) => trace.outcome === 'failure');
  if (request.failed !== undefined) {
    const index = runs.findIndex(
      (run) => run.runId === request.failed || run.traceId === request.failed,
    );
    if (index === -1)
      throw new HTTPException(404, {
        message: `run ${request.failed} is not among the ${runs.length} latest runs of task ${task}`,
      });
    if (runs[index]!.outcome !== 'failure')
      throw new HTTPException(400, {
        message: `run ${request.failed} did not fail (its outcome: ${OUTCOME_WORD[runs[index]!.outcome]}); pick a failed run to study`,
      });
    studiedAt = index;
  }
  if (studiedAt === -1)
    return {
      ...answer,
      spectrum: null,
      unavailable: `none of the ${runs.length} runs read failed: the spectrum compares failing runs with passing ones (mark a run's outcome with faultline outcome)`,
    };
  const result = analyseSpectrum(traces, { failed: traces[studiedAt]! });
  const studied = runs[studiedAt]!;
  return {
    ...answer,
    spectrum: {
      formula: result.formula,
      runs: result.runs,
      agents: result.agents,
      verdict: result.verdict,
      conclusive: result.conclusive,
      notes:
        total > runs.length
          ? [
              ...result.notes,
              `only the latest ${runs.length} of the task's ${total} runs were read`,
            ]
          : result.notes,
      units: result.units.slice(0, TASK_UNITS),
      unitCount: result.units.length,
      departures: result.departures.slice(0, TASK_UNITS),
      failed: { runId: studied.runId, traceId: studied.traceId, steps: result.failed.steps },
    },
    unavailable: null,
  };
}
