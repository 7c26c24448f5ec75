/**
 * Counterfactual replay of a recorded run (AgenTracer's diagnose step): the proxy starts in replay
 * mode, the user's run command talks to it (OPENAI_BASE_URL, ANTHROPIC_BASE_URL), the calls before
 * the blamed step are answered from the recording, the blamed step with the fix, the rest by the
 * upstream; then the check command says whether the run now succeeds. The replayed run is recorded
 * as a run of its own. A fix that turns a failed run into a passing one has flipped it: the step
 * is proven decisive.
 */
import { randomBytes } from 'node:crypto';
import { UserError } from '../../errors.js';
import type { RunStore } from '../../store/runs.js';
import type { Trace, TraceOutcome } from '../../trace/model.js';
import type { Fix } from './fix.js';
import { shownUpstream } from '../proxy/forward.js';
import { tidyRunId } from '../record/identify.js';
import { clientEnvironment, parseUpstream, startProxy } from '../proxy/proxy.js';
import { Recorder } from '../record/recorder.js';
import { recordingOf, type Recording } from '../record/recording.js';
import { ReplayResponder, type ReplayCounts } from './responder.js';
import { runShell } from './shell.js';

/** `1 call`, `2 calls`. */
const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

/** Settings of one replay. */
export interface ReplayOptions {
  /** The recorded run (a trace the proxy wrote). */
  trace: Trace;
  /** The step to fix: one of the run's model calls. */
  step: number;
  fix: Fix;
  /** The command that runs the system (a shell command line). */
  run: string;
  /** The command whose exit status says whether the run succeeded (0: it did). */
  check: string;
  upstream: string;
  anthropicUpstream?: string;
  /** Where the replayed run is written, and stored. */
  folder?: string;
  store?: RunStore;
  /** Longest the run command, and then the check, may take (default 10 minutes each). */
  timeoutMs?: number;
  /**
   * Match calls by order alone (a system whose prompts hold times or random ids), and agents named
   * by a fingerprint of their instructions by their role (the instructions, numbers and ids masked).
   */
  lenient?: boolean;
  /** Progress lines (stderr in the CLI). */
  log?: (line: string) => void;
}

/** What a replay found. */
export interface ReplayResult {
  step: number;
  agent: string;
  /** True when the fix changed the outcome (a failed run now passes its check). */
  flipped: boolean;
  /** The replayed run: its file, or its run id when no file is written. */
  run: string;
  runId: string;
  /** Whether the check passed on the replayed run. */
  passed: boolean;
  /** The outcome the recorded run had (unknown is taken as failed). */
  recordedOutcome: TraceOutcome;
  fix: Fix;
  /** How the replayed run's calls were answered. */
  calls: ReplayCounts;
  runExitCode: number | null;
  checkExitCode: number | null;
}

