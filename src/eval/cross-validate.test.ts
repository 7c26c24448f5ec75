/** Cross-validation under fold plans: grouped by question, or one fold per system. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../../test/paths.js';
import { loadTrace } from '../trace/load.js';
import { crossValidationRecords } from './cross-validate.js';
import { assignFoldsFor, systemsOf } from '../attribution/offline/train/folds.js';

describe('fold plans', () => {
  it('leaves each system out in turn, predicting it with a model of the others', async () => {
    const traces = [
      await loadTrace(join(ROOT, 'examples/who-and-when-ag-58.json')),
      await loadTrace(join(ROOT, 'examples/who-and-when-hc-6.json')),
    ];
    assert.deepEqual(systemsOf(traces), ['Algorithm-Generated', 'Hand-Crafted']);
    const plan = { by: 'system' as const, folds: 5, seeds: [0, 1, 2] };
    assert.deepEqual(assignFoldsFor(traces, plan, 0), [0, 1]);
    const records = crossValidationRecords(traces, { plan });
    assert.equal(records.length, 2, 'one pass: there is nothing to reshuffle');
    assert.ok(records.every((record) => record.method === 'offline-loso'));
    assert.throws(
      () => assignFoldsFor(traces.slice(0, 1), plan, 0),
      /needs runs of at least two systems; found only Algorithm-Generated/,
    );
  });
});
