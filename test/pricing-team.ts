/**
 * Shared set-up of the framework tests (openai-agents.test.ts, langgraph.test.ts): a pricing team
 * written on a real agent framework (examples/pricing-team) runs through the recording proxy
 * against its scripted model, whose researcher misreports the unit price. Each run is recorded
 * without a run header, as a new user would record it, and read back with what the upstream saw.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startPricingModel } from '../examples/pricing-team/scripted-model.js';
import { ROOT } from './paths.js';
import type { WireServer } from './wire-server.js';
import { openDatabase, type Db } from '../src/store/database.js';
import { RunStore } from '../src/store/runs.js';
import type { Trace } from '../src/trace/model.js';
import { startProxy } from '../src/recording/proxy/proxy.js';
import type { Injector } from '../src/recording/proxy/types.js';
import { Recorder } from '../src/recording/record/recorder.js';

const exec = promisify(execFile);
const TSX = `"${process.execPath}" --import tsx`;

/** Which OpenAI API a run speaks, and whether it streams. */
export interface Variant {
  api: 'chat' | 'responses';
  stream: boolean;
}

/** Both APIs, streamed and not. */
export const VARIANTS: readonly Variant[] = [
  { api: 'responses', stream: false },
  { api: 'responses', stream: true },
  { api: 'chat', stream: false },
  { api: 'chat', stream: true },
];

/** A variant as a word for names: `responses-stream`. */
export const variantName = ({ api, stream }: Variant) => `${api}${stream ? '-stream' : ''}`;

/** A recorded run of the team. */
export interface RecordedRun {
  variant: Variant;
  trace: Trace;
  file: string;
  /** Runs the recording folder held after the app ran (one app run: one). */
  runFiles: string[];
  /** Whether the team's answer passed its check. */
  passed: boolean;
}

/** The pricing team of one framework, its scripted models and a store, in a temporary home. */
export interface PricingTeam {
  home: string;
  /** The model whose researcher misreports. */
  model: WireServer;
  /** The model that answers right (for injection). */
  clean: WireServer;
  db: Db;
  runs: RunStore;
  /** The shell command that runs the app (`variant`), writing its answer into the home. */
  runCommand(variant: Variant): string;
  /** The shell command that checks the answer of `variant`'s run. */
  checkCommand(variant: Variant): string;
  /** Runs the app once through a new proxy; `injector` changes calls on their way. */
  record(
    variant: Variant,
    options?: {
      upstream?: WireServer;
      injector?: Injector;
      recorder?: (folder: string) => Recorder;
    },
  ): Promise<RecordedRun>;
  close(): Promise<void>;
}

/** Starts the team of `app` (a file under examples/pricing-team). */
export async function startPricingTeam(app: string): Promise<PricingTeam> {
  const home = mkdtempSync(join(tmpdir(), 'faultline-framework-'));
  const previousHome = process.env.FAULTLINE_HOME;
  process.env.FAULTLINE_HOME = home;
  const model = await startPricingModel({ fault: true });
  const clean = await startPricingModel({ fault: false });
  const db = await openDatabase(join(home, 'faultline.db'));
  const runs = new RunStore(db);
  // An answer file per variant: variants run at once, and a check must read its own run's answer.
  const answer = (variant: Variant) => join(home, `answer-${variantName(variant)}.json`);
  const script = join(ROOT, 'examples/pricing-team', app);
  const runCommand = (variant: Variant) =>
    `${TSX} "${script}" --api ${variant.api}${variant.stream ? ' --stream' : ''} --out "${answer(variant)}"`;
  const checkCommand = (variant: Variant) =>
    `${TSX} "${join(ROOT, 'examples/pricing-team/check.ts')}" --answer "${answer(variant)}"`;
  let recordings = 0;

  async function record(
    variant: Variant,
    options: {
      upstream?: WireServer;
      injector?: Injector;
      recorder?: (folder: string) => Recorder;
    } = {},
  ): Promise<RecordedRun> {
    const upstream = options.upstream ?? model;
    const folder = join(home, `recorded-${(recordings += 1)}-${variantName(variant)}`);
    const recorder = options.recorder?.(folder) ?? new Recorder({ folder, store: runs });
    const proxy = await startProxy({
      upstream: upstream.baseUrl,
      recorder,
      port: 0,
      ...(options.injector ? { injector: options.injector } : {}),
    });
    const environment = { ...process.env, OPENAI_BASE_URL: `${proxy.url}/v1` };
    try {
      await exec('sh', ['-c', runCommand(variant)], { env: environment, timeout: 60_000 });
    } finally {
      await proxy.close();
    }
    const passed = await exec('sh', ['-c', checkCommand(variant)]).then(
      () => true,
      () => false,
    );
    const runFiles = readdirSync(folder).filter((name) => name.endsWith('.json'));
    assert.ok(runFiles.length > 0, `${variantName(variant)}: the proxy recorded no run`);
    const file = join(folder, runFiles[0]!);
    const trace = JSON.parse(readFileSync(file, 'utf8')) as Trace;
    if (!passed && !options.injector) await recorder.setOutcome(trace.id, 'failure');
    const stored = JSON.parse(readFileSync(file, 'utf8')) as Trace;
    return {
      variant,
      trace: { ...stored, source: file },
      file,
      runFiles,
      passed,
    };
  }

  return {
    home,
    model,
    clean,
    db,
    runs,
    runCommand,
    checkCommand,
    record,
    async close() {
      await model.close();
      await clean.close();
      await db.close();
      if (previousHome === undefined) delete process.env.FAULTLINE_HOME;
      else process.env.FAULTLINE_HOME = previousHome;
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** The researcher's report in a run: the step that says the unit price. */
export function reportStep(trace: Trace): number {
  const step = trace.steps.find(
    (candidate) => candidate.role === 'agent' && /unit price: [\d.]+ USD/.test(candidate.content),
  );
  assert.ok(step, `${trace.id}: no step reports the unit price`);
  return step.index;
}
