import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openDatabase } from '../store/database.js';
import { Repository } from '../store/repository.js';
import { RunStore } from '../store/runs.js';
import { buildTrace } from '../trace/build-trace.js';
import { runRoutes } from './run-routes.js';

function setUp() {
  const db = openDatabase(':memory:');
  const runs = new RunStore(db);
  runs.save(
    buildTrace({
      id: 'team-7',
      format: 'proxy',
      question: 'What is 17 * 23 + 5?',
      steps: [
        { speaker: 'planner', content: 'Multiply 17 by 23, then add 5.' },
        { speaker: 'coder', content: 'run_code({"code":"17 * 23 + 6"})' },
        { speaker: 'run_code', role: 'tool', content: '397' },
        { speaker: 'reviewer', content: 'Approved. FINAL ANSWER: 397' },
      ],
    }),
  );
  return { db, runs, app: runRoutes(new Repository(db)) };
}

const post = (body: unknown) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

test('POST /:id/outcome marks a run failed and attributes it at once', async () => {
  const { db, runs, app } = setUp();
  const response = await app.request('/team-7/outcome', post({ outcome: 'failed' }));
  assert.equal(response.status, 200);
  const body = (await response.json()) as {
    run: { outcome: string };
    analysis: { result: { agent: string | null } } | null;
  };
  assert.equal(body.run.outcome, 'failure');
  assert.ok(body.analysis, 'a failed run is attributed');
  assert.ok(['planner', 'coder', 'reviewer'].includes(body.analysis.result.agent ?? ''));
  assert.equal(runs.trace('team-7')!.outcome, 'failure');
  db.close();
});

test('passed runs are not attributed; unknown runs and outcomes are refused', async () => {
  const { db, app } = setUp();
  const passed = (await (
    await app.request('/team-7/outcome', post({ outcome: 'passed' }))
  ).json()) as {
    run: { outcome: string };
    analysis: unknown;
  };
  assert.deepEqual([passed.run.outcome, passed.analysis], ['success', null]);
  assert.equal((await app.request('/nope/outcome', post({ outcome: 'failed' }))).status, 404);
  const bad = await app.request('/team-7/outcome', post({ outcome: 'meh' }));
  assert.equal(bad.status, 400);
  assert.equal((await app.request('/team-7/outcome', post({}))).status, 400);
  const listed = (await (await app.request('/')).json()) as { runs: { runId: string }[] };
  assert.deepEqual(
    listed.runs.map((run) => run.runId),
    ['team-7'],
  );
  db.close();
});
