import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTrace } from '../trace/build-trace.js';
import type { Trace } from '../trace/model.js';
import { openDatabase } from './database.js';
import { Repository } from './repository.js';
import { RunStore } from './runs.js';
import { taskOf } from '../trace/task.js';
import { tracesOfTask } from './task-runs.js';

const run = (steps: string[], outcome: Trace['outcome'] = 'unknown') =>
  buildTrace({
    id: 'run-1',
    format: 'proxy',
    outcome,
    steps: steps.map((content, index) => ({ speaker: index % 2 ? 'B' : 'A', content })),
  });

test('a growing run is rewritten in place under its run id, and is a trace like any other', async () => {
  const db = await openDatabase(':memory:');
  const runs = new RunStore(db);
  const first = await runs.save(run(['one']), { file: '/tmp/run-1.json' });
  const second = await runs.save(run(['one', 'two']));
  assert.equal(second.traceId, first.traceId);
  assert.equal(second.steps, 2);
  assert.equal(second.file, '/tmp/run-1.json', 'the file is kept when not given again');
  const repository = new Repository(db);
  assert.deepEqual(
    (await repository.getTrace(first.traceId))!.steps.map((step) => step.content),
    ['one', 'two'],
  );
  assert.equal((await runs.get(first.traceId))?.runId, 'run-1', 'found by trace id too');
  await db.close();
});

test('an outcome set meanwhile survives the proxy rewriting the run', async () => {
  const db = await openDatabase(':memory:');
  const runs = new RunStore(db);
  await runs.save(run(['one']));
  assert.equal((await runs.setOutcome('run-1', 'failure'))?.outcome, 'failure');
  assert.equal((await runs.trace('run-1'))!.outcome, 'failure');
  const rewritten = await runs.save(run(['one', 'two']));
  assert.equal(rewritten.outcome, 'failure');
  assert.equal((await runs.trace('run-1'))!.outcome, 'failure');
  // A run that states its own outcome (a replay judged by its check) sets it.
  assert.equal((await runs.save(run(['one', 'two'], 'success'))).outcome, 'success');
  assert.equal(await runs.setOutcome('no-such-run', 'failure'), undefined);
  assert.deepEqual(
    (await runs.list()).items.map((record) => record.runId),
    ['run-1'],
  );
  await db.close();
});

test('runs are kept with their task, declared or fingerprinted, and found by it', async () => {
  const db = await openDatabase(':memory:');
  try {
    const runs = new RunStore(db);
    const run = (id: string, question: string, metadata: Record<string, unknown> = {}): Trace =>
      buildTrace({
        id,
        format: 'proxy',
        question,
        outcome: 'failure',
        steps: [{ speaker: 'Agent', content: `answer to ${question}` }],
        metadata,
      });
    await runs.save(run('a', 'Price 3 widgets'));
    await runs.save(run('b', 'Price 3  widgets'));
    await runs.save(run('c', 'Price a gadget'));
    await runs.save(run('d', 'anything', { task: 'nightly' }));
    const fingerprint = taskOf(run('x', 'Price 3 widgets'))!;
    assert.deepEqual(
      (await tracesOfTask(db, fingerprint)).map((trace) => trace.id),
      ['a', 'b'],
    );
    assert.deepEqual(
      (await tracesOfTask(db, 'nightly')).map((trace) => trace.id),
      ['d'],
    );
  } finally {
    await db.close();
  }
});
