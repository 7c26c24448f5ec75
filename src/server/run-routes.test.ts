import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { recordTeamRun, startHarness } from '../../test/recording-harness.js';
import type { Trace } from '../trace/model.js';
import type { TraceResponse } from './api-types.js';
import { createApp } from './app.js';
import { openDatabase } from '../store/database.js';
import { Repository } from '../store/repository.js';
import { RunStore } from '../store/runs.js';
import { buildTrace } from '../trace/build-trace.js';
import { JobPool } from './job-pool.js';
import { runRoutes } from './run-routes.js';
import { analysisRoutes } from './analysis-routes.js';
import { failedRunMethod } from '../recording/replay/outcome.js';

/** A run of one task: the coder writes `code`, the reviewer approves what it printed. */
const teamRun = (
  id: string,
  code: string,
  printed: string,
  outcome: 'success' | 'unknown' = 'unknown',
) =>
  buildTrace({
    id,
    format: 'proxy',
    question: 'What is 17 * 23 + 5?',
    outcome,
    steps: [
      { speaker: 'planner', content: 'Multiply 17 by 23, then add 5.' },
      { speaker: 'coder', content: `run_code({"code":"${code}"})` },
      { speaker: 'run_code', role: 'tool', content: printed },
      { speaker: 'reviewer', content: `Approved. FINAL ANSWER: ${printed}` },
    ],
  });

async function setUp() {
  const db = await openDatabase(':memory:');
  const runs = new RunStore(db);
  await runs.save(teamRun('team-7', '17 * 23 + 6', '397'));
  const repository = new Repository(db);
  return {
    db,
    runs,
    repository,
    app: runRoutes(repository, new JobPool({ repository, log: () => undefined })),
  };
}

const post = (body: unknown) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

test('POST /:id/outcome marks a run failed and attributes it at once', async () => {
  const { db, runs, app } = await setUp();
  const response = await app.request('/team-7/outcome', post({ outcome: 'failed' }));
  assert.equal(response.status, 200);
  const body = (await response.json()) as {
    run: { outcome: string };
    analysis: { result: { agent: string | null } } | null;
  };
  assert.equal(body.run.outcome, 'failure');
  assert.ok(body.analysis, 'a failed run is attributed');
  assert.ok(['planner', 'coder', 'reviewer'].includes(body.analysis.result.agent ?? ''));
  assert.equal((await runs.trace('team-7'))!.outcome, 'failure');
  await db.close();
});

test('a failed run whose task has a passing run in the store gets the combined verdict', async () => {
  const { db, runs, repository, app } = await setUp();
  await runs.save(teamRun('team-8a', '17 * 23 + 5', '396', 'success'));
  await runs.save(teamRun('team-8b', '17 * 23 + 5', '396', 'success'));
  await runs.save(teamRun('team-8c', '17 * 23 + 6', '397', 'unknown'));
  await app.request('/team-8c/outcome', post({ outcome: 'failed' }));
  const response = await app.request('/team-7/outcome', post({ outcome: 'failed' }));
  const { analysis } = (await response.json()) as {
    analysis: { method: string; result: { step: number; reason: string; spectrum?: unknown } };
  };
  assert.equal(analysis.method, 'combined');
  assert.ok(analysis.result.spectrum, 'the spectrum of the task is part of the verdict');
  assert.match(analysis.result.reason, /in 2 of 2 failing runs and 0 of 2 passing/);
  assert.equal(analysis.result.step, 1, "the coder's call that the passing runs do not make");
  // A task's runs are read newest first, as many as fit the step budget (two runs of four here;
  // the ids sort as they were saved, so runs saved in one millisecond keep that order).
  const budgeted = await failedRunMethod(repository, (await runs.get('team-7'))!, {
    runs: 50,
    steps: 11,
  });
  assert.deepEqual(
    budgeted.runs?.map((trace) => trace.id),
    ['team-8b', 'team-8c'],
  );
  // Asked for by name, combined and spectrum read the task's runs from the store too; a trace
  // that is no recorded run has none, and the answer says so.
  const analyses = analysisRoutes(repository, {
    jobs: new JobPool({ repository, log: () => undefined }),
  });
  const { traceId } = (await runs.get('team-7'))!;
  for (const method of ['combined', 'spectrum']) {
    const asked = await analyses.request(`/traces/${traceId}/analyses`, post({ method }));
    assert.equal(asked.status, 201, method);
    const answer = (await asked.json()) as {
      analysis: { method: string; result: { step: number } };
    };
    assert.deepEqual([answer.analysis.method, answer.analysis.result.step], [method, 1]);
  }
  const { id: uploaded } = await repository.saveTrace(teamRun('upload', '1', '1'), 'up.json');
  const refused = await analyses.request(
    `/traces/${uploaded}/analyses`,
    post({ method: 'spectrum' }),
  );
  assert.equal(refused.status, 400);
  assert.match(await refused.text(), /other runs of its task/);
  await db.close();
});

test('passed runs are not attributed; unknown runs and outcomes are refused', async () => {
  const { db, app } = await setUp();
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
  await db.close();
});

test('a run recorded through the proxy (agents A, B, A) is on the page, and can be marked failed there', async () => {
  const harness = await startHarness();
  try {
    await recordTeamRun(harness, 'page-run');
    await harness.recorder.close();
    const app = createApp({ repository: new Repository(harness.db), webRoot: harness.home });
    const { traceId } = (await harness.runs.get('page-run'))!;
    const read = async (id: string) =>
      (await (await app.request(`/api/traces/${id}`)).json()) as TraceResponse;
    const page = await read(traceId);
    assert.deepEqual(
      page.trace.steps.map((step) => step.agent),
      ['A', 'B', 'A'],
    );
    // The trace says which recorded run it is (the page offers its task's methods by it), found by
    // its trace id alone; an uploaded trace is none.
    assert.equal(page.run?.runId, 'page-run');
    assert.equal(page.run?.outcome, 'unknown');
    assert.ok(page.run?.task, 'the run has a task');
    assert.equal(page.run?.taskRuns, 1, 'the only run of its task');
    assert.notEqual(traceId, 'page-run');
    assert.equal(await harness.runs.ofTrace('page-run'), undefined);
    const repository = new Repository(harness.db);
    const { id: uploaded } = await repository.saveTrace(
      { ...page.trace, steps: page.trace.steps.slice(0, 2) },
      'up.json',
    );
    assert.equal((await read(uploaded)).run, undefined);
    const marked = await app.request('/api/runs/page-run/outcome', post({ outcome: 'failed' }));
    assert.equal(marked.status, 200);
    assert.equal((await read(traceId)).run?.outcome, 'failure');
    const { analysis } = (await marked.json()) as { analysis: { result: { agent: string } } };
    assert.ok(['A', 'B'].includes(analysis.result.agent));
    const file = JSON.parse(
      readFileSync(join(harness.runsFolder, 'page-run.json'), 'utf8'),
    ) as Trace;
    assert.equal(file.outcome, 'failure', 'the run file says so too');
    // The page's guard applies: another site's page cannot mark runs.
    const crossSite = await app.request('/api/runs/page-run/outcome', {
      ...post({ outcome: 'passed' }),
      headers: {
        'content-type': 'application/json',
        origin: 'https://evil.example',
        host: '127.0.0.1',
      },
    });
    assert.equal(crossSite.status, 403);
  } finally {
    await harness.close();
  }
});
