/**
 * Verify on a run whose planner is wrong (it plans `17 * 23 + 6`): fixing the planner's step 0
 * flips the outcome, and so does fixing the coder's step 1 (the fix writer codes the task's right
 * expression), a later step; the decisive step is the earliest, step 0.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import {
  startScriptedModel,
  type ScriptedModel,
} from '../../../examples/agent-team/scripted-model.js';
import { ROOT } from '../../../test/paths.js';
import type { Attribution } from '../../attribution/method.js';
import { createModelClient } from '../../llm/client.js';
import type { Trace } from '../../trace/model.js';
import { startProxy } from '../proxy/proxy.js';
import { Recorder } from '../record/recorder.js';
import { describeVerification, verify, type VerifyOptions } from './verify.js';

const exec = promisify(execFile);
const TSX = `"${process.execPath}" --import tsx`;
const TEAM = join(ROOT, 'examples/agent-team');

let home: string;
let model: ScriptedModel;
let trace: Trace;
let settings: Omit<VerifyOptions, 'attribution' | 'fixWriter' | 'trace'>;
const previousHome = process.env.FAULTLINE_HOME;

before(async () => {
  home = mkdtempSync(join(tmpdir(), 'faultline-verify-'));
  process.env.FAULTLINE_HOME = home;
  model = await startScriptedModel({ fault: 'planner' });
  const folder = join(home, 'runs');
  const answer = join(home, 'answer.json');
  const run = `${TSX} "${join(TEAM, 'team.ts')}" --task arith-1 --out "${answer}"`;
  const check = `${TSX} "${join(TEAM, 'check.ts')}" --task arith-1 --answer "${answer}"`;
  const recorder = new Recorder({ folder });
  const proxy = await startProxy({ upstream: model.baseUrl, recorder, port: 0 });
  await exec('sh', ['-c', run], {
    env: { ...process.env, OPENAI_BASE_URL: `${proxy.url}/v1`, FAULTLINE_RUN: 'planned-1' },
  });
  await assert.rejects(exec('sh', ['-c', check]), 'the recorded run fails its check');
  await recorder.setOutcome('planned-1', 'failure');
  await proxy.close();
  const file = join(folder, 'planned-1.json');
  trace = { ...(JSON.parse(readFileSync(file, 'utf8')) as Trace), source: file };
  settings = { run, check, upstream: model.baseUrl, folder, timeoutMs: 60_000 };
});

after(async () => {
  await model?.close();
  if (previousHome === undefined) delete process.env.FAULTLINE_HOME;
  else process.env.FAULTLINE_HOME = previousHome;
  rmSync(home, { recursive: true, force: true });
});

/** An attribution ranking these steps, the first named. */
const ranking = (steps: [number, string][]): Attribution => ({
  agent: steps[0]![1],
  step: steps[0]![0],
  reason: 'the step looks wrong',
  method: 'offline',
  usage: { calls: 0, inputTokens: 0, outputTokens: 0 },
  candidates: steps.map(([step, agent], rank) => ({ step, agent, score: 0.9 - rank / 10 })),
});

const fixWriter = () =>
  createModelClient({
    model: 'openai:scripted',
    baseUrl: model.baseUrl,
    apiKey: 'scripted',
    cache: false,
  });

test('a fix to a later step also flips, and verify still names the earlier one', async () => {
  assert.equal(trace.steps[0]!.content.includes('17 * 23 + 6'), true, 'the planner is wrong');
  const found = await verify({
    ...settings,
    trace,
    attribution: ranking([[1, 'coder']]),
    fixWriter: fixWriter(),
    top: 1,
    budget: 3,
  });
  assert.deepEqual(
    found.attempts.map((attempt) => [
      attempt.step,
      attempt.search,
      attempt.status === 'replayed' && attempt.flipped,
    ]),
    [
      [1, 'candidate', true],
      [0, 'earlier', true],
    ],
  );
  assert.equal(found.verified?.step, 0);
  assert.equal(found.verified?.agent, 'planner');
  assert.equal(found.verified?.firstFlipped, 1);
  assert.equal(found.verified?.earlierAllTried, true);
  assert.equal(found.replays, 2);
  assert.match(
    describeVerification(found),
    /^verified: step 0 \(planner\) is decisive: .*; a fix at the later step 1 flipped it too, but step 0 comes first; no model call comes before it$/,
  );
});

test('when the budget ends the search for an earlier step, the result says which were not tried', async () => {
  const found = await verify({
    ...settings,
    trace,
    attribution: ranking([[1, 'coder']]),
    fixWriter: fixWriter(),
    top: 1,
    budget: 1,
  });
  assert.equal(found.verified?.step, 1);
  assert.equal(found.verified?.earlierAllTried, false);
  assert.deepEqual(found.earlier?.untried, [0]);
  assert.match(describeVerification(found), /step 0 not tried \(the budget ran out/);
});

test('--top is honoured beyond the candidates the attribution lists', async () => {
  // The attribution ranks two steps, neither of which flips; --top 4 also replays the others.
  const found = await verify({
    ...settings,
    trace,
    attribution: ranking([
      [4, 'reviewer'],
      [3, 'coder'],
    ]),
    fixWriter: fixWriter(),
    top: 4,
    budget: 4,
  });
  assert.equal(found.candidates, 4);
  assert.deepEqual(
    found.attempts.map((attempt) => attempt.step),
    [4, 3, 0],
  );
  assert.equal(found.verified?.step, 0);
});

test('when the top candidates do not flip, verify goes on down the ranking while the budget lasts', async () => {
  // --top 1: step 4 alone is the top; it does not flip, so the ranking goes on (step 3, then the
  // other model calls from the first on) and step 0 flips within the budget.
  const found = await verify({
    ...settings,
    trace,
    attribution: ranking([
      [4, 'reviewer'],
      [3, 'coder'],
    ]),
    fixWriter: fixWriter(),
    top: 1,
    budget: 3,
  });
  assert.deepEqual(
    found.attempts.map((attempt) => [attempt.step, attempt.search]),
    [
      [4, 'candidate'],
      [3, 'candidate'],
      [0, 'candidate'],
    ],
  );
  assert.equal(found.verified?.step, 0);
  assert.equal(found.candidates, 1);
});
