/**
 * The store's essential cases on both databases: SQLite (a temporary file) and PostgreSQL (a
 * server started for this file, test/postgres-server.ts; skipped with the reason where it cannot
 * start). Migrations on an empty database and again on an up-to-date one, traces listed, paged
 * and filtered, analyses, evaluations, recorded runs and their tasks, transactions, and two processes migrating
 * one PostgreSQL database at once.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { promisify } from 'node:util';
import { ROOT } from '../../test/paths.js';
import { databaseLocation } from '../config.js';
import { startPostgres, type PostgresServer } from '../../test/postgres-server.js';
import { buildTrace } from '../trace/build-trace.js';
import { openDatabase, StoreUnavailableError, type Db } from './database.js';
import { Repository } from './repository.js';

const trace = (id: string, agent = 'A') =>
  buildTrace({
    id,
    format: 'test',
    outcome: 'failure',
    steps: [
      { speaker: agent, content: `hello ${id}` },
      { speaker: 'B', content: 'two' },
    ],
  });
const result = (agent: string) => ({
  agent,
  step: 1,
  reason: 'r',
  method: 'offline',
  usage: { calls: 0, inputTokens: 0, outputTokens: 0 },
});

/** The cases, given a way to open a fresh database (the same one each call within a case). */
function storeCases(
  name: string,
  fresh: () => Promise<{ open: () => Promise<Db> } | { skip: string }>,
) {
  describe(`store on ${name}`, () => {
    const each = async (
      context: { skip: (message: string) => void },
      body: (open: () => Promise<Db>) => Promise<void>,
    ) => {
      const database = await fresh();
      if ('skip' in database) {
        context.skip(database.skip);
        return;
      }
      await body(database.open);
    };
    /** `each` with a Repository on a database opened for the body and closed after it. */
    const eachRepository = (
      context: { skip: (message: string) => void },
      body: (repository: Repository, db: Db) => Promise<void>,
    ) =>
      each(context, async (open) => {
        const db = await open();
        try {
          await body(new Repository(db), db);
        } finally {
          await db.close();
        }
      });

    it('migrates an empty database, and opening it again changes nothing', async (context) => {
      await each(context, async (open) => {
        const first = await open();
        const saved = await new Repository(first).saveTrace(trace('t1'), 't1.json');
        await first.close();
        const second = await open();
        assert.equal((await new Repository(second).getTrace(saved.id))?.id, 't1');
        await second.close();
      });
    });

    it('stores, lists, pages and filters traces, with labels and analyses', async (context) => {
      await eachRepository(context, async (repository) => {
        const one = await repository.saveTrace(trace('one', 'Planner'), 'one.json');
        const two = await repository.saveTrace(trace('two', 'Coder'), 'two.json');
        const three = await repository.saveTrace(trace('three'), 'pasted trace');
        assert.equal((await repository.saveTrace(trace('three'), 'three.json')).id, three.id);
        const all = await repository.listHistory();
        assert.equal(all.total, 3);
        assert.deepEqual(all.items.map((item) => item.name).sort(), [
          'one.json',
          'three.json',
          'two.json',
        ]);
        const page = await repository.listHistory({ limit: 2, offset: 2 });
        assert.equal(page.items.length, 1);
        assert.equal(page.total, 3);
        await repository.saveAnalysis(two.id, { method: 'offline' }, result('Coder'), 12.25);
        const byAgent = await repository.listHistory({ query: 'coder' });
        assert.deepEqual(
          byAgent.items.map((item) => [item.name, item.latest?.agent]),
          [['two.json', 'Coder']],
        );
        assert.equal((await repository.listHistory({ query: 'ONE.j' })).items[0]?.id, one.id);
        assert.equal(await repository.hasStep(one.id, 1), true);
        assert.equal(await repository.hasStep(one.id, 2), false);
        assert.equal(await repository.setUserLabel(one.id, { agent: 'Planner', step: 0 }), true);
        assert.deepEqual(await repository.getLabels(one.id), {
          agent: 'Planner',
          step: 0,
          byUser: true,
        });
        assert.deepEqual(
          JSON.parse((await repository.getTraceJson(one.id))!),
          await repository.getTrace(one.id),
        );
        assert.equal((await repository.listHistory({ query: 'planner' })).total, 1);
        assert.deepEqual(
          (await repository.labelledTraces()).map((labelled) => labelled.id),
          ['one'],
        );
        assert.equal(await repository.deleteTrace(two.id), true);
        assert.equal((await repository.listAnalyses()).total, 0, 'analyses go with their trace');
      });
    });

    it('keeps analyses and evaluations', async (context) => {
      await eachRepository(context, async (repository) => {
        const { id } = await repository.saveTrace(trace('a'), 'a.json');
        const opened = await repository.saveAnalysis(
          id,
          { evaluation: 'e1', record: 3 },
          result('A'),
          1.5,
        );
        await repository.saveAnalysis(id, { method: 'offline' }, result('B'), 2);
        const listed = await repository.listAnalyses({ traceId: id, limit: 1 });
        assert.equal(listed.total, 2);
        assert.equal(listed.items.length, 1);
        assert.equal(listed.items[0]!.traceName, 'a.json');
        assert.equal((await repository.getAnalysis(opened.id))?.milliseconds, 1.5);
        const found = (record: number) =>
          repository.findOpenedRecord(id, { evaluation: 'e1', record, method: 'offline' });
        assert.equal((await found(3))?.id, opened.id);
        assert.equal(await found(4), undefined);
        const evaluation = await repository.saveEvaluation('title', ['offline'], 2, { rows: [1] });
        assert.equal((await repository.listEvaluations()).total, 1);
        assert.deepEqual((await repository.getEvaluation(evaluation.id))?.summary, { rows: [1] });
      });
    });

    it('keeps recorded runs, their outcome and the blame per agent', async (context) => {
      await eachRepository(context, async (repository) => {
        const run = (steps: number, outcome: 'unknown' | 'failure' = 'unknown') =>
          buildTrace({
            id: 'run-1',
            format: 'otel',
            outcome,
            steps: Array.from({ length: steps }, (_, index) => ({
              speaker: index % 2 ? 'B' : 'A',
              content: `step ${index}`,
            })),
          });
        const first = await repository.runs.save(run(1), { file: '/tmp/run-1.json' });
        assert.equal((await repository.runs.setOutcome('run-1', 'failure'))?.outcome, 'failure');
        assert.equal((await repository.runs.trace('run-1'))?.outcome, 'failure');
        const grown = await repository.runs.save(run(2));
        assert.equal(grown.traceId, first.traceId);
        assert.equal(grown.steps, 2);
        assert.equal(grown.outcome, 'failure', 'the outcome set meanwhile is kept');
        assert.equal(grown.file, '/tmp/run-1.json');
        await repository.saveAnalysis(grown.traceId, { method: 'offline' }, result('B'), 1);
        const listed = await repository.runs.list();
        assert.equal(listed.total, 1);
        assert.equal(listed.items[0]!.verdict?.agent, 'B');
        assert.deepEqual(await repository.runs.blameByAgent(), [
          { agent: 'B', thisWeek: 1, lastWeek: 0 },
        ]);
        assert.equal((await repository.runs.get(first.traceId))?.runId, 'run-1');
      });
    });

    it("counts the runs of each task by outcome and reads a task's latest runs", async (context) => {
      await eachRepository(context, async (repository) => {
        const outcomes = ['failure', 'success', 'failure', 'unknown'] as const;
        for (const [index, outcome] of outcomes.entries())
          await repository.runs.save({ ...trace(`t-${index}`), outcome, metadata: { task: 'T' } });
        await repository.runs.save({ ...trace('u-0'), metadata: { task: 'U' } });
        const { items, total } = await repository.tasks.list();
        assert.equal(total, 2);
        const task = items.find((entry) => entry.task === 'T');
        assert.deepEqual(task && [task.runs, task.failed, task.passed, task.unknown], [4, 2, 1, 1]);
        assert.equal(await repository.tasks.count('T'), 4);
        const latest = await repository.tasks.latest('T', 2);
        assert.deepEqual(
          latest.map(({ run, trace: read }) => [run.runId, run.outcome, read.id]),
          [
            ['t-2', 'failure', 't-2'],
            ['t-3', 'unknown', 't-3'],
          ],
        );
      });
    });

    it('rolls a transaction back when it throws', async (context) => {
      await eachRepository(context, async (repository, db) => {
        await assert.rejects(
          db.queries.transaction().execute(async (transaction) => {
            await transaction
              .insertInto('evaluations')
              .values({
                id: 'gone',
                title: 't',
                methods: '[]',
                traces: 0,
                summary_json: '{}',
                created_at: new Date().toISOString(),
              })
              .execute();
            throw new Error('stop');
          }),
          /stop/,
        );
        assert.equal((await repository.listEvaluations()).total, 0);
      });
    });

    it('saves many runs and traces at once, each once', async (context) => {
      await eachRepository(context, async (repository) => {
        const runs = Array.from({ length: 20 }, (_, index) =>
          buildTrace({
            id: `run-${index}`,
            format: 'otel',
            outcome: 'unknown',
            steps: [{ speaker: 'A', content: `step of ${index}` }],
          }),
        );
        await Promise.all([
          ...runs.map((run) => repository.runs.save(run)),
          ...runs.map((_, index) => repository.saveTrace(trace(`t${index}`), `t${index}.json`)),
        ]);
        assert.equal((await repository.runs.list()).total, 20);
        assert.equal((await repository.listHistory()).total, 40);
      });
    });
  });
}

