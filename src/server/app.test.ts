/** The HTTP API in-process (hono's app.request), with a real SQLite file. */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { ROOT } from '../../test/paths.js';
import { startScriptedProvider } from '../../test/scripted-provider.js';
import { openDatabase, type Db } from '../store/database.js';
import { Repository } from '../store/repository.js';
import { importTraceText } from '../trace/load.js';
import { createApp } from './app.js';

const HOST = { host: '127.0.0.1:8500' };
/** A trace file's upload, as the page sends it. */
const UPLOAD = { ...HOST, 'content-type': 'application/octet-stream' };

describe('HTTP API', () => {
  let folder = '';
  let db: Db;
  let app: ReturnType<typeof createApp>;
  const logged: string[] = [];
  let example = '';

  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'faultline-api-'));
    // The LLM reply cache lives in FAULTLINE_HOME: here, even when this file is run by hand
    // (without npm test's test/isolated-home.ts).
    process.env.FAULTLINE_HOME = folder;
    db = await openDatabase(join(folder, 'faultline.db'));
    app = createApp({
      repository: new Repository(db),
      maxUploadBytes: 200_000,
      log: (line) => logged.push(line),
      webRoot: join(folder, 'no-web'),
    });
    example = await readFile(join(ROOT, 'examples/who-and-when-hc-6.json'), 'utf8');
  });
  after(async () => {
    await db.close();
    await rm(folder, { recursive: true, force: true });
  });

  const upload = (body: string, name = 'hc-6.json') =>
    app.request(`/api/traces?name=${encodeURIComponent(name)}`, {
      method: 'POST',
      body,
      headers: UPLOAD,
    });
  const analyse = (id: string, body: unknown) =>
    app.request(`/api/traces/${id}/analyses`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { ...HOST, 'content-type': 'application/json' },
    });

  it('uploads a trace, attributes it offline and keeps the analysis', async () => {
    const uploaded = await upload(example);
    assert.equal(uploaded.status, 201);
    const { traces } = (await uploaded.json()) as {
      traces: { id: string; steps: number; format: string }[];
    };
    assert.equal(traces[0]!.steps, 8);
    assert.equal(traces[0]!.format, 'who-and-when');
    const analysed = await analyse(traces[0]!.id, { method: 'offline' });
    assert.equal(analysed.status, 201);
    const { analysis } = (await analysed.json()) as {
      analysis: { id: string; result: { agent: string; step: number; candidates: unknown[] } };
    };
    assert.ok(analysis.result.agent);
    assert.ok(Number.isInteger(analysis.result.step));
    const listed = (await (await app.request('/api/analyses', { headers: HOST })).json()) as {
      analyses: { id: string }[];
    };
    assert.ok(listed.analyses.some((item) => item.id === analysis.id));
    const fetched = await app.request(`/api/analyses/${analysis.id}`, { headers: HOST });
    assert.equal(fetched.status, 200);
  });

  it('answers bad uploads with 400 and a message, and stays up', async () => {
    for (const [body, expected] of [
      ['{"history": [', /ends too early/],
      ['{"foo": 1}', /unrecognised trace format/],
      ['', /upload is empty/],
    ] as const) {
      const response = await upload(body, 'bad.json');
      assert.equal(response.status, 400);
      assert.match(((await response.json()) as { error: string }).error, expected);
    }
    assert.equal((await app.request('/api/health', { headers: HOST })).status, 200);
  });

  it('refuses an upload over the limit with 413', async () => {
    const response = await upload(
      `{"history": [{"role": "user", "content": "${'x'.repeat(300_000)}"}]}`,
    );
    assert.equal(response.status, 413);
    assert.match(((await response.json()) as { error: string }).error, /larger than/);
  });

  it('answers unknown ids with 404 and invalid requests with 400', async () => {
    assert.equal((await app.request('/api/traces/nope', { headers: HOST })).status, 404);
    assert.equal((await analyse('nope', { method: 'offline' })).status, 404);
    const { traces } = (await (await upload(example)).json()) as { traces: { id: string }[] };
    const unknown = await analyse(traces[0]!.id, { method: 'oracle' });
    assert.equal(unknown.status, 400);
    assert.match(((await unknown.json()) as { error: string }).error, /unknown method "oracle"/);
    const noModel = await analyse(traces[0]!.id, { method: 'all-at-once' });
    assert.equal(noModel.status, 400);
    assert.match(((await noModel.json()) as { error: string }).error, /needs a model/);
    const badBody = await app.request(`/api/traces/${traces[0]!.id}/analyses`, {
      method: 'POST',
      body: '{',
      headers: { ...HOST, 'content-type': 'application/json' },
    });
    assert.equal(badBody.status, 400);
    assert.equal((await app.request('/api/nothing', { headers: HOST })).status, 404);
  });

  it('reads uploaded binary files: an AG2 logs.db (SQLite) and a gzip-compressed trace', async () => {
    const fixture = (name: string) => readFile(join(ROOT, 'src/trace/__fixtures__/formats', name));
    const uploads: [string, Uint8Array, string][] = [
      ['logs.db', await fixture('ag2-runtime-logging.db'), 'ag2-sqlite'],
      ['events.jsonl.gz', gzipSync(await fixture('crewai-events.jsonl')), 'crewai'],
    ];
    for (const [name, bytes, format] of uploads) {
      const response = await app.request(`/api/traces?name=${name}`, {
        method: 'POST',
        body: bytes,
        headers: UPLOAD,
      });
      const body = (await response.json()) as { traces: { format: string; steps: number }[] };
      assert.equal(response.status, 201, JSON.stringify(body));
      assert.equal(body.traces[0]!.format, format);
      assert.ok(body.traces[0]!.steps > 0);
    }
  });

  it('keeps one History row per content, with label, latest verdict and whether it matches', async () => {
    const first = (await (await upload(example, 'pasted trace')).json()) as {
      traces: { id: string }[];
    };
    const again = (await (await upload(example, 'hc-6 again.json')).json()) as {
      traces: { id: string; name: string }[];
    };
    assert.equal(again.traces[0]!.id, first.traces[0]!.id, 'same content, same trace');
    const id = first.traces[0]!.id;
    const analysis = (await (await analyse(id, { method: 'offline' })).json()) as {
      analysis: { result: { agent: string; step: number } };
    };
    type Row = {
      id: string;
      name: string;
      label: { agent?: string; step?: number; byUser?: boolean } | null;
      latest: { agent: string; step: number } | null;
      correct: { agent: boolean; step: boolean | null } | null;
    };
    const history = async () =>
      ((await (await app.request('/api/traces', { headers: HOST })).json()) as { traces: Row[] })
        .traces;
    const rows = (await history()).filter((row) => row.id === id);
    assert.equal(rows.length, 1);
    assert.deepEqual(rows[0]!.latest, {
      ...rows[0]!.latest,
      agent: analysis.analysis.result.agent,
      step: analysis.analysis.result.step,
    });
    assert.equal(rows[0]!.label?.agent, 'Orchestrator', "the file's own label");
    assert.ok(rows[0]!.correct);

    // Teach it: mark the verdict's agent and step as the label.
    const { agent, step } = analysis.analysis.result;
    const put = (body: unknown) =>
      app.request(`/api/traces/${id}/label`, {
        method: 'PUT',
        body: JSON.stringify(body),
        headers: { ...HOST, 'content-type': 'application/json' },
      });
    assert.equal((await put({ agent, step: 999 })).status, 400);
    assert.equal((await put({ step: 1 })).status, 400);
    const marked = (await (await put({ agent, step })).json()) as {
      trace: { labels: { agent: string; step: number; byUser: boolean } };
    };
    assert.deepEqual(marked.trace.labels, { agent, step, byUser: true });
    const row = (await history()).find((item) => item.id === id)!;
    assert.deepEqual(row.correct, { agent: true, step: true });

    // The export is canonical JSON that the importers (and so `train --data`) read back.
    const exported = await (await app.request('/api/labels', { headers: HOST })).text();
    const [trace] = (await importTraceText(exported, 'labels.json')).filter(
      (item) => item.labels?.step === step && item.labels.agent === agent,
    );
    assert.ok(trace, 'the marked trace is exported with its label');

    const cleared = await app.request(`/api/traces/${id}/label`, {
      method: 'DELETE',
      headers: HOST,
    });
    assert.equal(
      ((await cleared.json()) as { trace: { labels: { agent: string } } }).trace.labels.agent,
      'Orchestrator',
      "clearing the mark brings back the file's label",
    );
    const deleted = await app.request(`/api/traces/${id}`, { method: 'DELETE', headers: HOST });
    assert.equal(deleted.status, 200);
    assert.equal((await app.request(`/api/traces/${id}`, { headers: HOST })).status, 404);
    assert.ok(!(await history()).some((item) => item.id === id));
  });

  it('lists an evaluation per trace and opens a record as an analysis of the re-read trace', async () => {
    const record = (file: string) => ({
      method: 'offline',
      useGroundTruth: true,
      traceKey: 'k',
      file,
      id: 'who-and-when-hc-6',
      subset: 'Hand-Crafted',
      steps: 8,
      predicted: { agent: 'Orchestrator', step: 1, reason: 'plans badly', confidence: 0.4 },
      label: { agent: 'Orchestrator', step: 5 },
      usage: { calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 },
      milliseconds: 3,
    });
    const saved = await new Repository(db).saveEvaluation('offline on examples', ['offline'], 2, {
      rows: [],
      records: [
        record(join(ROOT, 'examples/who-and-when-hc-6.json')),
        record(join(ROOT, 'zz-gone.json')),
      ],
    });
    const listed = (await (
      await app.request(`/api/evaluations/${saved.id}`, { headers: HOST })
    ).json()) as {
      traces: { index: number; file: string; correct: { agent: boolean; step: boolean } }[];
      total: number;
    };
    assert.deepEqual(listed.traces[0], {
      ...listed.traces[0],
      index: 0,
      correct: { agent: true, step: false },
    });
    assert.equal(listed.total, 2);
    const paged = (await (
      await app.request(`/api/evaluations/${saved.id}?limit=1&offset=1&sort=trace&order=desc`, {
        headers: HOST,
      })
    ).json()) as typeof listed;
    assert.deepEqual(
      paged.traces.map((row) => row.index),
      [0],
      'sorted by file, descending (…/zz-gone.json before …/examples/…), second page: the example',
    );
    const wrong = (await (
      await app.request(`/api/evaluations/${saved.id}?wrong=1`, { headers: HOST })
    ).json()) as typeof listed;
    assert.equal(wrong.total, 2, 'both rows have the step wrong');
    assert.equal(
      (await app.request(`/api/evaluations/${saved.id}?sort=colour`, { headers: HOST })).status,
      400,
    );
    const open = (index: number) =>
      app.request(`/api/evaluations/${saved.id}/records/${index}/open`, {
        method: 'POST',
        headers: HOST,
      });
    const opened = await open(0);
    assert.equal(opened.status, 201);
    const body = (await opened.json()) as {
      analysis: { id: string; traceId: string; result: { agent: string; step: number } };
      match: { agent: boolean; step: boolean };
    };
    assert.deepEqual([body.analysis.result.agent, body.analysis.result.step], ['Orchestrator', 1]);
    assert.deepEqual(body.match, { agent: true, step: false });
    const again = (await (await open(0)).json()) as { analysis: { id: string } };
    assert.equal(again.analysis.id, body.analysis.id, 'opened once');
    const gone = await open(1);
    assert.equal(gone.status, 404);
    assert.match(((await gone.json()) as { error: string }).error, /zz-gone\.json.*no such file/);
    assert.equal((await open(7)).status, 404);
  });

  it('rejects requests that name a non-loopback host, however it starts', async () => {
    for (const host of [
      'attacker.example:8500',
      '127.evil.example',
      '127.0.0.1.nip.io:8500',
      '127.0.0.1.evil.example:8500',
      'localhost.evil.example',
      '[::1].evil',
    ]) {
      const response = await app.request('/api/traces', { headers: { host } });
      assert.equal(response.status, 403, host);
      assert.doesNotMatch(await response.text(), /"traces"/, host);
    }
    for (const host of ['127.0.0.1:8500', '127.1.2.3:8500', 'localhost:8500', '[::1]:8500'])
      assert.equal((await app.request('/api/health', { headers: { host } })).status, 200, host);
  });

  it('refuses state changes from other sites and bodies a page can send without a preflight', async () => {
    const body = JSON.stringify({ method: 'offline' });
    const { traces } = (await (await upload(example)).json()) as { traces: { id: string }[] };
    const post = (headers: Record<string, string>) =>
      app.request(`/api/traces/${traces[0]!.id}/analyses`, {
        method: 'POST',
        body,
        headers: { ...HOST, ...headers },
      });
    const fromElsewhere = await post({
      'content-type': 'application/json',
      origin: 'http://evil.example',
    });
    assert.equal(fromElsewhere.status, 403);
    assert.match(((await fromElsewhere.json()) as { error: string }).error, /evil\.example/);
    assert.equal(
      (await post({ 'content-type': 'application/json', 'sec-fetch-site': 'cross-site' })).status,
      403,
    );
    assert.equal((await post({ 'content-type': 'application/json', origin: 'null' })).status, 403);
    const plain = await post({ 'content-type': 'text/plain' });
    assert.equal(plain.status, 415);
    assert.match(((await plain.json()) as { error: string }).error, /application\/json/);
    assert.equal((await post({ 'content-type': 'application/x-www-form-urlencoded' })).status, 415);
    const upload415 = await app.request('/api/traces', {
      method: 'POST',
      body: example,
      headers: { ...HOST, 'content-type': 'text/plain' },
    });
    assert.equal(upload415.status, 415);
    const remove = await app.request(`/api/traces/${traces[0]!.id}`, {
      method: 'DELETE',
      headers: { ...HOST, origin: 'http://evil.example' },
    });
    assert.equal(remove.status, 403);
    // The page itself (same origin) and programs (no Origin) go through.
    assert.equal(
      (
        await post({
          'content-type': 'application/json',
          origin: 'http://127.0.0.1:8500',
          'sec-fetch-site': 'same-origin',
        })
      ).status,
      201,
    );
    assert.equal((await post({ 'content-type': 'application/json' })).status, 201);
  });

  it('stores the good runs of a JSON Lines file with a broken line, and reports that line', async () => {
    const text = await readFile(
      join(ROOT, 'src/trace/__fixtures__/broken-lines/runs-one-broken-line.jsonl'),
      'utf8',
    );
    const response = await upload(text, 'runs.jsonl');
    const body = (await response.json()) as { traces: unknown[]; skipped: string[] };
    assert.equal(response.status, 201, JSON.stringify(body));
    assert.ok(body.traces.length > 0, 'the readable lines are stored');
    assert.equal(body.skipped.length, 1);
    assert.match(body.skipped[0]!, /runs\.jsonl.*line \d+/);
  });

  it('answers a trace nested thousands of levels deep with 400 and where, never 500', async () => {
    for (const depth of [5_000, 90_000]) {
      const content = `${'['.repeat(depth)}1${']'.repeat(depth)}`;
      const response = await upload(
        `{"question": "q", "history": [{"role": "assistant", "name": "A", "content": ${content}}]}`,
        'deep.json',
      );
      assert.equal(response.status, 400, `depth ${depth}`);
      assert.match(((await response.json()) as { error: string }).error, /deep\.json.*nest/);
    }
  });

  it('pages every list, with a total, and filters History in the database', async () => {
    const names = ['paging-alpha.json', 'paging-beta.json', 'paging-gamma.json'];
    for (const [index, name] of names.entries()) {
      const trace = JSON.parse(example) as { history: { content: string }[] };
      trace.history[0]!.content += ` (variant ${index})`;
      assert.equal((await upload(JSON.stringify(trace), name)).status, 201);
    }
    type Page = { traces: { name: string }[]; total: number; limit: number; offset: number };
    const page = async (query: string) =>
      (await (await app.request(`/api/traces?${query}`, { headers: HOST })).json()) as Page;
    const all = await page('limit=500');
    assert.equal(all.total, all.traces.length);
    const first = await page('limit=2');
    const second = await page('limit=2&offset=2');
    assert.equal(first.traces.length, 2);
    assert.deepEqual([first.total, first.limit, first.offset], [all.total, 2, 0]);
    assert.deepEqual(
      [...first.traces, ...second.traces].map((row) => row.name),
      all.traces.slice(0, 4).map((row) => row.name),
    );
    const filtered = await page('q=PAGING-&limit=2');
    assert.equal(filtered.total, 3, 'the filter counts every match, not just one page');
    assert.equal(filtered.traces.length, 2);
    assert.ok(filtered.traces.every((row) => row.name.startsWith('paging-')));
    assert.equal((await page('q=gamma')).traces[0]!.name, 'paging-gamma.json');
    for (const bad of ['limit=0', 'limit=501', 'offset=-1', 'limit=ten'])
      assert.equal((await app.request(`/api/traces?${bad}`, { headers: HOST })).status, 400, bad);
    const analyses = (await (
      await app.request('/api/analyses?limit=1', { headers: HOST })
    ).json()) as { analyses: unknown[]; total: number };
    assert.equal(analyses.analyses.length, 1);
    assert.ok(analyses.total >= 1);
    const evaluations = (await (
      await app.request('/api/evaluations?limit=1', { headers: HOST })
    ).json()) as { evaluations: unknown[]; total: number; limit: number };
    assert.equal(evaluations.limit, 1);
    assert.equal(typeof evaluations.total, 'number');
  });

  it('sends security headers', async () => {
    const response = await app.request('/api/health', { headers: HOST });
    assert.match(response.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
  });
});

