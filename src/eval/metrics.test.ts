import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { randomExpectation } from './baselines.js';
import { buildTrace } from '../trace/build-trace.js';
import {
  agentCorrect,
  estimate,
  lenientStepMatch,
  stepCorrect,
  stepWithin,
  summarise,
  type Scored,
} from './metrics.js';

const item = (
  predictedStep: number,
  labelStep: number | undefined,
  predictedAgent = 'A',
  labelAgent = 'A',
): Scored => ({ subset: 's', predictedAgent, predictedStep, labelAgent, labelStep });

describe('metrics', () => {
  it('does not fall into the substring trap', () => {
    assert.equal(stepCorrect(10, 1), false);
    assert.equal(lenientStepMatch(10, 1), true, 'the original rule counts it');
    assert.equal(stepCorrect(1, 1), true);
    const summary = summarise([item(10, 1), item(1, 1)]);
    assert.equal(summary.step.value, 0.5);
    assert.equal(summary.stepLenient.value, 1);
  });

  it('never credits a label outside the trace', () => {
    assert.equal(stepCorrect(3, undefined), false);
    assert.equal(stepWithin(3, undefined, 3), false);
    const trace = buildTrace({
      id: 't',
      format: 'test',
      steps: [
        { speaker: 'A', content: 'x' },
        { speaker: 'B', content: 'y' },
      ],
      labels: { agent: 'A', step: 7 },
    });
    assert.deepEqual(randomExpectation(trace), {
      agent: 0.5,
      step: 0,
      stepWithin1: 0,
      stepWithin3: 0,
      stepLenient: 0,
    });
  });

  it('counts within ±1 and ±3', () => {
    assert.equal(stepWithin(4, 3, 1), true);
    assert.equal(stepWithin(7, 3, 3), false);
  });

  it('computes the random baseline exactly', () => {
    const trace = buildTrace({
      id: 't',
      format: 'test',
      steps: [
        { speaker: 'human', content: 'task' },
        { speaker: 'A', content: 'a' },
        { speaker: 'Computer_terminal', content: 'out' },
        { speaker: 'B', content: 'b' },
        { speaker: 'A', content: 'a2' },
      ],
      labels: { agent: 'B', step: 3 },
    });
    // Candidates are the three agent steps (1, 3, 4) and the two agents among them.
    assert.deepEqual(randomExpectation(trace), {
      agent: 1 / 2,
      step: 1 / 3,
      stepWithin1: 2 / 3,
      stepWithin3: 1,
      stepLenient: 1 / 3,
    });
  });

  it('gives the same bootstrap interval for the same seed', () => {
    const outcomes = Array.from({ length: 50 }, (_, index) => (index % 3 === 0 ? 1 : 0));
    const first = estimate(outcomes, { seed: 7 });
    const second = estimate(outcomes, { seed: 7 });
    assert.deepEqual(first, second);
    assert.ok(first.low < first.value && first.value < first.high);
  });
});

describe('metrics with agent-only and multi-agent labels', () => {
  it('credits any of several responsible agents', () => {
    assert.equal(agentCorrect('B', 'A', ['A', 'B']), true);
    assert.equal(agentCorrect('C', 'A', ['A', 'B']), false);
  });

  it('leaves traces without a step label out of the step measures only', () => {
    const summary = summarise([
      item(1, 1),
      { subset: 's', predictedAgent: 'A', predictedStep: 0, labelAgent: 'A', labelStep: undefined },
    ]);
    assert.equal(summary.agent.n, 2);
    assert.equal(summary.step.n, 1);
    assert.equal(summary.step.value, 1);
  });

  it('averages a trace over fold seeds before bootstrapping', () => {
    const summary = summarise([
      { ...item(1, 1), key: 't1' },
      { ...item(2, 1), key: 't1' },
      { ...item(1, 1), key: 't2' },
    ]);
    assert.equal(summary.step.n, 2);
    assert.equal(summary.step.value, 0.75);
  });
});