let folder = '';
let sqliteCount = 0;
storeCases('SQLite', async () => {
  folder ||= await mkdtemp(join(tmpdir(), 'faultline-drivers-'));
  const file = join(folder, `store-${(sqliteCount += 1)}.db`);
  return { open: () => openDatabase(file) };
});

let server: PostgresServer | { skip: string } | undefined;
let postgresCount = 0;
const postgres = async () => (server ??= await startPostgres());
storeCases('PostgreSQL', async () => {
  const started = await postgres();
  if ('skip' in started) return started;
  const url = await started.createDatabase(`store_${(postgresCount += 1)}`);
  return { open: () => openDatabase(url) };
});

describe('where the store lives', () => {
  it("is --database-url, else FAULTLINE_DATABASE_URL, else the home's SQLite file", () => {
    const before = process.env.FAULTLINE_DATABASE_URL;
    try {
      delete process.env.FAULTLINE_DATABASE_URL;
      assert.equal(databaseLocation('/h'), join('/h', 'faultline.db'));
      process.env.FAULTLINE_DATABASE_URL = 'postgres://db/one';
      assert.equal(databaseLocation('/h'), 'postgres://db/one');
      assert.equal(databaseLocation('/h', 'postgres://db/two'), 'postgres://db/two');
    } finally {
      if (before === undefined) delete process.env.FAULTLINE_DATABASE_URL;
      else process.env.FAULTLINE_DATABASE_URL = before;
    }
  });
});

