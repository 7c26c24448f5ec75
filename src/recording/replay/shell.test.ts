import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runShell } from './shell.js';

test('a command gives its exit code and the end of its output', async () => {
  const ran = await runShell('echo hello; echo oops >&2; exit 3', {
    environment: process.env,
    timeoutMs: 10_000,
    output: 'kept',
  });
  assert.equal(ran.code, 3);
  assert.match(ran.output, /hello\s+oops/);
});

test('a command past its time is stopped with everything it started', async () => {
  let timedOut = false;
  const started = performance.now();
  const ran = await runShell('sleep 30 & sleep 30; wait', {
    environment: process.env,
    timeoutMs: 200,
    output: 'stderr',
    onTimeout: () => {
      timedOut = true;
    },
  });
  assert.ok(timedOut);
  assert.equal(ran.code, null);
  assert.ok(performance.now() - started < 10_000);
});

test('what a command leaves running when it exits is stopped with its process group', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'faultline-shell-'));
  const marker = join(folder, 'still-running');
  try {
    // A server-like child that outlives the command, holding its output open.
    const ran = await runShell(`(sleep 3; touch "${marker}") & echo started`, {
      environment: process.env,
      timeoutMs: 20_000,
      output: 'kept',
    });
    assert.equal(ran.code, 0);
    assert.match(ran.output, /started/);
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    // Had the command been waited for until its child ended, the marker would exist by now.
    assert.equal(existsSync(marker), false, 'the child was stopped');
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
