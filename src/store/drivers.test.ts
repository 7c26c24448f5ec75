/**
 * The store's essential cases on both databases: SQLite (a temporary file) and PostgreSQL (a
 * server started for this file, test/postgres-server.ts; skipped with the reason where it cannot
 * start). Migrations on an empty database and again on an up-to-date one, traces listed, paged
 * and filtered, analyses, evaluations, recorded runs, transactions, and two processes migrating
 * one PostgreSQL database at once.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { ROOT } from '../../test/paths.js';
import { databaseLocation } from '../config.js';
import { startPostgres, type PostgresServer } from '../../test/postgres-server.js';
import { buildTrace } from '../trace/build-trace.js';
import { openDatabase, type Db } from './database.js';
import { translatePlaceholders } from './postgres.js';
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
function storeCases(name: string, fresh: () => Promise<{ open: () => Db } | { skip: string }>) {
  describe(`store on ${name}`, () => {
    const each = async (
      context: { skip: (message: string) => void },
      body: (open: () => Db) => Promise<void> | void,
    ) => {
      const database = await fresh();
      if ('skip' in database) {
        context.skip(database.skip);
        return;
      }
      await body(database.open);
    };
    /** `each` with a Repository on a connection opened for the body and closed after it. */
    const eachRepository = (
      context: { skip: (message: string) => void },
      body: (repository: Repository, db: Db) => void,
    ) =>
      each(context, (open) => {
        const db = open();
        try {
          body(new Repository(db), db);
        } finally {
          db.close();
        }
      });

    it('migrates an empty database, and opening it again changes nothing', async (context) => {
      await each(context, (open) => {
        const first = open();
        const repository = new Repository(first);
        const saved = repository.saveTrace(trace('t1'), 't1.json');
        first.close();
        const second = open();
        assert.equal(new Repository(second).getTrace(saved.id)?.id, 't1');
        second.close();
      });
    });

    it('stores, lists, pages and filters traces, with labels and analyses', async (context) => {
      await eachRepository(context, (repository) => {
        const one = repository.saveTrace(trace('one', 'Planner'), 'one.json');
        const two = repository.saveTrace(trace('two', 'Coder'), 'two.json');
        const three = repository.saveTrace(trace('three'), 'pasted trace');
        assert.equal(repository.saveTrace(trace('three'), 'three.json').id, three.id);
        const all = repository.listHistory();
        assert.equal(all.total, 3);
        assert.deepEqual(all.items.map((item) => item.name).sort(), [
          'one.json',
          'three.json',
          'two.json',
        ]);
        const page = repository.listHistory({ limit: 2, offset: 2 });
        assert.equal(page.items.length, 1);
        assert.equal(page.total, 3);
        repository.saveAnalysis(two.id, { method: 'offline' }, result('Coder'), 12.25);
        const byAgent = repository.listHistory({ query: 'coder' });
        assert.deepEqual(
          byAgent.items.map((item) => [item.name, item.latest?.agent]),
          [['two.json', 'Coder']],
        );
        assert.equal(repository.listHistory({ query: 'ONE.j' }).items[0]?.id, one.id);
        assert.equal(repository.hasStep(one.id, 1), true);
        assert.equal(repository.hasStep(one.id, 2), false);
        assert.equal(repository.setUserLabel(one.id, { agent: 'Planner', step: 0 }), true);
        assert.deepEqual(repository.getLabels(one.id), {
          agent: 'Planner',
          step: 0,
          byUser: true,
        });
        assert.deepEqual(JSON.parse(repository.getTraceJson(one.id)!), repository.getTrace(one.id));
        assert.equal(repository.listHistory({ query: 'planner' }).total, 1);
        assert.deepEqual(
          repository.labelledTraces().map((labelled) => labelled.id),
          ['one'],
        );
        assert.equal(repository.deleteTrace(two.id), true);
        assert.equal(repository.listAnalyses().total, 0, 'analyses go with their trace');
      });
    });

    it('keeps analyses and evaluations', async (context) => {
      await eachRepository(context, (repository) => {
        const { id } = repository.saveTrace(trace('a'), 'a.json');
        const opened = repository.saveAnalysis(
          id,
          { evaluation: 'e1', record: 3 },
          result('A'),
          1.5,
        );
        repository.saveAnalysis(id, { method: 'offline' }, result('B'), 2);
        const listed = repository.listAnalyses({ traceId: id, limit: 1 });
        assert.equal(listed.total, 2);
        assert.equal(listed.items.length, 1);
        assert.equal(listed.items[0]!.traceName, 'a.json');
        assert.equal(repository.getAnalysis(opened.id)?.milliseconds, 1.5);
        assert.equal(
          repository.findOpenedRecord(id, { evaluation: 'e1', record: 3, method: 'offline' })?.id,
          opened.id,
        );
        assert.equal(
          repository.findOpenedRecord(id, { evaluation: 'e1', record: 4, method: 'offline' }),
          undefined,
        );
        const evaluation = repository.saveEvaluation('title', ['offline'], 2, { rows: [1] });
        assert.equal(repository.listEvaluations().total, 1);
        assert.deepEqual(repository.getEvaluation(evaluation.id)?.summary, { rows: [1] });
      });
    });

    it('keeps recorded runs, their outcome and the blame per agent', async (context) => {
      await eachRepository(context, (repository) => {
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
        const first = repository.runs.save(run(1), { file: '/tmp/run-1.json' });
        assert.equal(repository.runs.setOutcome('run-1', 'failure')?.outcome, 'failure');
        assert.equal(repository.runs.trace('run-1')?.outcome, 'failure');
        const grown = repository.runs.save(run(2));
        assert.equal(grown.traceId, first.traceId);
        assert.equal(grown.steps, 2);
        assert.equal(grown.outcome, 'failure', 'the outcome set meanwhile is kept');
        assert.equal(grown.file, '/tmp/run-1.json');
        repository.saveAnalysis(grown.traceId, { method: 'offline' }, result('B'), 1);
        const listed = repository.runs.list();
        assert.equal(listed.total, 1);
        assert.equal(listed.items[0]!.verdict?.agent, 'B');
        assert.deepEqual(repository.runs.blameByAgent(), [
          { agent: 'B', thisWeek: 1, lastWeek: 0 },
        ]);
        assert.equal(repository.runs.get(first.traceId)?.runId, 'run-1');
      });
    });

    it('rolls a transaction back when it throws', async (context) => {
      await eachRepository(context, (repository, db) => {
        assert.throws(
          db.transaction(() => {
            repository.saveTrace(trace('gone'), 'gone.json');
            throw new Error('stop');
          }),
          /stop/,
        );
        assert.equal(repository.listHistory().total, 0);
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
  const url = started.createDatabase(`store_${(postgresCount += 1)}`);
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

describe('placeholders for PostgreSQL', () => {
  it('numbers ? in order and @name once per name, leaving quoted text alone', () => {
    assert.deepEqual(translatePlaceholders('SELECT ? AS a, \'?@x\' AS b, ? AS "c?"'), {
      text: 'SELECT $1 AS a, \'?@x\' AS b, $2 AS "c?"',
      positional: 2,
    });
    assert.deepEqual(translatePlaceholders('WHERE a = @needle OR b = @needle LIMIT @limit'), {
      text: 'WHERE a = $1 OR b = $1 LIMIT $2',
      names: ['needle', 'limit'],
      positional: 0,
    });
  });
});

describe('store on PostgreSQL: schema', () => {
  it('refuses a database from a newer faultline', async (context) => {
    const started = await postgres();
    if ('skip' in started) return context.skip(started.skip);
    const url = started.createDatabase('newer');
    const db = openDatabase(url);
    db.exec('UPDATE faultline_schema SET version = 99');
    db.close();
    assert.throws(() => openDatabase(url), /written by a newer faultline \(schema 99\)/);
  });

  it('migrates once when two processes open an empty database at once', async (context) => {
    const started = await postgres();
    if ('skip' in started) return context.skip(started.skip);
    const url = started.createDatabase('racing');
    const script = `import { openDatabase } from './src/store/database.ts';
      const db = openDatabase(process.env.URL); db.close();`;
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
    const db = openDatabase(url);
    try {
      assert.deepEqual(db.prepare('SELECT version FROM faultline_schema').all(), [{ version: 1 }]);
    } finally {
      db.close();
    }
  });

  it('says which server it cannot reach, without the password', () => {
    assert.throws(
      () => openDatabase('postgres://someone:s3cret@127.0.0.1:1/none'),
      (error: Error) =>
        /cannot reach PostgreSQL at postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/none/.test(
          error.message,
        ) && !error.message.includes('s3cret'),
    );
  });
});

after(async () => {
  if (server && !('skip' in server)) await server.stop();
  if (folder) await rm(folder, { recursive: true, force: true });
});
