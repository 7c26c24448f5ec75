import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FIXTURES } from '../../test/paths.js';
import { scriptedModel } from '../../test/scripted-model.js';
import {
  attributeWithModel,
  loadOfflineModel,
} from '../attribution/offline/attribute/attributor.js';
import { buildTrace } from '../trace/build-trace.js';
import { loadTraces } from '../trace/load.js';
import { summariseModes, type ModePrediction } from './mode-metrics.js';
import { evaluateModes } from './modes.js';
import { runEvaluation } from './run-eval.js';
import { ResultStore } from './result-store.js';

describe('failure-mode figures', () => {
  it('computes per-mode precision, recall and F1, micro- and macro-F1', () => {
    const items: ModePrediction[] = [
      { predicted: ['1.3', '2.6'], labelled: ['1.3'] },
      { predicted: ['1.3'], labelled: ['1.3', '3.3'] },
      { predicted: [], labelled: [] },
    ];
    const summary = summariseModes('m', items);
    // 2 hits, 1 false positive (2.6), 1 miss (3.3): micro-F1 = 4 / (4 + 1 + 1).
    assert.equal(summary.micro.value, 4 / 6);
    const byCode = new Map(summary.perMode.map((score) => [score.code, score]));
    assert.equal(byCode.get('1.3')!.f1, 1);
    assert.equal(byCode.get('2.6')!.precision, 0);
    assert.equal(byCode.get('3.3')!.recall, 0);
    // Macro averages the modes some run is labelled with (1.3 and 3.3), not 2.6.
    assert.equal(summary.macro.value, 0.5);
    assert.ok(
      summary.micro.low <= summary.micro.value && summary.micro.value <= summary.micro.high,
    );
    assert.equal(summary.pairs, undefined);
  });

  it('scores (agent, mode) pairs only on runs that label faults per agent', () => {
    const summary = summariseModes('m', [
      {
        predicted: ['1.3'],
        labelled: ['1.3'],
        predictedPairs: ['coder|1.3'],
        labelledPairs: ['coder|1.3', 'planner|2.6'],
      },
      { predicted: ['1.3'], labelled: ['1.3'] },
    ]);
    assert.equal(summary.pairs?.value, 2 / 3);
    assert.equal(summary.pairs?.n, 1);
  });

  it('is absent when no run is labelled with modes', () => {
    const trace = buildTrace({
      id: 'a',
      format: 'test',
      steps: [{ speaker: 'coder', content: 'x' }],
      labels: { agent: 'coder' },
    });
    assert.equal(evaluateModes([trace], { methods: ['offline'], folds: 5, seed: 0 }), undefined);
  });

  it("scores an LLM method's modes from its records, also on runs labelled with modes only", async () => {
    const steps = [
      { speaker: 'user', content: 'Add 2 and 2.' },
      { speaker: 'Coder', content: 'It is 5.' },
      { speaker: 'Checker', content: 'Looks right. TERMINATE' },
    ];
    const withAgent = buildTrace({
      id: 'a',
      format: 'test',
      steps,
      labels: { agent: 'Coder', agents: ['Coder'], faults: [{ agent: 'Coder', mode: '2.6' }] },
    });
    const modesOnly = buildTrace({
      id: 'b',
      format: 'test',
      steps: [...steps, { speaker: 'Coder', content: 'Again: 5.' }],
      labels: { modes: ['1.3', '3.3'] },
    });
    const client = scriptedModel([
      '{"agent": "Coder", "step": 1, "reason": "wrong sum", "modes": ["2.6"]}',
      '{"agent": "Checker", "step": 2, "reason": "approved it", "modes": ["3.3"]}',
    ]);
    const folder = await mkdtemp(join(tmpdir(), 'faultline-modes-'));
    const store = new ResultStore(join(folder, 'results.jsonl'));
    const { records } = await runEvaluation([withAgent, modesOnly], store, {
      methods: ['all-at-once'],
      groundTruthSettings: [true],
      llm: { client, model: 'openai:scripted' },
    });
    assert.equal(records.length, 2, 'the mode-only run is evaluated too');
    const summary = evaluateModes([withAgent, modesOnly], {
      methods: ['all-at-once'],
      folds: 5,
      seed: 0,
      records,
    })!;
    const row = summary.rows.find((item) => item.method.startsWith('all-at-once'))!;
    // Predicted 2.6 and 3.3 against labels 2.6 and 1.3 + 3.3: two hits, one miss.
    assert.equal(row.micro.value, 4 / 5);
    assert.equal(row.pairs?.value, 1, 'Coder with 2.6, as labelled');
    assert.ok(summary.rows.some((item) => item.method.startsWith('k most frequent modes')));
    await rm(folder, { recursive: true, force: true });
  });

  it('pairs each agent with its own modes when the model has the per-agent classifier', async () => {
    const [trace] = await loadTraces(join(FIXTURES, 'formats/aegis-release.json'));
    const result = attributeWithModel(trace!, loadOfflineModel());
    assert.ok(result.agentModes, 'the shipped model names modes per agent');
    const summary = evaluateModes([trace!], {
      methods: ['offline'],
      folds: 5,
      seed: 0,
      includeTrain: true,
    })!;
    const offline = summary.rows.find((row) => row.method === 'offline')!;
    assert.equal(offline.pairs?.n, 1);
    const predicted = result.agentModes.flatMap((entry) =>
      entry.modes.map((mode) => `${entry.agent}|${mode.code}`),
    );
    const labelled = trace!.labels!.faults!.map((fault) => `${fault.agent}|${fault.mode}`);
    const hits = predicted.filter((item) =>
      labelled.some((label) => label.toLowerCase() === item.toLowerCase()),
    ).length;
    const expected = hits === 0 ? 0 : (2 * hits) / (predicted.length + labelled.length);
    assert.ok(Math.abs(offline.pairs.value - expected) < 1e-9);
  });
});
