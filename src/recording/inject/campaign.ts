/**
 * `faultline inject`: labelled failures of a user's own system. For each task the system runs once
 * through the proxy cleanly (it must pass the check); then once per generated plan, with one fault
 * injected into a call sampled from the clean run. A run that then fails its check is kept: its
 * label (agent, step, mode) is causal by construction. Runs that still pass, plans that could not
 * be applied, and plans whose call was never reached are discarded and counted.
 *
 * Layout of the output folder:
 *   runs/<plan>.json      the dataset: labelled failed runs (canonical traces), for eval and train
 *   clean/<task>.json     each task's clean run
 *   discarded/<plan>.json the injected runs that were not kept
 *   plans/<plan>.json     each plan and what became of it (a rerun skips plans written here)
 *   summary.json          kept and discarded per mode, operator and agent
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pLimit from 'p-limit';
import { UserError } from '../../errors.js';
import type { Trace } from '../../trace/model.js';
import { shownUpstream } from '../forward.js';
import { tidyRunId } from '../identify.js';
import { parseUpstream, startProxy } from '../proxy.js';
import { Recorder } from '../recorder.js';
import { recordingOf } from '../recording.js';
import { runShell } from '../shell.js';
import { earlierReplies, PlanInjector, type InjectionStatus } from './injector.js';
import type { Manipulator } from './manipulator.js';
import { MANIPULATOR, MODE_OPERATORS, OPERATORS } from './operators.js';
import type { InjectionTarget } from './plan.js';

/** One task of the tasks file: a JSON value (an object with an `id`, usually). */
export interface CampaignTask {
  id: string;
  /** The line as written in the tasks file. */
  json: string;
  value: unknown;
}

/** Settings of a campaign. */
export interface CampaignOptions {
  run: string;
  check: string;
  tasks: CampaignTask[];
  /** Plans per task. */
  plans: number;
  /** MAST codes plans are drawn from. */
  modes: string[];
  /** Operators plans may use (default: the modes' own, or the manipulator when there is one). */
  operators?: string[];
  out: string;
  upstream: string;
  anthropicUpstream?: string;
  seed: number;
  concurrency: number;
  manipulator?: Manipulator;
  /** Longest a run command, and a check, may take (default 5 minutes). */
  timeoutMs?: number;
  log?: (line: string) => void;
  /** After each plan: how many are done of how many. */
  onProgress?: (progress: CampaignProgress) => void;
}

/** Progress of a campaign. */
export interface CampaignProgress {
  done: number;
  total: number;
  kept: number;
  discarded: number;
}

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

