import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Attribution } from '../../attribution/method.js';
import { candidateSteps, describeVerification, type Verification } from './verify.js';
import { describeAttempt } from './verify-summary.js';

const attribution = (
  over: Pick<Attribution, 'candidates'> & Partial<Pick<Attribution, 'step' | 'confidence'>>,
): Attribution => ({
  agent: 'coder',
  step: 4,
  reason: 'the coder ignored the failing test',
  method: 'offline',
  usage: { calls: 0, inputTokens: 0, outputTokens: 0 },
  ...over,
});

test("candidates keep the attribution's order, the named step first", () => {
  // The offline method names step 4 by its decoding rules although step 2 scores higher.
  const named = attribution({
    candidates: [
      { step: 4, agent: 'coder', score: 0.3 },
      { step: 2, agent: 'planner', score: 0.6 },
      { step: 6, agent: 'coder', score: 0.1 },
    ],
  });
  const calls = new Set([2, 4, 6]);
  assert.deepEqual(
    candidateSteps(named, calls, 3).map((candidate) => candidate.step),
    [4, 2, 6],
  );
  assert.deepEqual(
    candidateSteps(named, calls, 1).map((candidate) => candidate.step),
    [4],
  );
});

test('a named step missing from the candidates is put first', () => {
  const missing = attribution({
    step: 5,
    confidence: 0.2,
    candidates: [
      { step: 2, agent: 'planner', score: 0.6 },
      { step: 4, agent: 'coder', score: 0.3 },
    ],
  });
  assert.deepEqual(
    candidateSteps(missing, new Set([2, 4, 5]), 3).map((candidate) => candidate.step),
    [5, 2, 4],
  );
});

test('--top is honoured beyond the candidates the attribution lists: the other model calls follow, first step first', () => {
  // The offline method lists 3 candidates; --top 7 on a run of 7 model calls considers all 7.
  const three = attribution({
    step: 8,
    candidates: [
      { step: 8, agent: 'analyst', score: 0.5 },
      { step: 6, agent: 'researcher', score: 0.3 },
      { step: 2, agent: 'coordinator', score: 0.1 },
    ],
  });
  const calls = new Map([
    [0, 'coordinator'],
    [2, 'coordinator'],
    [4, 'researcher'],
    [6, 'researcher'],
    [8, 'analyst'],
    [10, 'analyst'],
    [11, 'coordinator'],
  ]);
  assert.deepEqual(
    candidateSteps(three, calls, 7).map((candidate) => [candidate.step, candidate.agent]),
    [
      [8, 'analyst'],
      [6, 'researcher'],
      [2, 'coordinator'],
      [0, 'coordinator'],
      [4, 'researcher'],
      [10, 'analyst'],
      [11, 'coordinator'],
    ],
  );
  assert.equal(candidateSteps(three, calls, 4).length, 4);
});

test('the summary says the verified step, the replays used and whether every earlier step was tried', () => {
  const none = (replays: number, candidates: number): Verification => ({
    verified: null,
    attempts: [],
    replays,
    candidates,
  });
  const verified = {
    step: 1,
    agent: 'coder',
    replays: 2,
    run: 'runs/r.json',
    fix: { text: 'x' },
    firstFlipped: 1,
    earlierAllTried: true,
  };
  assert.equal(
    describeVerification({
      ...none(2, 3),
      verified,
      earlier: { steps: [0], replayed: [0], failed: [], untried: [] },
    }),
    'verified: step 1 (coder) is decisive: fixing it flipped the outcome (2 replays used; replayed run runs/r.json); fixes at the one earlier model call were tried and none flipped it',
  );
  assert.equal(
    describeVerification({
      ...none(3, 3),
      verified: { ...verified, step: 3, firstFlipped: 7, earlierAllTried: false, replays: 3 },
      earlier: { steps: [0, 1, 2], replayed: [1], failed: [2], untried: [0] },
    }),
    'verified: step 3 (coder) is decisive: fixing it flipped the outcome (3 replays used; replayed run runs/r.json); a fix at the later step 7 flipped it too, but step 3 comes first; earlier steps were not all tried: of 3 earlier model calls, 1 tried without a flip, step 0 not tried (the budget ran out; raise --budget to try them), step 2 could not be replayed',
  );
  assert.equal(
    describeVerification({
      ...none(1, 3),
      verified: { ...verified, step: 0, firstFlipped: 0, replays: 1 },
      earlier: { steps: [], replayed: [], failed: [], untried: [] },
    }),
    'verified: step 0 (coder) is decisive: fixing it flipped the outcome (1 replay used; replayed run runs/r.json); no model call comes before it',
  );
  const tried = (steps: number[], untried: number[]): Verification => ({
    verified: null,
    attempts: steps.map((step) => ({
      status: 'replayed',
      search: 'candidate',
      step,
      agent: 'coder',
      flipped: false,
      run: `r${step}.json`,
      calls: { recording: 0, fix: 1, upstream: 0 },
      fix: { text: 'x' },
    })),
    replays: steps.length,
    candidates: 3,
    untried,
  });
  // No flip in the top 3: the ranking goes on while the budget lasts, and says what was not tried.
  assert.equal(
    describeVerification(tried([4, 2, 6, 0, 1, 3], [5, 7])),
    'not verified: no flip in 6 replays (steps 4, 2, 6, 0, 1, 3, the top 3 candidates, then down the ranking); steps 5, 7 not tried (the budget ran out; raise --budget to try them)',
  );
  assert.equal(
    describeVerification(tried([4, 2], [0])),
    'not verified: no flip in 2 replays (steps 4, 2, of the top 3 candidate steps); step 0 not tried (the budget ran out; raise --budget to try them)',
  );
  assert.equal(
    describeVerification(tried([1, 0], [])),
    'not verified: no fix flipped the outcome; every model call was replayed (2 replays used: steps 1, 0)',
  );
});

test('each replay is a line: the step, why it was tried, and whether it flipped', () => {
  const calls = { recording: 0, fix: 1, upstream: 3 };
  assert.equal(
    describeAttempt({
      status: 'replayed',
      search: 'candidate',
      score: 0.9,
      step: 1,
      agent: 'coder',
      flipped: true,
      run: 'r.json',
      calls,
      fix: { text: 'x' },
    }),
    'step 1 (coder, score 0.90): flipped',
  );
  assert.equal(
    describeAttempt({
      status: 'failed',
      search: 'earlier',
      step: 0,
      agent: 'planner',
      error: 'the replay diverged',
    }),
    'step 0 (planner, an earlier step): replay failed: the replay diverged',
  );
});