/** The recording of a trace, or a UserError saying why it cannot be replayed. */
export function replayableRecording(trace: Trace, name: string): Recording {
  let recording: Recording | undefined;
  try {
    recording = recordingOf(trace);
  } catch (error) {
    throw new UserError(
      `${name}: the recording in the trace cannot be read (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  if (!recording || recording.calls.length === 0)
    throw new UserError(
      `${name} holds no recorded model calls: replay needs a run recorded with \`faultline proxy\``,
    );
  return recording;
}

/** The steps of a recording that can be fixed (its model calls), for messages. */
export function replayableSteps(recording: Recording): number[] {
  return recording.calls
    .flatMap((call) => (call.step === undefined ? [] : [call.step]))
    .sort((a, b) => a - b);
}

/** Checks that `step` is a model call of the recording; returns that call's agent. */
export function replayTarget(recording: Recording, step: number, name: string): string {
  const call = recording.calls.find((item) => item.step === step);
  if (!call) {
    const steps = replayableSteps(recording);
    throw new UserError(
      `${name}: step ${step} is not a model call, so it cannot be replayed with a fix; choose one of steps ${steps.slice(0, 30).join(', ')}${steps.length > 30 ? ', …' : ''} (tool outputs follow from the calls before them)`,
    );
  }
  return call.agent;
}

/**
 * Runs the system's `what` command with the proxy's addresses; resolves with its exit code (null:
 * stopped). Its output goes to standard error: standard output is the replay's JSON.
 */
async function runCommand(
  command: string,
  environment: NodeJS.ProcessEnv,
  timeoutMs: number,
  what: string,
  log: (line: string) => void,
): Promise<number | null> {
  const ran = await runShell(command, {
    environment,
    timeoutMs,
    what,
    output: 'stderr',
    onTimeout: () =>
      log(`the ${what} command ran past ${Math.round(timeoutMs / 1000)} s; stopping it`),
  });
  return ran.code;
}

/** Replays a recorded run with a fix at one step. */
export async function replay(options: ReplayOptions): Promise<ReplayResult> {
  const name = options.trace.source ?? options.trace.id;
  const recording = replayableRecording(options.trace, name);
  const agent = replayTarget(recording, options.step, name);
  const log = options.log ?? (() => {});
  const timeoutMs = options.timeoutMs ?? 600_000;
  const upstream = parseUpstream(options.upstream);
  const runId = tidyRunId(
    `${options.trace.id}-replay-${options.step}-${randomBytes(3).toString('hex')}`,
  )!;
  const responder = new ReplayResponder({
    recording,
    trace: options.trace,
    step: options.step,
    fix: options.fix,
    ...(options.lenient ? { lenient: true } : {}),
  });
  const recorder = new Recorder({
    ...(options.folder ? { folder: options.folder } : {}),
    ...(options.store ? { store: options.store } : {}),
    run: {
      upstream: shownUpstream(upstream),
      replay: {
        of: options.trace.id,
        step: options.step,
        agent,
        fix: {
          text: options.fix.text,
          ...(options.fix.toolCalls ? { toolCalls: options.fix.toolCalls } : {}),
        },
      },
    },
    log,
  });
  const proxy = await startProxy({
    upstream: options.upstream,
    ...(options.anthropicUpstream ? { anthropicUpstream: options.anthropicUpstream } : {}),
    recorder,
    port: 0,
    run: runId,
    responder,
  });
  const environment: NodeJS.ProcessEnv = {
    ...process.env,
    ...clientEnvironment(proxy.url),
    FAULTLINE_REPLAY_RUN: runId,
  };
  let runExitCode: number | null;
  let checkExitCode: number | null;
  try {
    log(
      `replaying ${options.trace.id} with a fix at step ${options.step} (${agent}) through ${proxy.url}`,
    );
    runExitCode = await runCommand(options.run, environment, timeoutMs, 'run', log);
    if (responder.divergence)
      throw new UserError(
        `the replay diverged from the recording of ${options.trace.id}: ${responder.divergence.message}. Replay needs the system to make the same calls again: temperature 0 or a seed, the same inputs and code (--lenient matches calls by order alone, and agents named by a fingerprint by their role)`,
      );
    if (!responder.fixGiven)
      throw new UserError(
        `the replayed run ended (exit code ${runExitCode ?? 'none: stopped'}) before ${agent}'s call at step ${options.step}, so the fix was never given; it made ${responder.counts.recording + responder.counts.upstream} model calls through the proxy. Does --run start the same system, pointed at OPENAI_BASE_URL / ANTHROPIC_BASE_URL?`,
      );
    checkExitCode = await runCommand(options.check, environment, timeoutMs, 'check', log);
  } finally {
    await proxy.close();
  }
  const passed = checkExitCode === 0;
  await recorder.setOutcome(runId, passed ? 'success' : 'failure');
  const flipped = options.trace.outcome === 'success' ? !passed : passed;
  log(
    `step ${options.step} (${agent}): the check ${passed ? 'passed' : 'failed'} (exit code ${checkExitCode ?? 'none'}), ${flipped ? 'flipped' : 'not flipped'}; ${plural(responder.counts.recording, 'call')} from the recording, ${responder.counts.upstream} upstream`,
  );
  return {
    step: options.step,
    agent,
    flipped,
    run: recorder.fileOf(runId) ?? runId,
    runId,
    passed,
    recordedOutcome: options.trace.outcome,
    fix: options.fix,
    calls: { ...responder.counts },
    runExitCode,
    checkExitCode,
  };
}
