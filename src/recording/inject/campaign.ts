/**
 * `faultline inject`: labelled failures of a user's own system. For each task the system runs once
 * through the proxy cleanly (it must pass the check); then once per generated plan, with one fault
 * injected into a call sampled from the clean run. A run that then fails its check is kept: its
 * label (agent, step, mode) is causal by construction. Runs that still pass, plans that could not
 * be applied, and plans whose call was never reached are discarded and counted.
 *
 * Layout of the output folder:
 *   runs/<plan>.json      the dataset: labelled failed runs (canonical traces), for eval and train;
 *                         each names its task's clean run as its `reference` (diverge compares)
 *   runs/<task>-clean.json  each task's clean run in the dataset, the reference (unlabelled: eval
 *                         and train leave it out of their labelled runs)
 *   clean/<task>.json     each task's clean run, as the campaign reads it back on a rerun
 *   discarded/<plan>.json the injected runs that were not kept
 *   plans/<plan>.json     each plan and what became of it (a rerun skips plans written here)
 *   summary.json          kept and discarded per mode, operator and agent
 *
 * Its parts: campaign-tasks.ts (the tasks file, the command lines filled in), campaign-plans.ts
 * (the plans drawn from a clean run) and campaign-run.ts (one run and its check, through a proxy).
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pLimit from 'p-limit';
import { UserError } from '../../errors.js';
import type { Trace } from '../../trace/model.js';
import { tidyRunId } from '../record/identify.js';
import { parseUpstream } from '../proxy/proxy.js';
import { samplePlans } from './campaign-plans.js';
import type { CampaignOptions, CampaignProgress } from './campaign-options.js';
import { runOnce, type CampaignFolders, type RunContext } from './campaign-run.js';
import type { CampaignTask } from './campaign-tasks.js';
import type { InjectionStatus } from './injector.js';
import type { InjectionTarget } from './plan.js';

export { samplePlans } from './campaign-plans.js';
export { fillCommand, readTasks, type CampaignTask } from './campaign-tasks.js';
export type { CampaignOptions, CampaignProgress } from './campaign-options.js';

/** Why a plan's run was not kept. */
export type DiscardReason = 'still-passed' | 'not-reached' | Exclude<InjectionStatus, 'applied'>;

/** What became of one plan. */
export interface PlanResult {
  id: string;
  task: string;
  target: InjectionTarget;
  kept: boolean;
  reason?: DiscardReason;
  /** The labelled step, for a kept run. */
  step?: number;
}

/** Counts per group. */
export type Counts = Record<string, { kept: number; discarded: number }>;

/** The campaign's summary (summary.json). */
export interface CampaignSummary {
  tasks: number;
  plans: number;
  kept: number;
  discarded: number;
  byMode: Counts;
  byOperator: Counts;
  byAgent: Counts;
  byReason: Record<string, number>;
  manipulator?: { calls: number; inputTokens: number; outputTokens: number; costUsd?: number };
}

