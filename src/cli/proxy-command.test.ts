import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { ROOT } from '../../test/paths.js';
import { startWireServer } from '../../test/wire-server.js';
import type { Trace } from '../trace/model.js';

const exec = promisify(execFile);
const CLI = ['--import', 'tsx', join(ROOT, 'src/cli/index.ts')];

test('faultline proxy records until stopped, and faultline outcome marks the run failed', async () => {
  const home = mkdtempSync(join(tmpdir(), 'faultline-proxy-cli-'));
  const upstream = await startWireServer();
  const env = { ...process.env, FAULTLINE_HOME: home };
  const proxy = spawn(
    process.execPath,
    [...CLI, 'proxy', '--upstream', upstream.baseUrl, '--port', '0'],
    {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  try {
    let stderr = '';
    const url = await new Promise<string>((resolve, reject) => {
      proxy.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const match = /OPENAI_BASE_URL=(\S+)/.exec(stderr);
        if (match) resolve(match[1]!);
      });
      proxy.once('exit', () => reject(new Error(`the proxy exited: ${stderr}`)));
    });
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    for (const agent of ['A', 'B', 'A']) {
      const response = await fetch(`${url}/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-faultline-agent': agent,
          'x-faultline-run': 'cli-run',
        },
        body: JSON.stringify({
          model: 'scripted',
          messages: [{ role: 'user', content: `hi from ${agent}` }],
        }),
      });
      assert.equal(response.status, 200);
    }
    const exited = new Promise((resolve) => proxy.once('exit', resolve));
    proxy.kill('SIGTERM');
    await exited;
    assert.match(stderr, /cli-run A openai-chat → 200/);
    assert.match(stderr, /stopped; 1 run in /);
    const trace = JSON.parse(readFileSync(join(home, 'runs', 'cli-run.json'), 'utf8')) as Trace;
    assert.deepEqual(
      trace.steps.map((step) => step.agent),
      ['A', 'B', 'A'],
    );

    const { stdout } = await exec(
      process.execPath,
      [...CLI, 'outcome', 'cli-run', 'failed', '--json'],
      { env },
    );
    const marked = JSON.parse(stdout) as {
      run: { outcome: string };
      analysis: { agent: string } | null;
    };
    assert.equal(marked.run.outcome, 'failure');
    assert.ok(marked.analysis && ['A', 'B'].includes(marked.analysis.agent));
    const after = JSON.parse(readFileSync(join(home, 'runs', 'cli-run.json'), 'utf8')) as Trace;
    assert.equal(after.outcome, 'failure');
    await assert.rejects(
      exec(process.execPath, [...CLI, 'outcome', 'no-such-run', 'failed'], { env }),
      (error: { code: number; stderr: string }) =>
        error.code === 2 && /no recorded run no-such-run/.test(error.stderr),
    );
  } finally {
    if (proxy.exitCode === null) proxy.kill('SIGKILL');
    await upstream.close();
    rmSync(home, { recursive: true, force: true });
  }
});
