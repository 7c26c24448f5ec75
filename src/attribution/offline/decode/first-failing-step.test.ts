import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildTrace } from '../../../trace/build-trace.js';
import { FEATURE_NAMES, type FeatureName } from '../features/feature-names.js';
import { firstFailingStep, firstRejectedAgent } from './first-failing-step.js';

const trace = buildTrace({
  id: 't',
  format: 'test',
  steps: ['Planner', 'Coder', 'Runner', 'Coder', 'Runner', 'Coder'].map((speaker) => ({
    speaker,
    content: `${speaker} speaks`,
  })),
});

/** Feature rows that are 0 except the named features of the given steps. */
function rowsWith(set: Record<number, FeatureName[]>): number[][] {
  return trace.steps.map((_, index) =>
    FEATURE_NAMES.map((name) => ((set[index] ?? []).includes(name) ? 1 : 0)),
  );
}

const any = () => true;

describe('first failing step', () => {
  it('names the first of the agent’s steps that what follows rejects', () => {
    const rows = rowsWith({ 1: ['has_code'], 3: ['next_error'], 5: ['next_correction'] });
    assert.deepEqual(firstFailingStep(trace, rows, any, 'Coder'), {
      step: 3,
      why: 'rejected',
      signal: 'next_error',
    });
    const review = rowsWith({ 5: ['next_review_no_progress'] });
    assert.deepEqual(firstFailingStep(trace, review, any, 'Coder'), {
      step: 5,
      why: 'rejected',
      signal: 'next_review_no_progress',
    });
  });

  it('else its first step with a figure new to the run, else its first that acts, else its first that says something, else its first', () => {
    const acting = rowsWith({ 1: ['has_tool_calls'], 3: ['novel_numbers_log'], 5: ['next_empty'] });
    assert.deepEqual(firstFailingStep(trace, acting, any, 'Coder'), {
      step: 3,
      why: 'new-figure',
      signal: 'novel_numbers_log',
    });
    const rejectedLater = rowsWith({ 3: ['novel_numbers_log'], 5: ['next_error'] });
    assert.equal(firstFailingStep(trace, rejectedLater, any, 'Coder').why, 'rejected');
    const noFigure = rowsWith({ 3: ['has_tool_calls'], 5: ['has_code'] });
    assert.deepEqual(firstFailingStep(trace, noFigure, any, 'Coder'), {
      step: 3,
      why: 'acting',
      signal: 'has_tool_calls',
    });
    assert.deepEqual(firstFailingStep(trace, rowsWith({}), any, 'Coder'), {
      step: 1,
      why: 'saying',
    });
    // A short step (a routing turn: "SUGGESTED NEXT SPEAKER: Agent_Code_Executor.") says nothing.
    const routing = rowsWith({ 1: ['short_content'], 3: ['short_content'] });
    assert.deepEqual(firstFailingStep(trace, routing, any, 'Coder'), { step: 5, why: 'saying' });
    const allShort = rowsWith({ 1: ['short_content'], 3: ['short_content'], 5: ['short_content'] });
    assert.deepEqual(firstFailingStep(trace, allShort, any, 'Coder'), { step: 1, why: 'first' });
    // A step that browses reads its figures off the page its own tool opened.
    const browsing = rowsWith({ 1: ['novel_numbers_log', 'web_action'], 3: ['novel_numbers_log'] });
    assert.equal(firstFailingStep(trace, browsing, any, 'Coder').step, 3);
  });

  it('names only candidate steps of the agent', () => {
    const rows = rowsWith({ 1: ['next_error'], 2: ['next_error'] });
    assert.deepEqual(
      firstFailingStep(trace, rows, (step) => step !== 1, 'Coder'),
      { step: 3, why: 'saying' },
    );
    assert.equal(firstFailingStep(trace, rows, any, 'Nobody').step, -1);
  });

  it('names, of the agents nearly as likely as the most likely, the one rejected first', () => {
    const rows = rowsWith({ 0: ['next_error'], 2: ['next_correction'], 3: ['next_error'] });
    const agents = [
      { agent: 'Coder', probability: 0.5 },
      { agent: 'Runner', probability: 0.45 },
      { agent: 'Planner', probability: 0.05 },
    ];
    // The Planner is rejected first of all, but is far less likely than the Coder.
    assert.deepEqual(firstRejectedAgent(trace, rows, any, agents, 0.8), {
      agent: 'Runner',
      failing: { step: 2, why: 'rejected', signal: 'next_correction' },
    });
    assert.deepEqual(firstRejectedAgent(trace, rows, any, agents, 0.95), {
      agent: 'Coder',
      failing: { step: 3, why: 'rejected', signal: 'next_error' },
    });
    assert.equal(firstRejectedAgent(trace, rowsWith({}), any, agents, 0.8), undefined);
  });
});
