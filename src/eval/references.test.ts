import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { UserError } from '../errors.js';
import { buildTrace, type DraftStep } from '../trace/build-trace.js';
import type { Trace, TraceOutcome } from '../trace/model.js';
import { resolveReferences } from './references.js';
import { ResultStore } from './result-store.js';
import { runEvaluation } from './run-eval.js';

const STEPS: DraftStep[] = [
  { speaker: 'user', content: 'What is 17 * 23 + 5?' },
  { speaker: 'Planner', content: 'Evaluate 17 * 23 + 5 with the calculator.' },
  { speaker: 'Coder', content: 'RESULT: 396' },
];

/** A run of the task; `coder` replaces the coder's reply. */
const run = (
  id: string,
  outcome: TraceOutcome,
  extra: { reference?: string; coder?: string } = {},
): Trace =>
  buildTrace({
    id,
    format: 'test',
    outcome,
    question: 'What is 17 * 23 + 5?',
    steps: extra.coder ? [...STEPS.slice(0, 2), { speaker: 'Coder', content: extra.coder }] : STEPS,
    ...(outcome === 'failure' ? { labels: { agent: 'Coder', step: 2 } } : {}),
    ...(extra.reference ? { reference: extra.reference } : {}),
  });

describe('reference runs', () => {
  it('finds the passing run a run names among those read, never a failed one or itself', () => {
    const clean = run('task-clean', 'success');
    const failed = run('task-plan-1', 'failure', { reference: 'task-clean', coder: 'RESULT: 397' });
    const orphan = run('task-plan-2', 'failure', { reference: 'elsewhere' });
    const toFailed = run('task-plan-3', 'failure', { reference: 'task-plan-1' });
    const references = resolveReferences([failed, orphan, toFailed, clean]);
    assert.equal(references.get(failed), clean);
    assert.equal(references.has(orphan), false);
    assert.equal(references.has(toFailed), false);
    assert.equal(references.size, 1);
  });

  it('scores diverge on the runs that name one, and refuses it where none does', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'faultline-references-'));
    try {
      const store = new ResultStore(join(folder, 'results.jsonl'), { fresh: true });
      const clean = run('task-clean', 'success');
      const failed = run('task-plan-1', 'failure', {
        reference: 'task-clean',
        coder: 'RESULT: 397',
      });
      const alone = run('other-plan-1', 'failure', { coder: 'RESULT: 1' });
      const { records } = await runEvaluation([clean, failed, alone], store, {
        methods: ['diverge'],
        groundTruthSettings: [false],
      });
      assert.deepEqual(
        records.map((record) => [record.method, record.predicted.agent, record.predicted.step]),
        [['diverge', 'Coder', 2]],
      );
      // The same failed run against another passing run is another result, not the stored one.
      const other = { ...clean, steps: clean.steps.slice(0, 2) };
      const again = await runEvaluation([other, failed], store, {
        methods: ['diverge'],
        groundTruthSettings: [false],
      });
      assert.equal(again.records[0]!.predicted.step, 2);
      assert.notEqual(again.records[0]!.settings, records[0]!.settings);
      await assert.rejects(
        runEvaluation([alone], store, { methods: ['diverge'], groundTruthSettings: [false] }),
        (error: unknown) =>
          error instanceof UserError && /names one found among the traces read/.test(error.message),
      );
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
