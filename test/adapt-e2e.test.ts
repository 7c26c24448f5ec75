/**
 * End to end: `faultline adapt` on the example team (examples/agent-team) with its scripted model:
 * faults are injected, and with each task's runs named by what learned from the other tasks' runs,
 * the adapted model beats the shipped one and is not below the baseline that names the agent most
 * often blamed in the training runs. Then `train --base` adapts the shipped
 * model from the same runs alone, with no base data read, and `eval` measures offline-adapted.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { startScriptedModel, type ScriptedModel } from '../examples/agent-team/scripted-model.js';
import type { AdaptationRow } from '../src/eval/adaptation.js';
import { ROOT } from './paths.js';

const TSX = `"${process.execPath}" --import tsx`;
const TEAM = join(ROOT, 'examples/agent-team');
const TASKS = ['arith-1', 'arith-2', 'arith-3', 'code-1', 'code-2', 'code-3'];

let home: string;
let model: ScriptedModel;
let adapt: { code: number; stdout: string; stderr: string };

/** Runs the CLI from source with the temporary home. */
async function faultline(
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'src/cli/index.ts'), ...args],
      { cwd: ROOT, env: { ...process.env, FAULTLINE_HOME: home }, maxBuffer: 1 << 24 },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

const out = () => join(home, 'dataset');

before(async () => {
  home = mkdtempSync(join(tmpdir(), 'faultline-adapt-'));
  model = await startScriptedModel();
  const tasks = join(home, 'tasks.jsonl');
  writeFileSync(tasks, TASKS.map((id) => `${JSON.stringify({ id })}\n`).join(''));
  adapt = await faultline(
    'adapt',
    '--upstream',
    model.baseUrl,
    '--tasks',
    tasks,
    '--plans',
    '5',
    '--modes',
    '2.6,3.2,2.4,3.1,1.2,1.3',
    '--seed',
    '7',
    '--out',
    out(),
    '--run',
    `${TSX} "${join(TEAM, 'team.ts')}" --task {id} --out {work}/answer.json`,
    '--check',
    `${TSX} "${join(TEAM, 'check.ts')}" --task {id} --answer {work}/answer.json`,
  );
});

after(async () => {
  await model?.close();
  rmSync(home, { recursive: true, force: true });
});

describe('faultline adapt on the example team', () => {
  test('the adapted model beats the shipped one on other tasks, and is not below the baseline', () => {
    assert.equal(adapt.code, 0, adapt.stderr);
    const written = JSON.parse(readFileSync(join(out(), 'adaptation.json'), 'utf8')) as {
      rows: AdaptationRow[];
      tasks: number;
      runs: number;
    };
    assert.equal(written.tasks, TASKS.length, JSON.stringify(written));
    // Every kept run is measured, by what learned from the other tasks' runs alone.
    for (const row of written.rows) assert.equal(row.runs, written.runs, row.method);
    const agent = (method: string) => written.rows.find((row) => row.method === method)!.agent;
    const shipped = agent('offline (shipped model)');
    const adapted = agent('offline (adapted)');
    const blamed = agent('most often blamed in the training runs');
    assert.ok(adapted > shipped, `adapted ${adapted} vs shipped ${shipped}`);
    assert.ok(adapted >= blamed, `adapted ${adapted} vs most often blamed ${blamed}`);
    // The table printed, side by side.
    assert.match(adapt.stdout, /\| offline \(shipped model\) \| [\d.]+% \|/);
    assert.match(adapt.stdout, /\| offline \(adapted\) \| [\d.]+% \|/);
    assert.match(adapt.stdout, /most often blamed in the training runs \(baseline\)/);
    const adaptedModel = JSON.parse(readFileSync(join(out(), 'adapted-model.json'), 'utf8')) as {
      system?: { agentPrior: { names: string[] }; weight: number };
    };
    assert.ok(adaptedModel.system, 'the adapted model carries its system layer');
    for (const agent of ['planner', 'coder', 'reviewer'])
      assert.ok(adaptedModel.system.agentPrior.names.includes(agent), agent);
  });

  test('train --base adapts the shipped model from the runs alone; eval measures it', async () => {
    const model = join(home, 'mine.json');
    const trained = await faultline(
      'train',
      '--base',
      '--data',
      join(out(), 'runs'),
      '--out',
      model,
    );
    assert.equal(trained.code, 0, trained.stderr);
    assert.match(trained.stderr, /adapted to your system from \d+ labelled runs/);
    assert.match(trained.stderr, /the shipped model's scorers, calibration and failure-mode/);
    const attributed = await faultline(
      'attribute',
      join(out(), 'runs'),
      '--model-file',
      model,
      '--json',
    );
    assert.equal(attributed.code, 0, attributed.stderr);
    const evaluated = await faultline('eval', join(out(), 'runs'), '--method', 'offline');
    assert.equal(evaluated.code, 0, evaluated.stderr);
    assert.match(evaluated.stdout, /offline-adapted/);
  });
});
