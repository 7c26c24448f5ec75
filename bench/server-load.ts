/**
 * Child process of the benchmark: the server under load, on loopback only, bounded in count and
 * time. Prints JSON on stdout: `{ results: [{ name, values, unit, target }], notes: [...] }`.
 *
 * 1. A 60 MB trace is uploaded and analysed while `/api/health` is asked every 20 ms: its latency
 *    (p99) during the analysis must stay under 50 ms (the analysis runs in a worker thread).
 * 2. 500 upload+analysis pairs at concurrency 50, each trace distinct: every acknowledged upload
 *    must be stored and analysed (nothing lost); a 503 is retried after its Retry-After. The p99
 *    of a pair is reported.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startServer } from '../src/server/serve.js';
import { openDatabase } from '../src/store/database.js';
import { generateTrace } from './generate-trace.js';

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};
const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

const home = mkdtempSync(join(tmpdir(), 'faultline-bench-server-'));
const results: { name: string; values: number[]; unit: string; target: number }[] = [];
const notes: string[] = [];
const server = await startServer({ home, host: '127.0.0.1', port: 0 });
const base = server.state.url.replace(/\/$/, '');
const json = { 'content-type': 'application/json' };
const bytes = { 'content-type': 'application/octet-stream' };

/** Sends a request, retrying a 503 after its Retry-After (at most 50 times). */
async function send(
  path: string,
  init: RequestInit,
): Promise<{ response: Response; retries: number }> {
  for (let retries = 0; ; retries += 1) {
    const response = await fetch(`${base}${path}`, init);
    if (response.status !== 503 || retries >= 50) return { response, retries };
    await response.arrayBuffer();
    await sleep(Number(response.headers.get('retry-after') ?? '1') * 1000);
  }
}

try {
  // 1. Health while a 60 MB trace is analysed.
  const large = join(home, 'large-60mb.json');
  const size = await generateTrace(large, 65_000);
  const body = readFileSync(large);
  const healthDuring = async <Result>(work: Promise<Result>) => {
    const latencies: number[] = [];
    let done = false;
    const finished = work.finally(() => {
      done = true;
    });
    const deadline = performance.now() + 120_000;
    while (!done && performance.now() < deadline) {
      const started = performance.now();
      const response = await fetch(`${base}/api/health`);
      await response.arrayBuffer();
      latencies.push(performance.now() - started);
      await sleep(20);
    }
    return { result: await finished, latencies };
  };
  const upload = await healthDuring(
    fetch(`${base}/api/traces?name=large.json`, { method: 'POST', body, headers: bytes }).then(
      async (response) => (await response.json()) as { traces: { id: string }[] },
    ),
  );
  const id = upload.result.traces[0]!.id;
  const analysis = await healthDuring(
    fetch(`${base}/api/traces/${id}/analyses`, {
      method: 'POST',
      body: '{"method": "offline"}',
      headers: json,
    }).then((response) => response.status),
  );
  if (analysis.result !== 201) throw new Error(`the 60 MB analysis answered ${analysis.result}`);
  results.push({
    name: `/api/health p99 during a ${(size / 1e6).toFixed(0)} MB trace's analysis`,
    values: [quantile(analysis.latencies, 0.99)],
    unit: 'ms',
    target: 50,
  });
  notes.push(
    `health during the 60 MB upload: p99 ${quantile(upload.latencies, 0.99).toFixed(1)} ms over ${upload.latencies.length} requests; during its analysis: p50 ${quantile(analysis.latencies, 0.5).toFixed(1)} ms, p99 ${quantile(analysis.latencies, 0.99).toFixed(1)} ms over ${analysis.latencies.length} requests`,
  );

  // 2. 500 upload+analysis pairs at concurrency 50.
  const example = JSON.parse(
    readFileSync(new URL('../examples/who-and-when-hc-6.json', import.meta.url), 'utf8'),
  ) as { history: { content: string }[] };
  const pairs = 500;
  const concurrency = 50;
  const pairTimes: number[] = [];
  const stored = new Set<string>();
  let retries = 0;
  let failures = 0;
  let next = 0;
  const worker = async () => {
    while (next < pairs) {
      const index = next;
      next += 1;
      const trace = structuredClone(example);
      trace.history[0]!.content += ` (load run ${index})`;
      const started = performance.now();
      const uploaded = await send(`/api/traces?name=load-${index}.json`, {
        method: 'POST',
        body: JSON.stringify(trace),
        headers: bytes,
      });
      retries += uploaded.retries;
      if (uploaded.response.status !== 201) {
        failures += 1;
        continue;
      }
      const { traces } = (await uploaded.response.json()) as { traces: { id: string }[] };
      const analysed = await send(`/api/traces/${traces[0]!.id}/analyses`, {
        method: 'POST',
        body: '{"method": "offline"}',
        headers: json,
      });
      retries += analysed.retries;
      await analysed.response.arrayBuffer();
      if (analysed.response.status !== 201) failures += 1;
      else stored.add(traces[0]!.id);
      pairTimes.push(performance.now() - started);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  const db = await openDatabase(join(home, 'faultline.db'));
  const inStore = await db.queries
    .selectFrom('traces')
    .innerJoin('analyses', 'analyses.trace_id', 'traces.id')
    .select((builder) => builder.fn.count<number>('traces.id').distinct().as('n'))
    .where('traces.name', 'like', 'load-%')
    .executeTakeFirstOrThrow();
  await db.close();
  const lost = pairs - inStore.n;
  results.push({
    name: `${pairs} upload+analysis pairs at concurrency ${concurrency}: pairs lost`,
    values: [lost + failures],
    unit: 'pairs',
    target: 0,
  });
  results.push({
    name: `${pairs} upload+analysis pairs at concurrency ${concurrency}: p99 of a pair`,
    values: [quantile(pairTimes, 0.99)],
    unit: 'ms',
    target: 2000,
  });
  notes.push(
    `${pairs} pairs in ${seconds.toFixed(1)} s: p50 ${quantile(pairTimes, 0.5).toFixed(0)} ms, p99 ${quantile(pairTimes, 0.99).toFixed(0)} ms; ${inStore.n} stored and analysed, ${failures} failed, ${retries} retries after 503`,
  );
} finally {
  await server.stop();
  rmSync(home, { recursive: true, force: true });
}
process.stdout.write(JSON.stringify({ results, notes }));