describe('HTTP API with a token', () => {
  it('requires the token on every request', async () => {
    const db = await openDatabase(':memory:');
    try {
      const app = createApp({
        repository: new Repository(db),
        token: 'letmein',
        anyHost: true,
        log: () => undefined,
      });
      assert.equal((await app.request('/api/health')).status, 401);
      assert.equal(
        (await app.request('/api/health', { headers: { authorization: 'Bearer wrong' } })).status,
        401,
      );
      assert.equal(
        (await app.request('/api/health', { headers: { authorization: 'Bearer letmein' } })).status,
        200,
      );
      const viaQuery = await app.request('/api/health?token=letmein');
      assert.equal(viaQuery.status, 200);
      assert.match(viaQuery.headers.get('set-cookie') ?? '', /faultline_token=letmein; .*HttpOnly/);
      const webless = createApp({
        repository: new Repository(db),
        token: 'letmein',
        anyHost: true,
        log: () => undefined,
        webRoot: '/nonexistent',
      });
      assert.equal((await webless.request('/')).status, 401, 'the page needs the token too');
      assert.equal(
        (await webless.request('/', { headers: { cookie: 'faultline_token=letmein' } })).status,
        503,
        'the cookie is accepted (the page is not built here)',
      );
    } finally {
      await db.close();
    }
  });
});

