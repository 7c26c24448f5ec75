/**
 * `faultline rerun`: runs a user's system N times through the recording proxy against the real
 * upstream (not replay), each run with a proxy of its own so that its calls are one run, and each
 * run's outcome from the check command (exit 0: passed). Runs go `concurrency` at a time; a call
 * or cost budget refuses calls past it (budget.ts: the run that hit it is kept without an outcome,
 * and no run starts after it); an abort (Ctrl-C) stops the runs in flight and starts no more, and every finished run
 * stays recorded. The runs are what spectrum analysis reads (src/attribution/spectrum/).
 */
import { randomBytes } from 'node:crypto';
import pLimit from 'p-limit';
import type { RunStore } from '../../store/runs.js';
import type { TraceOutcome } from '../../trace/model.js';
import { shownUpstream } from '../proxy/forward.js';
import { clientEnvironment, parseUpstream, startProxy } from '../proxy/proxy.js';
import { tidyRunId } from '../record/identify.js';
import { Recorder } from '../record/recorder.js';
import { runShell } from '../replay/shell.js';
import { RerunBudget, type BudgetLimits, type BudgetSpent } from './budget.js';

/** Settings of a rerun. */
export interface RerunOptions extends BudgetLimits {
  /** The command that runs the system once (a shell command line). */
  run: string;
  /** The command whose exit status says whether the run passed (0: it did). */
  check: string;
  upstream: string;
  anthropicUpstream?: string;
  /** Runs to make. */
  count: number;
  /** Runs at once (default 1). */
  concurrency?: number;
  /** The task the runs are of (`metadata.task`); by default their task text's fingerprint. */
  task?: string;
  /** Where runs are written, and stored. */
  folder?: string;
  store?: RunStore;
  /** Longest the run command, and then the check, may take (default 10 minutes each). */
  timeoutMs?: number;
  /** Aborting stops the runs in flight and starts no more (Ctrl-C). */
  signal?: AbortSignal;
  /** Each run as it ends. */
  onRun?: (run: RerunRun, finished: number, costUsd: number) => void;
  log?: (line: string) => void;
}

/** One run of a rerun. */
export interface RerunRun {
  /** 1-based, in the order runs started. */
  index: number;
  runId: string;
  /** From the check; unknown when the run was stopped or hit the budget. */
  outcome: TraceOutcome;
  calls: number;
  /** Estimated dollars its recorded replies cost (unpriced models count nothing). */
  costUsd: number;
  /** The run's file, when files are written. */
  file?: string;
  runExitCode: number | null;
  checkExitCode: number | null;
  /** Why it has no outcome: a bound of the budget was reached, or the rerun was interrupted. */
  stopped?: BudgetSpent | 'interrupted';
}

/** What a rerun did. */
export interface RerunResult {
  runs: RerunRun[];
  calls: number;
  /** Estimated dollars over every run. */
  costUsd: number;
  /** Models the cost leaves out, their price unknown (give it with a price file). */
  unpricedModels: string[];
  /** Model calls the cost leaves out, their upstream having reported no tokens. */
  unmeteredCalls: number;
  /** Why fewer runs than asked were made. */
  stopped?: BudgetSpent | 'interrupted';
}

/** Runs the system `count` times through the proxy; resolves once every run started has ended. */
export async function rerun(options: RerunOptions): Promise<RerunResult> {
  const upstream = parseUpstream(options.upstream);
  const budget = new RerunBudget(options);
  const limit = pLimit(options.concurrency ?? 1);
  const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
  const prefix = `${options.task ?? 'rerun'}-${stamp}-${randomBytes(2).toString('hex')}`;
  const runs: RerunRun[] = [];
  const halted = () => options.signal?.aborted === true || budget.spent !== undefined;
  const one = async (index: number): Promise<void> => {
    if (halted()) return;
    const runId = tidyRunId(`${prefix}-${index}`)!;
    const recorder = new Recorder({
      ...(options.folder ? { folder: options.folder } : {}),
      ...(options.store ? { store: options.store } : {}),
      run: { upstream: shownUpstream(upstream), ...(options.task ? { task: options.task } : {}) },
      ...(options.log ? { log: options.log } : {}),
      decorate: (trace) => budget.noteRun(trace),
    });
    const counter = { calls: 0, refused: false };
    const proxy = await startProxy({
      upstream: options.upstream,
      ...(options.anthropicUpstream ? { anthropicUpstream: options.anthropicUpstream } : {}),
      recorder,
      port: 0,
      run: runId,
      responder: budget.responder(counter),
    });
    const environment: NodeJS.ProcessEnv = {
      ...process.env,
      ...clientEnvironment(proxy.url),
      FAULTLINE_RERUN_RUN: runId,
      FAULTLINE_RERUN_INDEX: String(index),
    };
    const shell = (command: string, what: string) =>
      runShell(command, {
        environment,
        timeoutMs: options.timeoutMs ?? 600_000,
        what,
        output: 'stderr',
        ...(options.signal ? { signal: options.signal } : {}),
      }).then((ran) => ran.code);
    let runExitCode: number | null = null;
    let checkExitCode: number | null = null;
    try {
      runExitCode = await shell(options.run, 'run');
      if (!halted()) checkExitCode = await shell(options.check, 'check');
    } finally {
      await proxy.close();
    }
    const stopped = counter.refused
      ? budget.spent
      : options.signal?.aborted
        ? ('interrupted' as const)
        : undefined;
    const outcome: TraceOutcome = stopped ? 'unknown' : checkExitCode === 0 ? 'success' : 'failure';
    // A run that made no call through the proxy left nothing to record.
    if (counter.calls > 0) await recorder.setOutcome(runId, outcome);
    await recorder.close();
    const file = counter.calls > 0 ? recorder.fileOf(runId) : undefined;
    const result: RerunRun = {
      index,
      runId,
      outcome,
      calls: counter.calls,
      costUsd: budget.costOfRun(runId),
      ...(file ? { file } : {}),
      runExitCode,
      checkExitCode,
      ...(stopped ? { stopped } : {}),
    };
    runs.push(result);
    options.onRun?.(result, runs.length, budget.costUsd);
  };
  await Promise.all(
    Array.from({ length: options.count }, (_, index) => limit(() => one(index + 1))),
  );
  runs.sort((left, right) => left.index - right.index);
  const stopped = options.signal?.aborted ? ('interrupted' as const) : budget.spent;
  return {
    runs,
    calls: budget.calls,
    costUsd: budget.costUsd,
    unpricedModels: [...budget.unpriced].sort(),
    unmeteredCalls: budget.unmetered,
    ...(stopped ? { stopped } : {}),
  };
}
