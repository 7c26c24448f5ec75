import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildTrace } from '../trace/build-trace.js';
import { evaluateModes, summariseModes, type ModePrediction } from './modes.js';

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
});
