/**
 * The server on a PostgreSQL store that restarts in the middle of a stream of uploads
 * (test/postgres-server.ts stops it at once, as in a crash, and starts it again; skipped with the
 * reason where PostgreSQL cannot start): requests that meet the outage are answered 503 with
 * Retry-After and nothing else, the server connects again by itself, and every upload it
 * acknowledged (201) is in the database afterwards.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT } from '../../test/paths.js';
import { startPostgres, type PostgresServer } from '../../test/postgres-server.js';
import { openDatabase } from '../store/database.js';
import { startServer } from './serve.js';

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

describe('a server whose PostgreSQL restarts during uploads', () => {
  let postgres: PostgresServer | { skip: string };
  let home = '';

  before(async () => {
    postgres = await startPostgres();
    home = await mkdtemp(join(tmpdir(), 'faultline-pg-restart-'));
  });
  after(async () => {
    if (!('skip' in postgres)) await postgres.stop();
    await rm(home, { recursive: true, force: true });
  });

  it('answers 503 while it is down, reconnects, and loses nothing it acknowledged', async (context) => {
    if ('skip' in postgres) return context.skip(postgres.skip);
    const url = await postgres.createDatabase('restarting');
    const logged: string[] = [];
    const server = await startServer({
      home,
      host: '127.0.0.1',
      port: 0,
      workers: 1,
      databaseUrl: url,
    });
    const example = JSON.parse(
      await readFile(join(ROOT, 'examples/who-and-when-hc-6.json'), 'utf8'),
    ) as { history: { content: string }[] };
    const acknowledged = new Set<string>();
    const statuses = new Map<number, number>();
    let next = 0;
    let stopping = false;
    let after503 = 0;
    const uploader = async () => {
      while (!stopping) {
        const index = (next += 1);
        const trace = structuredClone(example);
        trace.history[0]!.content += ` (upload ${index})`;
        const response = await fetch(`${server.state.url}api/traces?name=up-${index}.json`, {
          method: 'POST',
          body: JSON.stringify(trace),
          headers: { 'content-type': 'application/octet-stream' },
        });
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        const body = (await response.json()) as { traces?: { id: string }[]; error?: string };
        if (response.status === 201) {
          acknowledged.add(body.traces![0]!.id);
          if (statuses.has(503)) after503 += 1;
        } else {
          assert.equal(
            response.status,
            503,
            `an upload answered ${response.status}: ${body.error}`,
          );
          assert.equal(response.headers.get('retry-after'), '1');
          logged.push(body.error ?? '');
          await sleep(50);
        }
      }
    };
    try {
      const uploading = Promise.all(Array.from({ length: 6 }, uploader));
      // The worker thread starts first (seconds under tsx on a busy machine).
      for (let waited = 0; acknowledged.size < 10 && waited < 60_000; waited += 100)
        await sleep(100);
      const before = acknowledged.size;
      await postgres.restart(1_000);
      // Uploads go on until a few have been acknowledged after the restart.
      for (let waited = 0; after503 < 10 && waited < 30_000; waited += 100) await sleep(100);
      stopping = true;
      await uploading;
      assert.ok(before > 0, `uploads were acknowledged before the restart (${[...statuses]})`);
      assert.ok((statuses.get(503) ?? 0) > 0, 'the outage was met and answered 503');
      assert.ok(
        after503 >= 10,
        `uploads are acknowledged again after the restart (${[...statuses]})`,
      );
      assert.match(logged[0] ?? '', /database cannot be reached/);
      context.diagnostic(
        `answers: ${[...statuses].map(([status, count]) => `${count}x ${status}`).join(', ')}; ${acknowledged.size} acknowledged`,
      );
      const db = await openDatabase(url);
      try {
        const rows = await db.queries.selectFrom('traces').select('id').execute();
        const stored = new Set(rows.map((row) => row.id));
        const lost = [...acknowledged].filter((id) => !stored.has(id));
        assert.deepEqual(
          lost,
          [],
          `${lost.length} of ${acknowledged.size} acknowledged uploads lost`,
        );
      } finally {
        await db.close();
      }
      // The server still answers its pages from the database.
      const listed = await fetch(`${server.state.url}api/traces?limit=1`);
      assert.equal(listed.status, 200);
    } finally {
      stopping = true;
      await server.stop();
    }
  });
});