/** Reads a tasks file: JSON Lines, one task per line (an object with `id`, or any JSON value). */
export function readTasks(file: string): CampaignTask[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UserError(
      `${file}: cannot read the tasks (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
  const tasks: CampaignTask[] = [];
  text.split('\n').forEach((line, index) => {
    if (!line.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new UserError(`${file}:${index + 1}: not JSON; write one task per line as JSON`);
    }
    const named =
      value !== null && typeof value === 'object' && 'id' in value ? String(value.id) : undefined;
    const id = tidyRunId(named ?? `task-${tasks.length + 1}`) ?? `task-${tasks.length + 1}`;
    if (tasks.some((task) => task.id === id))
      throw new UserError(`${file}:${index + 1}: a second task with the id "${id}"`);
    tasks.push({ id, json: line.trim(), value });
  });
  if (tasks.length === 0) throw new UserError(`${file}: no tasks (write one JSON task per line)`);
  return tasks;
}

const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * A command line with the task filled in: `{task}` is the task's JSON (shell-quoted), `{work}` the
 * run's own folder, `{name}` any top-level string or number field of the task (`{id}`).
 */
export function fillCommand(command: string, task: CampaignTask, work: string): string {
  return command.replace(/\{([A-Za-z_][\w-]*)\}/g, (whole, name: string) => {
    if (name === 'task') return shellQuote(task.json);
    if (name === 'work') return shellQuote(work);
    if (name === 'id') return shellQuote(task.id);
    const field =
      task.value !== null && typeof task.value === 'object'
        ? (task.value as Record<string, unknown>)[name]
        : undefined;
    return typeof field === 'string' || typeof field === 'number'
      ? shellQuote(String(field))
      : whole;
  });
}

/** A seeded generator (mulberry32) from a text. */
function generator(seedText: string): () => number {
  let state = createHash('sha256').update(seedText).digest().readUInt32LE(0);
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const pick = <Item>(items: readonly Item[], random: () => number): Item =>
  items[Math.floor(random() * items.length)]!;

/**
 * The plans of a task: `count` targets, each a model call of the clean run (its agent and
 * occurrence), a mode of `modes` and an operator for it. The same seed gives the same plans.
 */
export function samplePlans(
  clean: Trace,
  options: {
    count: number;
    modes: string[];
    operators?: string[];
    seed: number;
    task: string;
    manipulator: boolean;
  },
): InjectionTarget[] {
  const calls = (recordingOf(clean)?.calls ?? []).filter((call) => call.step !== undefined);
  if (calls.length === 0) return [];
  const random = generator(`${options.seed}:${options.task}`);
  const plans: InjectionTarget[] = [];
  for (let index = 0; index < options.count; index += 1) {
    const mode = options.modes[index % options.modes.length]!;
    const own = MODE_OPERATORS[mode] ?? ['replace'];
    const allowed = options.operators
      ? own.filter((name) => options.operators!.includes(name))
      : own;
    const operators =
      options.operators?.includes(MANIPULATOR) || (options.manipulator && !options.operators)
        ? [MANIPULATOR]
        : allowed.length > 0
          ? allowed
          : (options.operators ?? own);
    const target = (call: (typeof calls)[number], operator: string): InjectionTarget => ({
      agent: call.agent,
      occurrence: call.agentCall + 1,
      strategy: OPERATORS.get(operator)?.strategy ?? 'response-corruption',
      mode,
      operator,
    });
    // The calls where the operator changes something in the clean run; any call when none.
    const fitting = calls.flatMap((call) =>
      operators
        .filter((operator) => applies(clean, call.step!, target(call, operator)))
        .map((operator) => target(call, operator)),
    );
    plans.push(
      fitting.length > 0
        ? pick(fitting, random)
        : target(pick(calls, random), pick(operators, random)),
    );
  }
  return plans;
}

/** Whether a target's operator would change the clean run's call at `step`. */
function applies(clean: Trace, step: number, target: InjectionTarget): boolean {
  const operator = OPERATORS.get(target.operator);
  if (!operator) return true;
  if (operator.strategy === 'prompt-injection')
    return target.operator !== 'drop-last-tool-result' || clean.steps[step - 1]?.role === 'tool';
  const reply = earlierReplies(clean, step + 1).at(-1)?.reply;
  if (!reply) return false;
  return (
    operator.apply(reply, {
      target,
      request: { stream: false, system: '', items: [] },
      earlier: earlierReplies(clean, step),
    }) !== undefined
  );
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

/** Runs a whole campaign; returns its summary (also written to summary.json). */
export async function runCampaign(options: CampaignOptions): Promise<CampaignSummary> {
  const out = resolve(options.out);
  const folders = {
    runs: join(out, 'runs'),
    clean: join(out, 'clean'),
    discarded: join(out, 'discarded'),
    plans: join(out, 'plans'),
    work: join(out, 'work'),
    recording: join(out, 'work', 'recording'),
  };
  for (const folder of Object.values(folders)) mkdirSync(folder, { recursive: true });
  const upstream = parseUpstream(options.upstream);
  const timeoutMs = options.timeoutMs ?? 300_000;
  const log = options.log ?? (() => {});

  /** One run of the system through a proxy (with the injector, if any); the run and its check. */
  async function runOnce(
    task: CampaignTask,
    runId: string,
    target: InjectionTarget | undefined,
  ): Promise<{
    trace: Trace | undefined;
    passed: boolean;
    output: string;
    injector: PlanInjector | undefined;
  }> {
    const box: { recorder?: Recorder } = {};
    const injector = target
      ? new PlanInjector({
          plan: { targets: [target] },
          ...(options.manipulator ? { manipulator: options.manipulator } : {}),
          runSoFar: async (run) => (await box.recorder!.run(run)).toTrace(),
          log,
        })
      : undefined;
    const work = join(folders.work, runId);
    rmSync(work, { recursive: true, force: true });
    mkdirSync(work, { recursive: true });
    const recorder = new Recorder({
      folder: folders.recording,
      run: { upstream: shownUpstream(upstream) },
      ...(injector ? { decorate: (trace: Trace) => injector.decorate(trace) } : {}),
      log,
    });
    box.recorder = recorder;
    const proxy = await startProxy({
      upstream: options.upstream,
      ...(options.anthropicUpstream ? { anthropicUpstream: options.anthropicUpstream } : {}),
      recorder,
      port: 0,
      run: runId,
      ...(injector ? { injector } : {}),
    });
    const environment: NodeJS.ProcessEnv = {
      ...process.env,
      OPENAI_BASE_URL: `${proxy.url}/v1`,
      OPENAI_API_BASE: `${proxy.url}/v1`,
      ANTHROPIC_BASE_URL: proxy.url,
      FAULTLINE_RUN: runId,
      FAULTLINE_TASK: task.json,
      FAULTLINE_TASK_ID: task.id,
      FAULTLINE_WORK_DIR: work,
    };
    let passed = false;
    let output = '';
    try {
      const shell = { environment, timeoutMs, output: 'kept' as const };
      const ran = await runShell(fillCommand(options.run, task, work), shell);
      const checked = await runShell(fillCommand(options.check, task, work), shell);
      passed = checked.code === 0;
      output = `${ran.output}\n${checked.output}`.trim();
    } finally {
      await proxy.close();
    }
    const file = recorder.fileOf(runId)!;
    const trace = existsSync(file)
      ? ({
          ...(JSON.parse(readFileSync(file, 'utf8')) as Trace),
          outcome: passed ? 'success' : 'failure',
        } as Trace)
      : undefined;
    rmSync(file, { force: true });
    rmSync(work, { recursive: true, force: true });
    return { trace, passed, output, injector };
  }

  // The clean runs, each task once (a rerun reads the one written).
  const limit = pLimit(Math.max(1, options.concurrency));
  const cleanRuns = new Map<string, Trace>();
  await Promise.all(
    options.tasks.map((task) =>
      limit(async () => {
        const file = join(folders.clean, `${task.id}.json`);
        if (existsSync(file)) {
          cleanRuns.set(task.id, JSON.parse(readFileSync(file, 'utf8')) as Trace);
          return;
        }
        const { trace, passed, output } = await runOnce(
          task,
          tidyRunId(`${task.id}-clean`)!,
          undefined,
        );
        if (!passed || !trace)
          throw new UserError(
            `the clean run of task ${task.id} failed its check${trace ? '' : ' (no model call reached the proxy)'}: a fault can only be injected into a run that passes. Its output ends:\n${output.slice(-800)}`,
          );
        writeJson(file, trace);
        cleanRuns.set(task.id, trace);
      }),
    ),
  );

  const planned = options.tasks.flatMap((task) =>
    samplePlans(cleanRuns.get(task.id)!, {
      count: options.plans,
      modes: options.modes,
      ...(options.operators ? { operators: options.operators } : {}),
      seed: options.seed,
      task: task.id,
      manipulator: options.manipulator !== undefined,
    }).map((target, index) => ({ task, target, id: tidyRunId(`${task.id}-plan-${index + 1}`)! })),
  );
  const results: PlanResult[] = [];
  const progress = { done: 0, total: planned.length, kept: 0, discarded: 0 };
  const report = (result: PlanResult) => {
    results.push(result);
    progress.done += 1;
    if (result.kept) progress.kept += 1;
    else progress.discarded += 1;
    options.onProgress?.({ ...progress });
  };
  await Promise.all(
    planned.map(({ task, target, id }) =>
      limit(async () => {
        const planFile = join(folders.plans, `${id}.json`);
        if (existsSync(planFile)) {
          report(JSON.parse(readFileSync(planFile, 'utf8')) as PlanResult);
          return;
        }
        const { trace, passed, injector } = await runOnce(task, id, target);
        const record = injector?.recordsOf(id)[0];
        const reason: DiscardReason | undefined = !record
          ? 'not-reached'
          : record.status !== 'applied'
            ? record.status
            : passed
              ? 'still-passed'
              : undefined;
        const kept = reason === undefined && trace?.labels !== undefined;
        if (trace) writeJson(join(kept ? folders.runs : folders.discarded, `${id}.json`), trace);
        const result: PlanResult = {
          id,
          task: task.id,
          target,
          kept,
          ...(kept ? {} : { reason: reason ?? 'not-reached' }),
          ...(kept && trace?.labels?.step !== undefined ? { step: trace.labels.step } : {}),
        };
        writeJson(planFile, result);
        report(result);
      }),
    ),
  );
  rmSync(folders.work, { recursive: true, force: true });

  const byReason: Record<string, number> = {};
  for (const result of results)
    if (result.reason) byReason[result.reason] = (byReason[result.reason] ?? 0) + 1;
  const usage = options.manipulator?.usage;
  const summary: CampaignSummary = {
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
  writeJson(join(out, 'summary.json'), summary);
  return summary;
}
