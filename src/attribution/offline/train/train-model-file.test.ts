/** Training the model file: it reproduces the shipped model, and learns from agent-only labels. */
import assert from 'node:assert/strict';
import { loadBatch } from '../../../trace/load.js';
import type { Trace } from '../../../trace/model.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  AEGIS,
  FIXTURES,
  HAS_SHARED_DATA,
  MAD_MAST,
  ROOT,
  WHO_AND_WHEN,
} from '../../../../test/paths.js';
import {
  attributeWithModel,
  DEFAULT_MODEL_PATH,
  loadOfflineModel,
} from '../attribute/attributor.js';
import { type OfflineModel } from '../model/model-file.js';
import { trainScorers } from './scorers.js';
import { trainModelFile } from './train-model-file.js';

async function loadAll(path: string): Promise<Trace[]> {
  const traces: Trace[] = [];
  for await (const result of loadBatch([path])) if (result.ok) traces.push(...result.traces);
  return traces;
}

describe(
  'training',
  { skip: HAS_SHARED_DATA ? false : `shared data not found at ${WHO_AND_WHEN}` },
  () => {
    it('reproduces the shipped model from the shared Who&When and AEGIS runs', async () => {
      const aegis = await loadAll(AEGIS);
      const traces = [...(await loadAll(WHO_AND_WHEN)), ...aegis];
      const shipped = JSON.parse(readFileSync(DEFAULT_MODEL_PATH, 'utf8'));
      const trained = JSON.parse(
        JSON.stringify(
          trainModelFile(traces, {
            data: shipped.training.data,
            modes: {
              runs: [...(await loadAll(MAD_MAST)), ...aegis],
              data: shipped.modes.training.data,
            },
          }),
        ),
      );
      assert.deepEqual(
        trained,
        shipped,
        `retrain with: faultline train --data ../shared/datasets/who-and-when ../shared/datasets/aegis --modes-data ../shared/datasets/mad-mast ../shared/datasets/aegis --out ${DEFAULT_MODEL_PATH.replace(ROOT, '')}`,
      );
    });
  },
);

describe('training on agent-only labels', () => {
  it('learns the agent scorer from runs without step labels, and steps only from labelled ones', async () => {
    const withSteps = [
      ...(await loadAll(join(ROOT, 'examples/who-and-when-ag-58.json'))),
      ...(await loadAll(join(ROOT, 'examples/who-and-when-hc-6.json'))),
    ];
    const agentOnly = await loadAll(join(FIXTURES, 'formats/aegis-flat.jsonl'));
    assert.ok(agentOnly.every((trace) => trace.labels?.step === undefined));
    const stepOnly = trainScorers(withSteps);
    const both = trainScorers([...withSteps, ...agentOnly]);
    assert.equal(both.training.traces, withSteps.length + agentOnly.length);
    assert.deepEqual(both.step.weights, stepOnly.step.weights, 'no step labels, no step change');
    assert.notDeepEqual(both.agent.weights, stepOnly.agent.weights);
    // Either responsible agent counts: the run with two is used, not dropped.
    const result = attributeWithModel(agentOnly[0]!, both);
    assert.ok(result.agent !== null && result.step !== null);
  });

  it('decodes with the earliest-step rule only runs like the step-labelled ones', async () => {
    const withSteps = await loadAll(join(ROOT, 'examples'));
    const agentOnly = await loadAll(join(FIXTURES, 'formats/aegis-flat.jsonl'));
    assert.equal(trainScorers(withSteps).stepFamiliarity, undefined, 'all labelled: absent');
    assert.equal(trainScorers(agentOnly).stepFamiliarity, null, 'none labelled: null');
    const both = trainScorers([...withSteps, ...agentOnly]);
    assert.ok(both.stepFamiliarity, 'some labelled: their own profile');
    assert.equal(both.stepFamiliarity.threshold, trainScorers(withSteps).familiarity.threshold);
    // A familiar run unlike the step-labelled training runs is decoded like an unfamiliar one: its
    // top step is named, not the earliest nearly as likely one.
    const shipped = loadOfflineModel();
    const eager = {
      ...shipped,
      decoding: { ...shipped.decoding, earliestShare: 0.01, unfamiliarStep: 'likeliest' as const },
    };
    const run = (await loadAll(join(ROOT, 'examples/who-and-when-ag-58.json')))[0]!;
    const named = (model: OfflineModel) => attributeWithModel(run, model);
    assert.equal(named(eager).familiar, true);
    assert.equal(named(eager).step, 0, 'the earliest-step rule');
    const { systems: _, ...pooled } = eager.familiarity;
    const unlike = { ...pooled, threshold: -1 };
    for (const stepFamiliarity of [null, unlike]) {
      const result = named({ ...eager, stepFamiliarity });
      assert.equal(result.familiar, true);
      assert.equal(result.step, 1, 'the top step');
    }
  });
});
