/**
 * End to end: the example team (examples/agent-team) with its scripted model, through `inject`:
 * clean runs pass, injected runs fail, the dataset's labels are right, kept and discarded are
 * counted, a rerun resumes, and eval compares the shipped model with the baselines on it, and
 * diverge (each run against its task's clean run, kept in the dataset) beside them.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { startScriptedModel, type ScriptedModel } from '../examples/agent-team/scripted-model.js';
import { ROOT } from './paths.js';
import { ResultStore } from '../src/eval/result-store.js';
import { runEvaluation } from '../src/eval/run-eval.js';
import { summariseEvaluation } from '../src/eval/summary.js';
import { summariseInjected } from '../src/eval/injected.js';
import { renderHtmlReport } from '../src/eval/report-html.js';
import type { Trace } from '../src/trace/model.js';
import { recordingOf } from '../src/recording/record/recording.js';
import {
  fillCommand,
  readTasks,
  runCampaign,
  type CampaignSummary,
} from '../src/recording/inject/campaign.js';
import { injectionOf } from '../src/recording/inject/injector.js';

const run = promisify(execFile);
const TSX = `"${process.execPath}" --import tsx`;
const TEAM = join(ROOT, 'examples/agent-team');
const MODES = ['2.6', '3.2', '2.4', '3.1', '1.2', '1.3', '1.4'];

let home: string;
let model: ScriptedModel;
let summary: CampaignSummary;
const previousHome = process.env.FAULTLINE_HOME;
const out = () => join(home, 'injected');

const campaign = (tasks: string) =>
  runCampaign({
    run: `${TSX} "${join(TEAM, 'team.ts')}" --task {id} --out {work}/answer.json`,
    check: `${TSX} "${join(TEAM, 'check.ts')}" --task {id} --answer {work}/answer.json`,
    tasks: readTasks(tasks),
    plans: MODES.length,
    modes: MODES,
    out: out(),
    upstream: model.baseUrl,
    seed: 7,
    concurrency: 2,
    timeoutMs: 60_000,
  });

before(async () => {
  home = mkdtempSync(join(tmpdir(), 'faultline-inject-'));
  process.env.FAULTLINE_HOME = home;
  model = await startScriptedModel();
  const tasks = join(home, 'tasks.jsonl');
  writeFileSync(tasks, '{"id": "arith-1"}\n{"id": "code-1"}\n');
  summary = await campaign(tasks);
});

after(async () => {
  await model?.close();
  if (previousHome === undefined) delete process.env.FAULTLINE_HOME;
  else process.env.FAULTLINE_HOME = previousHome;
  rmSync(home, { recursive: true, force: true });
});

const readRuns = (folder: string): Trace[] =>
  readdirSync(join(out(), folder))
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => ({
      ...(JSON.parse(readFileSync(join(out(), folder, name), 'utf8')) as Trace),
      source: join(out(), folder, name),
    }));

describe('faultline inject on the example team', () => {
  test('clean runs pass; kept and discarded are counted per mode, operator and agent', () => {
    const clean = readRuns('clean');
    assert.equal(clean.length, 2);
    for (const trace of clean) assert.equal(trace.outcome, 'success');
    assert.equal(summary.plans, 14);
    assert.equal(summary.kept + summary.discarded, 14);
    // The scripted model is deterministic and the plans are seeded: these counts are exact.
    assert.equal(summary.kept, 7);
    assert.equal(summary.discarded, 7);
    assert.deepEqual(summary.byReason, { 'still-passed': 7 });
    const pairs = (counts: CampaignSummary['byOperator']) =>
      Object.fromEntries(
        Object.entries(counts).map(([name, count]) => [name, [count.kept, count.discarded]]),
      );
    assert.deepEqual(pairs(summary.byOperator), {
      'perturb-number': [1, 1],
      'claim-success': [1, 1],
      'truncate-code-block': [1, 1],
      'stop-early': [1, 1],
      'other-role': [1, 1],
      'repeat-previous': [2, 0],
      'drop-last-tool-result': [0, 2],
    });
    assert.deepEqual(pairs(summary.byAgent), {
      planner: [3, 1],
      coder: [2, 5],
      reviewer: [2, 1],
    });
    const modeTotals = Object.values(summary.byMode).reduce(
      (sum, count) => sum + count.kept + count.discarded,
      0,
    );
    assert.equal(modeTotals, 14);
    // The dataset holds the kept runs and, as their reference, each task's clean run.
    assert.equal(readRuns('runs').length, summary.kept + clean.length);
  });

  test('each kept run names its clean run, which the dataset holds', () => {
    const runs = readRuns('runs');
    const ids = new Set(runs.map((trace) => trace.id));
    for (const trace of runs.filter((run) => run.labels)) {
      assert.equal(trace.reference, `${trace.id.replace(/-plan-\d+$/, '')}-clean`, trace.id);
      assert.ok(ids.has(trace.reference), trace.id);
    }
    const cleanInDataset = runs.filter((trace) => !trace.labels);
    assert.deepEqual(
      cleanInDataset.map((trace) => [trace.id, trace.outcome]),
      [
        ['arith-1-clean', 'success'],
        ['code-1-clean', 'success'],
      ],
    );
  });

  test('every kept run failed, and its label is the injected call: agent, step, mode', () => {
    const clean = new Map(
      readRuns('clean').map((trace) => [trace.id.replace(/-clean$/, ''), trace]),
    );
    for (const trace of readRuns('runs').filter((run) => run.labels)) {
      assert.equal(trace.outcome, 'failure', trace.id);
      const injection = injectionOf(trace)!;
      assert.ok(injection, trace.id);
      const plan = JSON.parse(readFileSync(join(out(), 'plans', `${trace.id}.json`), 'utf8')) as {
        target: { agent: string; occurrence: number; mode: string; operator: string };
      };
      assert.equal(trace.labels?.agent, plan.target.agent, trace.id);
      assert.deepEqual(trace.labels?.modes, [plan.target.mode], trace.id);
      assert.equal(injection.operator, plan.target.operator);
      // The injected call is the agent's nth call, at the step the clean run had it.
      const task = trace.id.replace(/-plan-\d+$/, '');
      const cleanCall = recordingOf(clean.get(task)!)!.calls.find(
        (call) => call.agent === plan.target.agent && call.agentCall === plan.target.occurrence - 1,
      )!;
      assert.equal(trace.labels?.step, cleanCall.step, trace.id);
      assert.equal(trace.steps[trace.labels.step!]!.agent, plan.target.agent);
      if (injection.strategy === 'response-corruption') assert.ok(injection.original, trace.id);
    }
  });

  test('a rerun resumes: nothing is run again and the summary is the same', async () => {
    const calls = model.calls();
    const again = await campaign(join(home, 'tasks.jsonl'));
    assert.equal(model.calls(), calls);
    assert.deepEqual(again, summary);
  });

  test('eval on the held-out injected runs: the shipped model beside the baselines', async () => {
    const traces = readRuns('runs');
    const store = new ResultStore(join(home, 'results.jsonl'), { fresh: true });
    const { records, info } = await runEvaluation(traces, store, {
      methods: ['offline', 'diverge'],
      groundTruthSettings: [false],
    });
    const report = summariseEvaluation(records, traces, info);
    const methods = new Set(report.rows.map((row) => row.method));
    assert.ok(methods.has('offline'));
    assert.ok(methods.has('most frequent agent (cross-validated)'));
    assert.ok(methods.has('first agent step'));
    // Per injected mode and operator, the shipped model and the baselines side by side. The
    // adapted model (faultline train --base --data, issue 34 part 4) joins as one more method here.
    const injected = summariseInjected(records, traces, info.plan)!;
    const cells = (subset: string) =>
      new Set(injected.rows.filter((row) => row.subset === subset).map((row) => row.method));
    for (const subset of [
      'all injected runs',
      'mode 3.2 No or incomplete verification',
      'operator claim-success',
    ]) {
      assert.ok(cells(subset).has('offline'), subset);
      assert.ok(cells(subset).has('most frequent agent (cross-validated)'), subset);
    }
    assert.equal(
      injected.rows.find((row) => row.method === 'offline' && row.subset === 'all injected runs')
        ?.traces,
      7,
    );
    assert.match(injected.verdict, /^On this system/);
    // Trajectory analysis against the clean run finds the injected step in at least 90% of runs
    // (all 7 here; 47 of 47 on all six tasks with 14 plans each, docs/MODEL.md).
    const diverge = injected.rows.find(
      (row) => row.method === 'diverge' && row.subset === 'all injected runs',
    )!;
    assert.equal(diverge.traces, 7);
    assert.ok(diverge.accuracy.step.value >= 0.9, `diverge step ${diverge.accuracy.step.value}`);
    assert.match(
      injected.verdict,
      /Compared with its task's clean run, diverge names the injected step in 100% of 7 runs/,
    );
    const html = renderHtmlReport({ ...report, injected }, traces);
    assert.ok(html.includes('Your system: injected faults'));
  });

  test('faultline eval on the dataset measures diverge beside the methods asked for, and says so', async () => {
    const { stdout, stderr } = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        join(ROOT, 'src/cli/index.ts'),
        'eval',
        join(out(), 'runs'),
        '--method',
        'first-agent',
      ],
      { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } },
    );
    assert.match(
      stderr,
      /7 labelled runs name a passing run of the same task among these traces \(its reference\): diverge, which compares each with it, is measured beside first-agent/,
    );
    assert.match(
      stdout,
      /Your system, injected faults: .*Compared with its task's clean run, diverge names the injected step in 100% of 7 runs/,
    );
    assert.match(stdout, /\| diverge \(with GT\) \| all injected runs \| 7 \| 100\.0% /);
  });

  test('commands get the task filled in, shell-quoted', () => {
    const [task] = readTasks(join(home, 'tasks.jsonl'));
    assert.equal(
      fillCommand('run --task {id} --in {task} {nope}', task!, '/w'),
      `run --task 'arith-1' --in '{"id": "arith-1"}' {nope}`,
    );
  });
});
