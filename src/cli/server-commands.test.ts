/** `faultline launch --daemon`, `status`, `logs`, `stop`, as a user runs them. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { ROOT } from '../../test/paths.js';

const run = promisify(execFile);
const CLI = join(ROOT, 'src/cli/index.ts');

describe('server commands', () => {
  let home = '';
  const faultline = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', CLI, ...args], {
        cwd: ROOT,
        env: { ...process.env, FAULTLINE_HOME: home },
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failure = error as { code: number; stdout: string; stderr: string };
      return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
    }
  };

  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'faultline-daemon-'));
  });
  after(async () => {
    await faultline('stop');
    await rm(home, { recursive: true, force: true });
  });

  it('starts in the background, reports status, refuses a second start, logs and stops', async () => {
    const launched = await faultline('launch', '--daemon', '--port', '0');
    assert.equal(launched.code, 0, launched.stderr);
    const url = /running at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(launched.stdout)?.[1];
    assert.ok(url, launched.stdout);
    const health = await fetch(`${url}api/health`);
    assert.equal(health.status, 200);

    const status = await faultline('status');
    assert.equal(status.code, 0);
    assert.match(status.stdout, new RegExp(`running at ${url.replace(/[.]/g, '\\.')}`));
    assert.match(status.stdout, /pid +\d+/);
    assert.match(status.stdout, /uptime +\d+s/);

    const again = await faultline('launch', '--daemon', '--port', '0');
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already running at/);

    const logs = await faultline('logs');
    assert.match(logs.stdout, /listening on/);
    assert.match(logs.stdout, /GET \/api\/health 200/);

    const stopped = await faultline('stop');
    assert.match(stopped.stdout, /stopped faultline \(pid \d+\)/);
    const after = await faultline('status');
    assert.equal(after.code, 3);
    assert.match(after.stdout, /not running/);
  });

  it('detects a stale pid file', async () => {
    await writeFile(
      join(home, 'server.json'),
      JSON.stringify({
        pid: 2 ** 22 + 12_345,
        host: '127.0.0.1',
        port: 1,
        url: 'http://127.0.0.1:1/',
        startedAt: new Date().toISOString(),
      }),
    );
    const status = await faultline('status');
    assert.equal(status.code, 3);
    assert.match(status.stdout, /not running \(removed a stale pid file\)/);
  });

  it('says clearly when the port is busy', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const result = await faultline('launch', '--port', String(port));
      assert.equal(result.code, 2);
      assert.match(
        result.stderr,
        new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use: choose another with --port`),
      );
    } finally {
      blocker.close();
    }
  });

  it('drops a live run over --otlp-max-run-spans, saying so in the log', async () => {
    const refused = await faultline('launch', '--otlp-max-run-spans', '0');
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /--otlp-max-run-spans must be a whole number ≥ 1, got "0"/);
    const launched = await faultline(
      'launch',
      '--daemon',
      '--port',
      '0',
      '--otlp-max-run-spans',
      '2',
    );
    assert.equal(launched.code, 0, launched.stderr);
    const url = /running at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(launched.stdout)![1]!;
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const spans = ['b7ad6b7169203331', 'b7ad6b7169203332', 'b7ad6b7169203333'].map(
      (spanId, index) => ({
        traceId,
        spanId,
        ...(index > 0 ? { parentSpanId: 'b7ad6b7169203331' } : {}),
        name: `span ${index}`,
        kind: 1,
        startTimeUnixNano: '1700000000000000000',
        endTimeUnixNano: '1700000001000000000',
      }),
    );
    const sent = await fetch(`${url}v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] }),
    });
    assert.equal(sent.status, 200);
    const deadline = Date.now() + 10_000;
    let log = '';
    while (Date.now() < deadline) {
      log = await readFile(join(home, 'server.log'), 'utf8');
      if (log.includes(traceId)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.match(
      log,
      new RegExp(`run ${traceId} has more than 2 spans and was dropped .*--otlp-max-run-spans`),
    );
    assert.equal((await faultline('stop')).code, 0);
  });

  it('takes only a postgres:// URL for --database-url, without echoing a password', async () => {
    const result = await faultline('launch', '--database-url', 'mysql://user:s3cret@db/faultline');
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--database-url must be a postgres:\/\/ URL/);
    assert.doesNotMatch(result.stderr, /s3cret/);
  });

  it('refuses to bind beyond loopback without a token', async () => {
    const result = await faultline('launch', '--host', '0.0.0.0', '--port', '0');
    assert.equal(result.code, 2);
    assert.match(result.stderr, /set a token with --token or FAULTLINE_TOKEN/);
    assert.doesNotMatch(
      await readFile(join(home, 'server.log'), 'utf8').catch(() => ''),
      /listening on http:\/\/0\.0\.0\.0/,
    );
  });
});
