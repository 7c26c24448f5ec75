/**
 * The task routes in-process: a store with runs of one pricing task (the researcher quotes a stale
 * price in the failing ones), a run without an outcome and a task of its own; the counts, the
 * spectrum's top unit and studied run, and the refusals.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pricingRun } from '../attribution/spectrum/__fixtures__/runs.js';
import { openDatabase, type Db } from '../store/database.js';
import { Repository } from '../store/repository.js';
import { taskOf } from '../trace/task.js';
import type { Trace } from '../trace/model.js';
import type { TaskResponse, TasksResponse } from './api-types.js';
import { createApp } from './app.js';

const HOST = { host: '127.0.0.1:8500' };

/** Failing (f), passing (p) and unknown (u) runs, in the order they are stored. */
const PLAN = 'fpfpfpfu';

describe('task routes', () => {
  let db: Db;
  let app: ReturnType<typeof createApp>;
  let task = '';

  before(async () => {
    db = await openDatabase(':memory:');
    const repository = new Repository(db);
    for (const [index, kind] of [...PLAN].entries()) {
      const run = pricingRun(index, kind === 'f' ? 'researcher' : 'none');
      await repository.runs.save(kind === 'u' ? { ...run, outcome: 'unknown' } : run);
    }
    const other: Trace = {
      ...pricingRun(9, 'none'),
      metadata: { task: 'nightly pricing/eu' },
    };
    await repository.runs.save(other);
    const solo = pricingRun(10, 'researcher');
    await repository.runs.save({ ...solo, metadata: { task: 'solo' } });
    task = taskOf(pricingRun(0, 'none'))!;
    app = createApp({ repository, log: () => undefined, webRoot: '/nonexistent' });
  });
  after(() => db.close());

  const get = async <Body>(path: string) => {
    const response = await app.request(path, { headers: HOST });
    return { status: response.status, body: (await response.json()) as Body };
  };

  it('lists the tasks with their runs counted by outcome', async () => {
    const { status, body } = await get<TasksResponse>('/api/tasks');
    assert.equal(status, 200);
    assert.equal(body.total, 3);
    const pricing = body.tasks.find((entry) => entry.task === task);
    assert.deepEqual(pricing && { ...pricing, latestAt: typeof pricing.latestAt }, {
      task,
      runs: 8,
      failed: 4,
      passed: 3,
      unknown: 1,
      latestAt: 'string',
    });
    assert.equal(body.tasks.find((entry) => entry.task === 'nightly pricing/eu')?.runs, 1);
    const listed = await get<{ runs: { runId: string; task: string | null }[] }>('/api/runs');
    assert.equal(listed.body.runs.find((run) => run.runId === 'run-9')?.task, 'nightly pricing/eu');
  });

  it("answers a task's runs in time order and names the planted error", async () => {
    const { status, body } = await get<TaskResponse>(`/api/tasks/${task}`);
    assert.equal(status, 200);
    assert.deepEqual(
      body.runs.map((run) => run.runId),
      [...PLAN].map((_, index) => `run-${index}`),
    );
    assert.deepEqual([body.total, body.limit], [8, 200]);
    const spectrum = body.spectrum!;
    assert.deepEqual(spectrum.runs, { failing: 4, passing: 3, unknown: 1 });
    const top = spectrum.units[0]!;
    assert.deepEqual([top.agent, top.failingRuns, top.passingRuns], ['Researcher', 4, 0]);
    assert.ok(top.terms.length > 0);
    // The latest failing run is studied; its step 2 (the stale price) is the most suspicious.
    assert.equal(spectrum.failed.runId, 'run-6');
    assert.equal(spectrum.failed.traceId, body.runs[6]!.traceId);
    assert.deepEqual(spectrum.verdict, { agent: 'Researcher', step: 2 });
    assert.equal(spectrum.failed.steps[0]!.unit, top.key);
    assert.equal(spectrum.conclusive, true);
    assert.match(spectrum.notes.join('\n'), /1 run\(s\) without an outcome/);
    assert.equal(spectrum.departures[0]?.agent, 'Researcher');
  });

  it('studies the failed run asked for, and reads only the latest runs asked for', async () => {
    const chosen = await get<TaskResponse>(`/api/tasks/${task}?failed=run-0`);
    assert.equal(chosen.body.spectrum?.failed.runId, 'run-0');
    const latest = await get<TaskResponse>(`/api/tasks/${task}?limit=3`);
    assert.deepEqual(
      latest.body.runs.map((run) => run.runId),
      ['run-5', 'run-6', 'run-7'],
    );
    assert.match(latest.body.spectrum!.notes.join('\n'), /only the latest 3 of the task's 8 runs/);
  });

  it('says why a task without a failed run has no spectrum', async () => {
    const { status, body } = await get<TaskResponse>(
      `/api/tasks/${encodeURIComponent('nightly pricing/eu')}`,
    );
    assert.equal(status, 200);
    assert.equal(body.spectrum, null);
    assert.match(body.unavailable ?? '', /none of the 1 runs read failed/);
  });

  it('says plainly when one failed run cannot conclude', async () => {
    const { body } = await get<TaskResponse>('/api/tasks/solo');
    assert.equal(body.spectrum?.conclusive, false);
    assert.match(body.spectrum?.notes[0] ?? '', /only one run with an outcome/);
  });

  it('refuses unknown tasks and runs, passing runs to study, and bad limits', async () => {
    const refused = async (path: string, status: number, pattern: RegExp) => {
      const answer = await get<{ error: string }>(path);
      assert.equal(answer.status, status, path);
      assert.match(answer.body.error, pattern, path);
    };
    await refused('/api/tasks/no-such-task', 404, /no run of task no-such-task/);
    await refused(`/api/tasks/${task}?failed=run-99`, 404, /not among the 8 latest runs/);
    await refused(`/api/tasks/${task}?failed=run-1`, 400, /did not fail \(its outcome: passed\)/);
    await refused(`/api/tasks/${task}?limit=1`, 400, /invalid limit/);
    await refused(`/api/tasks/${task}?limit=lots`, 400, /invalid limit/);
    await refused(`/api/tasks?offset=-1`, 400, /invalid offset/);
  });

  it('sits behind the host check, as every route does', async () => {
    const response = await app.request('/api/tasks', { headers: { host: 'evil.example:8500' } });
    assert.ok(response.status >= 400 && response.status < 500, String(response.status));
    const other = await app.request(`/api/tasks/${task}`, {
      headers: { host: 'evil.example:8500' },
    });
    assert.ok(other.status >= 400 && other.status < 500, String(other.status));
  });
});
