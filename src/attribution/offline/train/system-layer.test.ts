import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildTrace } from '../../../trace/build-trace.js';
import { traceHash } from '../../../trace/hash.js';
import type { Trace } from '../../../trace/model.js';
import { loadOfflineModel } from '../attribute/attributor.js';
import {
  ADAPTATION_CHOICES,
  applyAgentPrior,
  priorRate,
  type SystemLayer,
} from '../scores/agent-prior.js';
import { predictOffline } from '../scores/predict.js';
import {
  adaptModel,
  chooseSystemLayer,
  fitSystemLayer,
  learnAgentPrior,
  PRIOR_WEIGHTS,
} from './system-layer.js';

/** A run of the planner, the coder and the reviewer, with `blamed` responsible. */
function run(id: string, blamed: string[], coder = 'Coder'): Trace {
  return buildTrace({
    id,
    format: 'test',
    question: 'What is 17 * 23 + 5?',
    steps: [
      { speaker: 'user', content: 'What is 17 * 23 + 5?' },
      { speaker: 'planner', content: 'Plan: multiply 17 by 23, then add 5.' },
      { speaker: coder, content: 'The result is 17 * 23 + 5 = 396.' },
      { speaker: 'reviewer', content: 'Approved: 396 is the answer.' },
    ],
    labels: blamed.length > 1 ? { agent: blamed[0]!, agents: blamed } : { agent: blamed[0]! },
  });
}

describe('the agent-name prior', () => {
  it('rates each agent over the runs it took part in, smoothed, names differing in case one agent', () => {
    const prior = learnAgentPrior(
      [run('1', ['coder']), run('2', ['Coder'], 'CODER'), run('3', ['planner'])],
      2,
    )!;
    assert.deepEqual(prior.names, ['planner', 'Coder', 'reviewer']);
    // 3 blamed of 9 agent-runs (the user is not on the team): the base rate.
    assert.equal(prior.base, Number((3 / 9).toFixed(6)));
    const rate = (name: string) => priorRate(prior, name);
    assert.equal(rate('coder'), Number(((2 + 2 * (3 / 9)) / (3 + 2)).toFixed(6)));
    assert.ok(rate('coder') > rate('planner') && rate('planner') > rate('reviewer'));
    assert.equal(rate('someone-new'), prior.base, 'a name the labels do not contain gets the base');
  });

  it('counts every responsible agent of a run, and learns nothing from runs without labels', () => {
    const unlabelled = { ...run('u', ['coder']), labels: undefined };
    assert.equal(learnAgentPrior([unlabelled]), undefined);
    const prior = learnAgentPrior([run('m', ['coder', 'reviewer'])], 0)!;
    assert.equal(priorRate(prior, 'reviewer'), 1);
    assert.equal(priorRate(prior, 'planner'), 0);
  });

  it('moves the probabilities by rate over base to the power of the weight, and not at weight 0', () => {
    const layer = (weight: number): SystemLayer => ({
      agentPrior: { names: ['a', 'b'], rates: [0.8, 0.2], base: 0.5 },
      weight,
      runs: 10,
    });
    const agents = [
      { agent: 'b', probability: 0.6 },
      { agent: 'a', probability: 0.3 },
      { agent: 'c', probability: 0.1 },
    ];
    assert.deepEqual(applyAgentPrior(agents, layer(0)), agents);
    const moved = applyAgentPrior(agents, layer(1));
    assert.equal(moved[0]!.agent, 'a', 'the often-blamed agent comes first');
    const total = moved.reduce((sum, entry) => sum + entry.probability, 0);
    assert.ok(Math.abs(total - 1) < 1e-9);
    // c, not in the labels, keeps its odds against the others' unmoved scores: 0.1 · 1.
    const c = moved.find((entry) => entry.agent === 'c')!.probability;
    assert.ok(Math.abs(c - 0.1 / (0.6 * 0.4 + 0.3 * 1.6 + 0.1)) < 1e-9);
  });
});

describe('the system layer', () => {
  const model = loadOfflineModel();

  it('with one labelled run, leaving it out teaches nothing: every weight ties and the middle is taken', () => {
    const layer = fitSystemLayer(model, [run('1', ['coder'])])!;
    assert.equal(layer.weight, PRIOR_WEIGHTS[Math.floor((PRIOR_WEIGHTS.length - 1) / 2)]);
    assert.equal(layer.runs, 1);
  });

  it("names the agent a system's runs blame where the log alone does not", () => {
    const runs = Array.from({ length: 8 }, (_, index) => run(String(index), ['reviewer']));
    const adapted = adaptModel(model, runs, ['my-runs']);
    assert.ok(adapted.system && adapted.system.weight > 0, JSON.stringify(adapted.system));
    const [first] = predictOffline(run('x', ['reviewer']), adapted).agents;
    assert.equal(first!.agent, 'reviewer');
  });

  it('chooses by leaving each run out among the blend, the layer, the record and the shipped model, and says how each did', () => {
    const runs = Array.from({ length: 6 }, (_, index) => run(String(index), ['reviewer']));
    const layer = chooseSystemLayer(model, runs)!;
    assert.ok(layer.choice && layer.heldOut, JSON.stringify(layer));
    assert.equal(layer.heldOut.prior, 1, 'the record names the reviewer of every run left out');
    const best = Math.max(...Object.values(layer.heldOut));
    // Never below the record on the runs it was given; ties in ADAPTATION_CHOICES' order.
    assert.equal(layer.heldOut[layer.choice], best);
    assert.equal(
      layer.choice,
      ADAPTATION_CHOICES.find((choice) => layer.heldOut![choice] === best),
    );
    assert.equal(layer.runs, 6);
  });

  it('records the runs it learned from and drops a layer the model had', () => {
    const runs = [run('1', ['coder']), run('2', ['planner'])];
    const once = adaptModel(model, runs, ['mine']);
    const twice = adaptModel(once, [run('3', ['reviewer'])]);
    assert.deepEqual(once.training.data.slice(-1), ['mine']);
    for (const trace of runs) assert.ok(once.training.traceHashes.includes(traceHash(trace)));
    assert.deepEqual(once.training.traceHashes, [...once.training.traceHashes].sort());
    assert.equal(twice.system!.runs, 1, 'learned from the new runs alone');
    assert.equal(adaptModel(model, [{ ...runs[0]!, labels: undefined }]).system, undefined);
  });
});
