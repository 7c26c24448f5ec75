/**
 * Marking the outcome of a run received as spans by what the app knows of it, not its trace id:
 * `POST /api/runs/outcome` with the AI SDK `functionId` its run began with (or a session id), the
 * latest such run marked. The spans are the AI SDK's own export (the golden fixture).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../../test/eventually.js';
import { FIXTURES } from '../../test/paths.js';
import type { RunRecord } from '../store/records.js';
import { startServer } from './serve.js';

describe('an outcome by session or function id', () => {
  let home = '';
  let server: Awaited<ReturnType<typeof startServer>>;
  const post = async (path: string, body: unknown) => {
    const response = await fetch(new URL(path, server.state.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as { run?: RunRecord } };
  };

  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'faultline-outcome-key-'));
    server = await startServer({
      home,
      host: '127.0.0.1',
      port: 0,
      workers: 1,
      live: { quietMs: 100 },
    });
  });
  after(async () => {
    await server?.stop();
    await rm(home, { recursive: true, force: true });
  });

  it('marks the latest run of a function id; refuses a request naming none', async () => {
    const spans = readFileSync(join(FIXTURES, 'formats', 'ai-sdk-telemetry.json'), 'utf8');
    const sent = await fetch(new URL('/v1/traces', server.state.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: spans,
    });
    assert.equal(sent.status, 200);
    const traceId = (
      JSON.parse(spans) as { resourceSpans: { scopeSpans: { spans: { traceId: string }[] }[] }[] }
    ).resourceSpans[0]!.scopeSpans[0]!.spans[0]!.traceId;
    await eventually(async () => {
      const response = await fetch(new URL(`/api/runs/${traceId}`, server.state.url));
      return response.status === 200 ? true : undefined;
    }, 30);
    const marked = await post('/api/runs/outcome', {
      functionId: 'coordinator',
      outcome: 'passed',
    });
    assert.equal(marked.status, 200);
    assert.equal(marked.body.run?.runId, traceId);
    assert.equal(marked.body.run?.outcome, 'success');
    assert.equal(
      (await post('/api/runs/outcome', { session: 'nobody', outcome: 'failed' })).status,
      404,
    );
    assert.equal((await post('/api/runs/outcome', { outcome: 'failed' })).status, 400);
  });
});