describe('store on PostgreSQL: schema', () => {
  it('refuses a database from a newer faultline', async (context) => {
    const started = await postgres();
    if ('skip' in started) return context.skip(started.skip);
    const url = await started.createDatabase('newer');
    const db = await openDatabase(url);
    await sql`UPDATE faultline_schema SET version = 99`.execute(db.queries);
    await db.close();
    await assert.rejects(openDatabase(url), /written by a newer faultline \(schema 99\)/);
  });

  it('migrates once when two processes open an empty database at once', async (context) => {
    const started = await postgres();
    if ('skip' in started) return context.skip(started.skip);
    const url = await started.createDatabase('racing');
    const script = `import { openDatabase } from './src/store/database.ts';
      const db = await openDatabase(process.env.URL); await db.close();`;
    const opening = () =>
      promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', script],
        {
          cwd: ROOT,
          env: { ...process.env, URL: url },
        },
      );
    await Promise.all([opening(), opening()]);
    const db = await openDatabase(url);
    try {
      const { rows } = await sql<{
        version: number;
      }>`SELECT version FROM faultline_schema`.execute(db.queries);
      assert.deepEqual(rows, [{ version: 4 }]);
      // The functions the first version emulated SQLite with are gone.
      const functions = await sql<{
        name: string;
      }>`SELECT proname AS name FROM pg_proc WHERE proname IN ('instr', 'json_extract')`.execute(
        db.queries,
      );
      assert.deepEqual(functions.rows, []);
    } finally {
      await db.close();
    }
  });

  it('says in one line which server it cannot reach, without the password', async () => {
    await assert.rejects(
      openDatabase('postgres://someone:s3cret@127.0.0.1:1/none'),
      (error: Error) =>
        error instanceof StoreUnavailableError &&
        /cannot be reached/.test(error.message) &&
        /postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/none/.test(error.message) &&
        !error.message.includes('s3cret') &&
        !error.message.includes('\n'),
    );
  });
});

after(async () => {
  if (server && !('skip' in server)) await server.stop();
  if (folder) await rm(folder, { recursive: true, force: true });
});
