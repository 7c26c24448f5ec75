/**
 * No run lost in silence: a run that arrives over OTLP and no importer reads is stored as
 * unreadable (its spans kept), listed with its reason over the API, counted in `/api/health`, and
 * read again later: by `POST /api/runs/:id/reread`, and at server start (after an upgrade), when
 * it is then attributed like any failed run.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../../test/eventually.js';
import { FIXTURES } from '../../test/paths.js';
import { openDatabase } from '../store/database.js';
import { UNREADABLE_FORMAT, type RunRecord } from '../store/records.js';
import { RunStore } from '../store/runs.js';
import { startServer } from './serve.js';

/** One span in a convention no importer reads. */
const unknownSpans = (traceId: string) => ({
  resourceSpans: [
    {
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'mystery' } }] },
      scopeSpans: [
        {
          scope: { name: 'mystery-framework' },
          spans: [
            {
              traceId,
              spanId: '1111111111111111',
              name: 'mystery.run',
              startTimeUnixNano: '1700000000000000000',
              endTimeUnixNano: '1700000001000000000',
              attributes: [{ key: 'mystery.input', value: { stringValue: 'hello' } }],
            },
          ],
        },
      ],
    },
  ],
});

describe('runs that cannot be read', () => {
  let home = '';
  let server: Awaited<ReturnType<typeof startServer>>;
  const start = async () => {
    server = await startServer({
      home,
      host: '127.0.0.1',
      port: 0,
      workers: 1,
      live: { quietMs: 100 },
    });
  };
  const api = async <Body>(path: string, init?: RequestInit) => {
    const response = await fetch(new URL(path, server.state.url), init);
    return { status: response.status, body: (await response.json()) as Body };
  };
  const runOf = (id: string) =>
    eventually(async () => {
      const { status, body } = await api<{ run: RunRecord }>(`/api/runs/${id}`);
      return status === 200 ? body.run : undefined;
    }, 30);

  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'faultline-unreadable-'));
    await start();
  });
  after(async () => {
    await server?.stop();
    await rm(home, { recursive: true, force: true });
  });

  it('stores an unknown convention as unreadable, with its reason and its spans, counted in health', async () => {
    const traceId = 'a'.repeat(32);
    const posted = await fetch(new URL('/v1/traces', server.state.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(unknownSpans(traceId)),
    });
    assert.equal(posted.status, 200);
    const run = await runOf(traceId);
    assert.equal(run.format, UNREADABLE_FORMAT);
    assert.match(run.unreadable ?? '', /unrecognised trace format/);
    const listed = await api<{ runs: RunRecord[] }>('/api/runs');
    assert.equal(
      listed.body.runs.find((each) => each.runId === traceId)?.unreadable,
      run.unreadable,
    );
    const { body } = await api<{ trace: { metadata: { otlp: unknown } } }>(
      `/api/traces/${run.traceId}`,
    );
    assert.deepEqual(body.trace.metadata.otlp, unknownSpans(traceId));
    const health = await eventually(async () => {
      const answer = await api<{ unreadableRuns: number }>('/api/health');
      return answer.body.unreadableRuns >= 1 ? answer.body : undefined;
    });
    assert.equal(health.unreadableRuns, 1);
    const again = await api<{ unreadable: string | null }>(`/api/runs/${traceId}/reread`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(again.status, 200);
    assert.match(again.body.unreadable ?? '', /unrecognised trace format/);
  });

  it('reads a kept run again at start, as a newer version would, and attributes it', async () => {
    // A run an older version could not read: the AI SDK's spans, stored as unreadable.
    const document = JSON.parse(
      readFileSync(join(FIXTURES, 'formats', 'ai-sdk-telemetry.json'), 'utf8'),
    ) as { resourceSpans: unknown[] };
    await server.stop();
    const db = await openDatabase(join(home, 'faultline.db'));
    const runId = 'b'.repeat(32);
    await new RunStore(db).save(
      {
        id: runId,
        format: UNREADABLE_FORMAT,
        outcome: 'unknown',
        steps: [],
        agents: [],
        metadata: { unreadable: 'unrecognised trace format', otlp: document },
      },
      { name: 'OTLP bbbbbbbb' },
    );
    await db.close();
    await start();
    const run = await eventually(async () => {
      const found = await runOf(runId);
      return found.format === 'ai-sdk' && found.verdict ? found : undefined;
    }, 60);
    assert.equal(run.unreadable, null);
    assert.equal(run.outcome, 'failure');
    assert.equal(run.verdict?.agent, 'researcher');
    const conflict = await api<{ error: string }>(`/api/runs/${runId}/reread`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(conflict.status, 409);
  });
});
