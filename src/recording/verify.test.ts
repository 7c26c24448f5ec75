import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Attribution } from '../attribution/method.js';
import { candidateSteps, describeVerification, type Verification } from './verify.js';

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

test('the summary says the verified step and the replays used, or how many candidates failed to flip', () => {
  const none = (replays: number, candidates: number): Verification => ({
    verified: null,
    attempts: [],
    replays,
    candidates,
  });
  assert.equal(
    describeVerification({
      ...none(2, 3),
      verified: { step: 1, agent: 'coder', replays: 2, run: 'runs/r.json', fix: { text: 'x' } },
    }),
    'verified: step 1 (coder) is decisive: fixing it flipped the outcome (2 replays used; replayed run runs/r.json)',
  );
  assert.equal(
    describeVerification(none(3, 3)),
    'not verified: none of 3 candidate steps flipped the outcome (3 replays used)',
  );
  // --budget below --top: only the candidates replayed are said not to flip.
  assert.equal(
    describeVerification(none(1, 3)),
    'not verified: no flip in 1 replay of the top 3 candidate steps (the budget ran out; 2 not tried)',
  );
});
