/**
 * One run of a campaign: the system's run command and its check, through a proxy of their own
 * (with the plan's injector, if any), recorded into a trace labelled with the check's outcome.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Trace } from '../../trace/model.js';
import { shownUpstream } from '../proxy/forward.js';
import { clientEnvironment, startProxy } from '../proxy/proxy.js';
import { Recorder } from '../record/recorder.js';
import { runShell } from '../replay/shell.js';
import type { CampaignOptions } from './campaign-options.js';
import { fillCommand, type CampaignTask } from './campaign-tasks.js';
import { PlanInjector } from './injector.js';
import type { InjectionTarget } from './plan.js';

/** A campaign's output folders (see campaign.ts for the layout). */
export interface CampaignFolders {
  runs: string;
  clean: string;
  discarded: string;
  plans: string;
  work: string;
  recording: string;
}

/** What every run of a campaign shares: its settings, folders and upstream. */
export interface RunContext {
  options: CampaignOptions;
  folders: CampaignFolders;
  upstream: URL;
  /** Longest a run command, and a check, may take. */
  timeoutMs: number;
  log: (line: string) => void;
}

/** What one run gave: its trace (none when no call reached the proxy), its check, its injector. */
export interface RunOutcome {
  trace: Trace | undefined;
  passed: boolean;
  output: string;
  injector: PlanInjector | undefined;
}

/** One run of the system through a proxy (with the injector, if any); the run and its check. */
export async function runOnce(
  context: RunContext,
  task: CampaignTask,
  runId: string,
  target: InjectionTarget | undefined,
): Promise<RunOutcome> {
  const { options } = context;
  const box: { recorder?: Recorder } = {};
  const injector = target
    ? new PlanInjector({
        plan: { targets: [target] },
        ...(options.manipulator ? { manipulator: options.manipulator } : {}),
        runSoFar: async (run) => (await box.recorder!.run(run)).toTrace(),
        log: context.log,
      })
    : undefined;
  const work = join(context.folders.work, runId);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const recorder = new Recorder({
    folder: context.folders.recording,
    run: { upstream: shownUpstream(context.upstream) },
    ...(injector ? { decorate: (trace: Trace) => injector.decorate(trace) } : {}),
    log: context.log,
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
    ...clientEnvironment(proxy.url),
    FAULTLINE_RUN: runId,
    FAULTLINE_TASK: task.json,
    FAULTLINE_TASK_ID: task.id,
    FAULTLINE_WORK_DIR: work,
  };
  let passed = false;
  let output = '';
  try {
    const shell = { environment, timeoutMs: context.timeoutMs, output: 'kept' as const };
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