/** Writes a file whole (through a temporary name, so a stopped campaign leaves none half-written). */
function writeJson(file: string, value: unknown): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(value, null, 2)}\n`);
  renameSync(temporary, file);
}

/** Counts of a list of results by a key. */
function countBy(results: readonly PlanResult[], key: (result: PlanResult) => string): Counts {
  const counts: Counts = {};
  for (const result of results) {
    const entry = (counts[key(result)] ??= { kept: 0, discarded: 0 });
    if (result.kept) entry.kept += 1;
    else entry.discarded += 1;
  }
  return counts;
}

/** A campaign's output folders under `out`, made. */
function makeFolders(out: string): CampaignFolders {
  const folders = {
    runs: join(out, 'runs'),
    clean: join(out, 'clean'),
    discarded: join(out, 'discarded'),
    plans: join(out, 'plans'),
    work: join(out, 'work'),
    recording: join(out, 'work', 'recording'),
  };
  for (const folder of Object.values(folders)) mkdirSync(folder, { recursive: true });
  return folders;
}

type Limit = ReturnType<typeof pLimit>;

/** A clean run written into the dataset (runs/) as its runs' reference, unless it is there. */
function keepInDataset(folders: CampaignFolders, clean: Trace): void {
  const file = join(folders.runs, `${clean.id}.json`);
  if (!existsSync(file)) writeJson(file, clean);
}

/** The clean runs, each task once (a rerun reads the one written); each must pass its check. */
async function cleanRuns(context: RunContext, limit: Limit): Promise<Map<string, Trace>> {
  const { options, folders } = context;
  const clean = new Map<string, Trace>();
  await Promise.all(
    options.tasks.map((task) =>
      limit(async () => {
        const file = join(folders.clean, `${task.id}.json`);
        if (existsSync(file)) {
          const trace = JSON.parse(readFileSync(file, 'utf8')) as Trace;
          keepInDataset(folders, trace);
          clean.set(task.id, trace);
          return;
        }
        const { trace, passed, output } = await runOnce(
          context,
          task,
          tidyRunId(`${task.id}-clean`)!,
          undefined,
        );
        if (!passed || !trace)
          throw new UserError(
            `the clean run of task ${task.id} failed its check${trace ? '' : ' (no model call reached the proxy)'}: a fault can only be injected into a run that passes. Its output ends:\n${output.slice(-800)}`,
          );
        writeJson(file, trace);
        keepInDataset(folders, trace);
        clean.set(task.id, trace);
      }),
    ),
  );
  return clean;
}

/** One plan run (or read back, when a rerun finds it written): kept, or discarded and why. */
async function runPlan(
  context: RunContext,
  plan: { task: CampaignTask; target: InjectionTarget; id: string; clean: Trace },
): Promise<PlanResult> {
  const { folders } = context;
  const { task, target, id, clean } = plan;
  const planFile = join(folders.plans, `${id}.json`);
  if (existsSync(planFile)) return JSON.parse(readFileSync(planFile, 'utf8')) as PlanResult;
  const { trace, passed, injector } = await runOnce(context, task, id, target);
  const record = injector?.recordsOf(id)[0];
  const reason: DiscardReason | undefined = !record
    ? 'not-reached'
    : record.status !== 'applied'
      ? record.status
      : passed
        ? 'still-passed'
        : undefined;
  const kept = reason === undefined && trace?.labels !== undefined;
  if (trace)
    writeJson(join(kept ? folders.runs : folders.discarded, `${id}.json`), {
      ...trace,
      reference: clean.id,
    });
  const result: PlanResult = {
    id,
    task: task.id,
    target,
    kept,
    ...(kept ? {} : { reason: reason ?? 'not-reached' }),
    ...(kept && trace?.labels?.step !== undefined ? { step: trace.labels.step } : {}),
  };
  writeJson(planFile, result);
  return result;
}

/** The summary of a campaign's results. */
function summarize(
  options: CampaignOptions,
  results: readonly PlanResult[],
  progress: CampaignProgress,
): CampaignSummary {
  const byReason: Record<string, number> = {};
  for (const result of results)
    if (result.reason) byReason[result.reason] = (byReason[result.reason] ?? 0) + 1;
  const usage = options.manipulator?.usage;
  return {
    tasks: options.tasks.length,
    plans: results.length,
    kept: progress.kept,
    discarded: progress.discarded,
    byMode: countBy(results, (result) => result.target.mode),
    byOperator: countBy(results, (result) => result.target.operator),
    byAgent: countBy(results, (result) => result.target.agent),
    byReason,
    ...(usage
      ? {
          manipulator: {
            calls: usage.calls,
            inputTokens: usage.inputTokens,
            outputTokens: usage.outputTokens,
            ...(usage.costUsd !== undefined ? { costUsd: usage.costUsd } : {}),
          },
        }
      : {}),
  };
}

/** Runs a whole campaign; returns its summary (also written to summary.json). */
export async function runCampaign(options: CampaignOptions): Promise<CampaignSummary> {
  const out = resolve(options.out);
  const context: RunContext = {
    options,
    folders: makeFolders(out),
    upstream: parseUpstream(options.upstream),
    timeoutMs: options.timeoutMs ?? 300_000,
    log: options.log ?? (() => {}),
  };
  const limit = pLimit(Math.max(1, options.concurrency));
  const clean = await cleanRuns(context, limit);

  const planned = options.tasks.flatMap((task) =>
    samplePlans(clean.get(task.id)!, {
      count: options.plans,
      modes: options.modes,
      ...(options.operators ? { operators: options.operators } : {}),
      seed: options.seed,
      task: task.id,
      manipulator: options.manipulator !== undefined,
    }).map((target, index) => ({
      task,
      target,
      id: tidyRunId(`${task.id}-plan-${index + 1}`)!,
      clean: clean.get(task.id)!,
    })),
  );
  const results: PlanResult[] = [];
  const progress = { done: 0, total: planned.length, kept: 0, discarded: 0 };
  await Promise.all(
    planned.map((plan) =>
      limit(async () => {
        const result = await runPlan(context, plan);
        results.push(result);
        progress.done += 1;
        if (result.kept) progress.kept += 1;
        else progress.discarded += 1;
        options.onProgress?.({ ...progress });
      }),
    ),
  );
  rmSync(context.folders.work, { recursive: true, force: true });

  const summary = summarize(options, results, progress);
  writeJson(join(out, 'summary.json'), summary);
  return summary;
}
