/**
 * Benchmark of the recording proxy, loopback only and bounded (a few seconds): a local model
 * server streams chat completions, and the client calls it directly and through the proxy, which
 * records into a temporary FAULTLINE_HOME (files and database).
 *
 * 1. Steps lost: 200 concurrent streamed calls of one run through the proxy; the run written must
 *    have 200 steps (target: 0 lost), in each of REPETITIONS repetitions.
 * 2. Added latency: 60 streamed calls one at a time, direct and proxied in turn; the median
 *    proxied time minus the median direct time (target: under 5 ms), per repetition.
 *
 * Client, model server and proxy share this process (so the proxy's work is counted against it,
 * a conservative reading). Prints `{ results: [{ name, values, unit, target }], notes }` as JSON on
 * stdout, as bench/server-load.ts does, and a summary on stderr.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startProxy } from '../src/recording/proxy/proxy.js';
import { Recorder } from '../src/recording/record/recorder.js';
import { openDatabase } from '../src/store/database.js';
import { RunStore } from '../src/store/runs.js';
import { startWireServer } from '../test/wire-server.js';

const REPETITIONS = 5;
const CONCURRENT = 200;
const SEQUENTIAL = 60;
const median = (values: number[]) =>
  [...values].sort((left, right) => left - right)[Math.floor(values.length / 2)]!;

const home = mkdtempSync(join(tmpdir(), 'faultline-bench-proxy-'));
process.env.FAULTLINE_HOME = home;
const REPLY =
  'The answer follows from the plan: seventeen times twenty-three is 391, plus five is 396.';
const upstream = await startWireServer(() => ({ text: REPLY, toolCalls: [] }));
const db = await openDatabase(join(home, 'faultline.db'));
const runs = new RunStore(db);
const recorder = new Recorder({ folder: join(home, 'runs'), store: runs });
const proxy = await startProxy({ upstream: upstream.baseUrl, recorder, port: 0 });

/** One streamed call, read to its end; its time in milliseconds. */
async function streamedCall(
  base: string,
  headers: Record<string, string>,
  index: number,
): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${base}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer bench', ...headers },
    body: JSON.stringify({
      model: 'scripted',
      stream: true,
      messages: [
        { role: 'system', content: 'You are the coder of a benchmark team.' },
        { role: 'user', content: `Task ${index}: what is 17 * 23 + 5?` },
      ],
    }),
  });
  const text = await response.text();
  if (response.status !== 200 || !text.includes('[DONE]'))
    throw new Error(`call ${index} failed: ${response.status}`);
  return performance.now() - started;
}

const results: { name: string; values: number[]; unit: string; target: number }[] = [];
const notes: string[] = [];
const lost: number[] = [];
const added: number[] = [];
const concurrentWall: number[] = [];
const concurrentMedians: number[] = [];
try {
  // Warm both paths (connections, JIT).
  for (let index = 0; index < 20; index += 1) {
    await streamedCall(upstream.baseUrl, {}, index);
    await streamedCall(`${proxy.url}/v1`, { 'x-faultline-run': 'warm-up' }, index);
  }
  for (let repetition = 0; repetition < REPETITIONS; repetition += 1) {
    const run = `bench-${repetition}`;
    const started = performance.now();
    const times = await Promise.all(
      Array.from({ length: CONCURRENT }, (_, index) =>
        streamedCall(
          `${proxy.url}/v1`,
          { 'x-faultline-run': run, 'x-faultline-agent': `agent-${index % 5}` },
          index,
        ),
      ),
    );
    concurrentWall.push(performance.now() - started);
    concurrentMedians.push(median(times));
    const trace = await recorder.flush(run);
    const stored = (await runs.get(run))?.steps ?? 0;
    lost.push(CONCURRENT - Math.min(trace.steps.length, stored));

    const direct: number[] = [];
    const proxied: number[] = [];
    for (let index = 0; index < SEQUENTIAL; index += 1) {
      direct.push(await streamedCall(upstream.baseUrl, {}, index));
      proxied.push(
        await streamedCall(`${proxy.url}/v1`, { 'x-faultline-run': `${run}-sequential` }, index),
      );
    }
    added.push(median(proxied) - median(direct));
    process.stderr.write(
      `repetition ${repetition + 1}: ${CONCURRENT} concurrent calls in ${concurrentWall.at(-1)!.toFixed(0)} ms, ${lost.at(-1)} steps lost; one at a time: direct ${median(direct).toFixed(2)} ms, proxied ${median(proxied).toFixed(2)} ms, added ${added.at(-1)!.toFixed(2)} ms\n`,
    );
  }
  results.push({
    name: `proxy: steps lost of ${CONCURRENT} concurrent streamed calls`,
    values: lost,
    unit: 'steps',
    target: 0,
  });
  results.push({
    name: 'proxy: added median latency per streamed call',
    values: added,
    unit: 'ms',
    target: 5,
  });
  notes.push(
    `proxy: ${CONCURRENT} concurrent streamed calls took ${median(concurrentWall).toFixed(0)} ms in all (median of ${REPETITIONS}), median call ${median(concurrentMedians).toFixed(1)} ms; client, model server and proxy share one process`,
  );
} finally {
  await proxy.close();
  await upstream.close();
  await db.close();
  rmSync(home, { recursive: true, force: true });
}
process.stdout.write(`${JSON.stringify({ results, notes })}\n`);
process.stderr.write(
  `steps lost: median ${median(lost)} (target 0); added latency: median ${median(added).toFixed(2)} ms (target under 5 ms)\n`,
);
