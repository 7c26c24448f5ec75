/**
 * The server on a PostgreSQL store (test/postgres-server.ts starts one; skipped with the reason
 * where it cannot): OTLP spans sent with the OpenTelemetry SDK are stored and attributed there,
 * and two servers sharing one database, as behind a collector that routes by trace id, each
 * receive their own runs and both see every run.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { tracedRun } from '../../test/otel-run.js';
import { startPostgres, type PostgresServer } from '../../test/postgres-server.js';
import { openDatabase } from '../store/database.js';
import { startServer } from './serve.js';
import { eventually } from '../../test/eventually.js';

type Server = Awaited<ReturnType<typeof startServer>>;

async function api<Body>(server: Server, path: string, init?: RequestInit) {
  const response = await fetch(new URL(path, server.state.url), init);
  return { status: response.status, body: (await response.json()) as Body };
}

/** A run as the server lists it once it is stored and attributed. */
const attributedRun = (server: Server, runId: string) =>
  eventually(async () => {
    const { status, body } = await api<{
      run: { runId: string; traceId: string; outcome: string; verdict: { agent: string } | null };
    }>(server, `/api/runs/${runId}`);
    return status === 200 && body.run.verdict ? body.run : undefined;
  }, 20);

describe('servers on a PostgreSQL store', () => {
  let postgres: PostgresServer | { skip: string };
  const folders: string[] = [];
  const servers: Server[] = [];

  const start = async (databaseUrl: string) => {
    const home = await mkdtemp(join(tmpdir(), 'faultline-pg-server-'));
    folders.push(home);
    const server = await startServer({
      home,
      host: '127.0.0.1',
      port: 0,
      otlpPort: 0,
      workers: 1,
      databaseUrl,
      live: { quietMs: 300 },
    });
    servers.push(server);
    return server;
  };

  before(async () => {
    postgres = await startPostgres();
  });
  after(async () => {
    for (const server of servers) await server.stop();
    if (!('skip' in postgres)) await postgres.stop();
    for (const folder of folders) await rm(folder, { recursive: true, force: true });
  });

  it('stores and attributes a failed run received as OTLP spans', async (context) => {
    if ('skip' in postgres) return context.skip(postgres.skip);
    const url = await postgres.createDatabase('one_server');
    const server = await start(url);
    const sent = await tracedRun(new ProtoExporter({ url: server.state.otlpUrl! }), {
      fail: true,
    });
    const run = await attributedRun(server, sent.traceId);
    assert.equal(run.outcome, 'failure');
    assert.ok(run.verdict?.agent, 'the verdict names an agent');
    // It is in PostgreSQL itself, not in a file in the home.
    const db = await openDatabase(url);
    try {
      assert.deepEqual(
        await db.queries.selectFrom('runs').select(['run_id', 'outcome']).execute(),
        [{ run_id: sent.traceId, outcome: 'failure' }],
      );
      const { count } = await db.queries
        .selectFrom('analyses')
        .select((builder) => builder.fn.countAll<number>().as('count'))
        .executeTakeFirstOrThrow();
      assert.ok(Number(count) >= 1);
    } finally {
      await db.close();
    }
  });

  it('lets two servers share one database, each receiving its own runs', async (context) => {
    if ('skip' in postgres) return context.skip(postgres.skip);
    const url = await postgres.createDatabase('two_servers');
    const [left, right] = [await start(url), await start(url)];
    const [toLeft, toRight] = await Promise.all([
      tracedRun(new ProtoExporter({ url: left.state.otlpUrl! }), { fail: true }),
      tracedRun(new JsonExporter({ url: right.state.otlpUrl! }), { fail: false }),
    ]);
    assert.notEqual(toLeft.traceId, toRight.traceId);
    await attributedRun(left, toLeft.traceId);
    // The run the right one received is seen by the left one too, and marked failed through it.
    const unknown = await eventually(async () => {
      const { status, body } = await api<{ run: { outcome: string } }>(
        left,
        `/api/runs/${toRight.traceId}`,
      );
      return status === 200 ? body.run : undefined;
    }, 20);
    assert.equal(unknown.outcome, 'unknown');
    const marked = await api<{ run: { outcome: string }; analysis: { method: string } | null }>(
      left,
      `/api/runs/${toRight.traceId}/outcome`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ outcome: 'failed' }),
      },
    );
    assert.equal(marked.status, 200);
    assert.equal(marked.body.analysis?.method, 'offline');
    for (const server of [left, right]) {
      const { body } = await api<{ runs: { runId: string; outcome: string }[]; total: number }>(
        server,
        '/api/runs',
      );
      assert.equal(body.total, 2);
      assert.deepEqual(
        body.runs.map((run) => [run.runId, run.outcome]).sort(),
        [
          [toLeft.traceId, 'failure'],
          [toRight.traceId, 'failure'],
        ].sort(),
      );
    }
  });
});
