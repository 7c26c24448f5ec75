import assert from 'node:assert/strict';
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
