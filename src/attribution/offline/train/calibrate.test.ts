/** The agent confidence of unfamiliar runs: the held-out systems' mean hit rate, with its spread. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyPlatt } from '../scores/calibration.js';
import { unseenSystemsAgent, type Judged } from './calibrate.js';

/** `runs` judged runs of `system`, the first `right` of them right. */
function judgedRuns(
  system: string,
  runs: number,
  right: number,
  shape: { single?: boolean; familiar?: boolean } = {},
): Judged['agent'] {
  return Array.from({ length: runs }, (_, index) => ({
    confidence: 0.4,
    correct: index < right,
    single: shape.single ?? true,
    familiar: shape.familiar ?? false,
    system,
    clear: false,
    signals: [],
  }));
}

describe('unseenSystemsAgent', () => {
  it('states the mean of the systems’ hit rates, each system counting once', () => {
    const judged = [
      ...judgedRuns('small', 20, 10),
      // Several responsible agents, and found familiar: still a run of a system never seen.
      ...judgedRuns('large', 200, 180, { single: false, familiar: true }),
      // Too few runs for a rate of its own.
      ...judgedRuns('tiny', 5, 0),
    ];
    const unseen = unseenSystemsAgent(judged)!;
    assert.equal(unseen.agent.a, 0, 'one rate, whatever the score');
    assert.ok(Math.abs(applyPlatt(0.1, unseen.agent) - 0.7) < 1e-5);
    assert.deepEqual(unseen.agentRange, [0.5, 0.9]);
  });

  it('pools the runs without a spread when no system has ten, and states nothing without runs', () => {
    const unseen = unseenSystemsAgent([...judgedRuns('a', 4, 3), ...judgedRuns('b', 4, 1)])!;
    assert.ok(Math.abs(applyPlatt(0.9, unseen.agent) - 0.5) < 1e-5);
    assert.equal(unseen.agentRange, undefined);
    assert.equal(unseenSystemsAgent([]), undefined);
  });
});
