/** The job pool: imports and analyses in a worker thread, errors as HTTP answers, the bound. */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { HTTPException } from 'hono/http-exception';
import { ROOT } from '../../test/paths.js';
import { openDatabase, type Db } from '../store/database.js';
import { Repository } from '../store/repository.js';
import { JobPool } from './job-pool.js';

describe('job pool', () => {
  let folder = '';
  let db: Db;
  let pool: JobPool;
  let example: Uint8Array;
  const logged: string[] = [];

  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'faultline-jobs-'));
    const databaseFile = join(folder, 'faultline.db');
    db = await openDatabase(databaseFile);
    pool = new JobPool({
      databaseFile,
      repository: new Repository(db),
      workers: 1,
      maxPending: 2,
      log: (line) => logged.push(line),
    });
    example = await readFile(join(ROOT, 'examples/who-and-when-hc-6.json'));
  });
  after(async () => {
    await pool.close();
    await db.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('imports and analyses in a worker, writing to the same database', async () => {
    const uploaded = await pool.run<'import'>({
      kind: 'import',
      bytes: new Uint8Array(example),
      name: 'hc-6.json',
    });
    const id = uploaded.traces[0]!.id;
    assert.equal(uploaded.traces[0]!.steps, 8);
    assert.ok(await new Repository(db).getTrace(id), 'stored by the worker, read here');
    const analysed = await pool.run<'analyse'>({
      kind: 'analyse',
      traceId: id,
      request: { method: 'offline', useGroundTruth: true, environmentKey: true },
    });
    assert.equal(analysed.analysis.traceId, id);
    assert.ok(analysed.analysis.result.agent);
    assert.equal(
      (await new Repository(db).getAnalysis(analysed.analysis.id))?.id,
      analysed.analysis.id,
    );
  });

  it("answers a job's errors as the routes would: status and message", async () => {
    const missing = await pool
      .run<'analyse'>({
        kind: 'analyse',
        traceId: 'nope',
        request: { method: 'offline', useGroundTruth: true, environmentKey: true },
      })
      .catch((error: unknown) => error);
    assert.ok(missing instanceof HTTPException);
    assert.equal(missing.status, 404);
    const broken = await pool
      .run<'import'>({
        kind: 'import',
        bytes: new TextEncoder().encode('{"history": ['),
        name: 'broken.json',
      })
      .catch((error: unknown) => error);
    assert.ok(broken instanceof HTTPException);
    assert.equal(broken.status, 400);
    assert.match(broken.message, /broken\.json: the JSON ends too early/);
  });

  it('refuses a job at once with 503 and Retry-After when full', async () => {
    const job = () =>
      pool.run<'import'>({ kind: 'import', bytes: new Uint8Array(example), name: 'again.json' });
    const results = await Promise.allSettled([job(), job(), job()]);
    assert.deepEqual(
      results.map((result) => result.status),
      ['fulfilled', 'fulfilled', 'rejected'],
    );
    const refusal = (results[2] as PromiseRejectedResult).reason as HTTPException;
    const response = refusal.getResponse();
    assert.equal(response.status, 503);
    assert.equal(response.headers.get('retry-after'), '1');
    assert.match(((await response.json()) as { error: string }).error, /busy/);
    assert.equal(pool.inFlight, 0);
  });
});

describe('job pool whose worker cannot start', () => {
  it('fails the job, waits longer before each new start, and never runs the job on this thread', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'faultline-jobs-broken-'));
    const db = await openDatabase(':memory:');
    const logged: string[] = [];
    // A folder where the database file should be: every worker dies opening it.
    const pool = new JobPool({
      databaseFile: folder,
      repository: new Repository(db),
      workers: 1,
      log: (line) => logged.push(line),
    });
    try {
      const job = () =>
        pool.run<'analyse'>({
          kind: 'analyse',
          traceId: 'x',
          request: { method: 'offline', useGroundTruth: true, environmentKey: true },
        });
      const first = await job().catch((error: unknown) => error);
      assert.ok(first instanceof HTTPException);
      assert.ok([500, 503].includes(first.status), `status ${first.status}`);
      for (let tries = 0; !logged.some((line) => /next starts in/.test(line)); tries += 1) {
        assert.ok(tries < 200, 'the restart is logged with its wait');
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      const later = await job().catch((error: unknown) => error);
      assert.ok(later instanceof HTTPException);
      assert.ok([500, 503].includes(later.status));
    } finally {
      await pool.close();
      await db.close();
      await rm(folder, { recursive: true, force: true });
    }
  });
});

describe('job pool under a job that runs long', () => {
  it('answers a job past its deadline with an error naming it, and serves the next upload meanwhile', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'faultline-jobs-deadline-'));
    const databaseFile = join(folder, 'faultline.db');
    const db = await openDatabase(databaseFile);
    const logged: string[] = [];
    const pool = new JobPool({
      databaseFile,
      repository: new Repository(db),
      workers: 1,
      jobDeadlineMs: 300,
      spareAfterMs: 0,
      log: (line) => logged.push(line),
    });
    const example = new Uint8Array(await readFile(join(ROOT, 'examples/who-and-when-hc-6.json')));
    const upload = (name: string, bytes = example) =>
      pool.run<'import'>({ kind: 'import', bytes: new Uint8Array(bytes), name });
    // Hundreds of thousands of steps: far past 300 ms to read and store on any machine.
    const history = Array.from({ length: 400_000 }, (_, index) => ({
      name: `agent${index % 7}`,
      content: `step ${index} of a long run`,
    }));
    const long = new TextEncoder().encode(JSON.stringify({ question: 'q', history }));
    try {
      await upload('warm-up.json'); // a worker's start does not count against a job
      const stalled = upload('long.json', long).catch((error: unknown) => error);
      const next = await upload('next.json');
      assert.equal(next.traces[0]!.steps, 8, 'the next upload is served beside the long one');
      const error = await stalled;
      assert.ok(error instanceof HTTPException);
      assert.equal(error.status, 422);
      assert.match(error.message, /^the upload long\.json was stopped after 0\.3 s/);
      assert.ok(logged.some((line) => line.includes('long.json')));
      const after = await upload('after.json');
      assert.equal(after.traces[0]!.steps, 8, 'a new worker takes the stopped one’s place');
    } finally {
      await pool.close();
      await db.close();
      await rm(folder, { recursive: true, force: true });
    }
  });
});