describe('HTTP API and model keys', () => {
  const secret = 'sk-test-secret-0123456789';
  let saved: string | undefined;
  let folder = '';
  let db: Db;
  let example = '';
  before(async () => {
    saved = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = secret;
    folder = await mkdtemp(join(tmpdir(), 'faultline-api-keys-'));
    db = await openDatabase(join(folder, 'faultline.db'));
    example = await readFile(join(ROOT, 'examples/who-and-when-hc-6.json'), 'utf8');
  });
  after(async () => {
    await db.close();
    await rm(folder, { recursive: true, force: true });
    if (saved === undefined) delete process.env.OPENAI_API_KEY;
    else process.env.OPENAI_API_KEY = saved;
  });
  const reply = '{"agent": "WebSurfer", "step": 4, "reason": "wrong site"}';
  const appFor = (baseUrl?: string) =>
    createApp({
      repository: new Repository(db),
      log: () => undefined,
      webRoot: join(folder, 'no-web'),
      ...(baseUrl ? { baseUrl } : {}),
    });
  async function analyseWith(
    app: ReturnType<typeof createApp>,
    body: unknown,
    type = 'application/json',
  ) {
    const uploaded = await app.request('/api/traces?name=hc-6.json', {
      method: 'POST',
      body: example,
      headers: UPLOAD,
    });
    const { traces } = (await uploaded.json()) as { traces: { id: string }[] };
    return app.request(`/api/traces/${traces[0]!.id}/analyses`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { ...HOST, 'content-type': type },
    });
  }

  /** Runs `work` with environment variables set, as a server launched with them has them. */
  async function withEnvironment(variables: Record<string, string>, work: () => Promise<void>) {
    const saved = Object.fromEntries(
      Object.keys(variables).map((name) => [name, process.env[name]]),
    );
    Object.assign(process.env, variables);
    try {
      await work();
    } finally {
      for (const [name, value] of Object.entries(saved))
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
    }
  }

  it("sends its own key to the vendor's endpoint it was launched with, and never returns or stores it", async () => {
    const server = await startScriptedProvider('openai', [reply]);
    try {
      await withEnvironment({ OPENAI_BASE_URL: server.baseUrl }, async () => {
        const response = await analyseWith(appFor(), {
          method: 'all-at-once',
          model: 'openai:gpt-4o',
        });
        const text = await response.text();
        assert.equal(response.status, 201, text);
        assert.doesNotMatch(text, new RegExp(secret));
        assert.equal(server.requests[0]!.headers.authorization, `Bearer ${secret}`);
        const stored = JSON.stringify(
          await db.queries.selectFrom('analyses').selectAll().execute(),
        );
        assert.doesNotMatch(stored, new RegExp(secret));
      });
    } finally {
      await server.close();
    }
  });

  it("uses the launch --base-url for models without a vendor key, never for a vendor's key", async () => {
    const local = await startScriptedProvider('openai', [reply]);
    const anthropic = await startScriptedProvider('anthropic', [reply]);
    try {
      await withEnvironment(
        {
          ANTHROPIC_API_KEY: 'sk-ant-server-own',
          ANTHROPIC_BASE_URL: `${anthropic.baseUrl}`,
          OPENAI_COMPATIBLE_API_KEY: 'local-key',
        },
        async () => {
          const app = appFor(local.baseUrl);
          const claude = await analyseWith(app, {
            method: 'all-at-once',
            model: 'anthropic:claude-sonnet-4-5',
          });
          assert.equal(claude.status, 201, await claude.text());
          assert.equal(anthropic.requests[0]!.headers['x-api-key'], 'sk-ant-server-own');
          assert.equal(local.requests.length, 0, 'the Anthropic key never reaches the launch URL');
          const qwen = await analyseWith(app, {
            method: 'all-at-once',
            model: 'openai-compatible:qwen2.5',
          });
          assert.equal(qwen.status, 201, await qwen.text());
          assert.equal(local.requests[0]!.headers.authorization, 'Bearer local-key');
        },
      );
    } finally {
      await local.close();
      await anthropic.close();
    }
  });

  it('never sends its key to an endpoint a request chose (the attack from any web page)', async () => {
    const server = await startScriptedProvider('openai', [reply, reply]);
    try {
      const app = appFor();
      const attack = { method: 'all-at-once', model: 'openai:gpt-4o', baseUrl: server.baseUrl };
      // As a hostile page sends it: text/plain needs no preflight, Origin names the page's site.
      const fromPage = await app.request('/api/traces/x/analyses', {
        method: 'POST',
        body: JSON.stringify(attack),
        headers: { ...HOST, 'content-type': 'text/plain', origin: 'http://evil.example' },
      });
      assert.equal(fromPage.status, 403);
      // Even as a program's JSON request, the endpoint it chose does not get the server's key.
      const refused = await analyseWith(app, attack);
      assert.equal(refused.status, 400);
      assert.match(
        ((await refused.json()) as { error: string }).error,
        /needs an API key of its own/,
      );
      assert.equal(server.requests.length, 0, 'nothing reached the chosen endpoint');
      // With a key of its own, the request's endpoint gets that key and only that key.
      const ownKey = await analyseWith(app, { ...attack, apiKey: 'sk-callers-own' });
      const text = await ownKey.text();
      assert.equal(ownKey.status, 201, text);
      assert.equal(server.requests[0]!.headers.authorization, 'Bearer sk-callers-own');
      assert.doesNotMatch(text, /sk-callers-own/);
      assert.doesNotMatch(
        JSON.stringify(await db.queries.selectFrom('analyses').selectAll().execute()),
        /sk-callers-own/,
      );
    } finally {
      await server.close();
    }
  });
});
