/**
 * `faultline rerun`: runs a user's system N times through the recording proxy against the real
 * upstream (not replay), each run with a proxy of its own so that its calls are one run, and each
 * run's outcome from the check command (exit 0: passed). Runs go `concurrency` at a time; a call
 * budget refuses calls past it (the run that hit it is kept without an outcome, and no run starts
 * after it); an abort (Ctrl-C) stops the runs in flight and starts no more, and every finished run
 * stays recorded. The runs are what spectrum analysis reads (src/attribution/spectrum/).
 */
import { randomBytes } from 'node:crypto';
import pLimit from 'p-limit';
import type { RunStore } from '../../store/runs.js';
import type { TraceOutcome } from '../../trace/model.js';
import { shownUpstream } from '../proxy/forward.js';
import { clientEnvironment, parseUpstream, startProxy } from '../proxy/proxy.js';
import type { Answer, Responder } from '../proxy/types.js';
import { tidyRunId } from '../record/identify.js';
import { Recorder } from '../record/recorder.js';
import { runShell } from '../replay/shell.js';

/** Settings of a rerun. */
export interface RerunOptions {
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
  /** Most model calls over all runs; calls past it are refused. */
  maxCalls?: number;
  /** Longest the run command, and then the check, may take (default 10 minutes each). */
  timeoutMs?: number;
  /** Aborting stops the runs in flight and starts no more (Ctrl-C). */
  signal?: AbortSignal;
  /** Each run as it ends. */
  onRun?: (run: RerunRun, finished: number) => void;
  log?: (line: string) => void;
}

/** One run of a rerun. */
export interface RerunRun {
  /** 1-based, in the order runs started. */
  index: number;
  runId: string;
  /** From the check; unknown when the run was stopped or hit the call budget. */
  outcome: TraceOutcome;
  calls: number;
  /** The run's file, when files are written. */
  file?: string;
  runExitCode: number | null;
  checkExitCode: number | null;
  /** Why it has no outcome. */
  stopped?: 'budget' | 'interrupted';
}

/** What a rerun did. */
export interface RerunResult {
  runs: RerunRun[];
  calls: number;
  /** Why fewer runs than asked were made. */
  stopped?: 'budget' | 'interrupted';
}

/** Counts every run's calls against the budget and refuses calls past it. */
class CallBudget {
  calls = 0;
  spent = false;
  constructor(private readonly max: number | undefined) {}

  /** A responder for one run: forwards every call upstream until the budget is spent. */
  responder(counter: { calls: number; refused: boolean }): Responder {
    return {
      answer: (): Answer | undefined => {
        if (this.max !== undefined && this.calls >= this.max) {
          this.spent = true;
          counter.refused = true;
          return {
            kind: 'refuse',
            status: 429,
            message: `faultline rerun: the call budget of ${this.max} calls is spent`,
          };
        }
        this.calls += 1;
        counter.calls += 1;
        return undefined;
      },
    };
  }
}

/** Runs the system `count` times through the proxy; resolves once every run started has ended. */
export async function rerun(options: RerunOptions): Promise<RerunResult> {
  const upstream = parseUpstream(options.upstream);
  const budget = new CallBudget(options.maxCalls);
  const limit = pLimit(options.concurrency ?? 1);
  const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
  const prefix = `${options.task ?? 'rerun'}-${stamp}-${randomBytes(2).toString('hex')}`;
  const runs: RerunRun[] = [];
  const halted = () => options.signal?.aborted === true || budget.spent;
  const one = async (index: number): Promise<void> => {
    if (halted()) return;
    const runId = tidyRunId(`${prefix}-${index}`)!;
    const recorder = new Recorder({
      ...(options.folder ? { folder: options.folder } : {}),
      ...(options.store ? { store: options.store } : {}),
      run: { upstream: shownUpstream(upstream), ...(options.task ? { task: options.task } : {}) },
      ...(options.log ? { log: options.log } : {}),
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
      ? ('budget' as const)
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
      ...(file ? { file } : {}),
      runExitCode,
      checkExitCode,
      ...(stopped ? { stopped } : {}),
    };
    runs.push(result);
    options.onRun?.(result, runs.length);
  };
  await Promise.all(
    Array.from({ length: options.count }, (_, index) => limit(() => one(index + 1))),
  );
  runs.sort((left, right) => left.index - right.index);
  const stopped = options.signal?.aborted
    ? ('interrupted' as const)
    : budget.spent
      ? ('budget' as const)
      : undefined;
  return { runs, calls: budget.calls, ...(stopped ? { stopped } : {}) };
}
