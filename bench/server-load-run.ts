/**
 * One run of the server under load on one store (bench/server-load.ts runs it on SQLite and on
 * PostgreSQL): a server on loopback with that store, in a process of its own (server-child.ts), then
 *
 * 1. a large trace uploaded and analysed while `/api/health` is asked every 20 ms;
 * 2. `pairs` upload+analysis pairs at concurrency `concurrency`, each trace distinct, while
 *    `/api/health` is asked every 20 ms; a 503 is retried after its Retry-After. What was stored
 *    is counted in the database the server used.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { databaseLocation } from '../src/config.js';
import { openDatabase } from '../src/store/database.js';

/** What one run measured. */
export interface LoadFigures {
  /** Health latencies (ms) of the idle server, between the large trace and the pairs. */
  healthIdle: number[];
  /** The large trace's analysis: health latencies (ms) while it ran. */
  healthDuringAnalysis: number[];
  healthDuringUpload: number[];
  /** The pairs: wall time (s), each pair's time (ms), health latencies (ms) meanwhile. */
  seconds: number;
  pairTimes: number[];
  healthDuringPairs: number[];
  /** Pairs acknowledged but not found stored with an analysis, and pairs refused for good. */
  lost: number;
  failures: number;
  retries: number;
  stored: number;
}

/** The value at quantile `q` (0–1) of `values`. */
export const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};
const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

const json = { 'content-type': 'application/json' };
const bytes = { 'content-type': 'application/octet-stream' };

/**
 * The health probe: a thread of its own that asks /api/health every 20 ms until told to stop and
 * answers with the latencies, so that what it measures is the server, not this process's event
 * loop, busy with the load's fifty clients.
 */
const PROBE = `
const { parentPort, workerData } = require('node:worker_threads');
const { performance } = require('node:perf_hooks');
let stopped = false;
parentPort.once('message', () => { stopped = true; });
(async () => {
  // A first request loads fetch in this thread: not counted.
  await (await fetch(workerData.url)).arrayBuffer();
  const latencies = [];
  const deadline = performance.now() + 300000;
  while (!stopped && performance.now() < deadline) {
    const started = performance.now();
    const response = await fetch(workerData.url);
    await response.arrayBuffer();
    latencies.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  parentPort.postMessage(latencies);
})();
`;

/** Asks /api/health every 20 ms until `work` settles; resolves with its result and the latencies. */
async function healthDuring<Result>(base: string, work: Promise<Result>) {
  const probe = new Worker(PROBE, { eval: true, workerData: { url: `${base}/api/health` } });
  const answered = once(probe, 'message') as Promise<[number[]]>;
  try {
    const result = await work;
    probe.postMessage('stop');
    const [latencies] = await answered;
    return { result, latencies };
  } finally {
    await probe.terminate();
  }
}

/** Sends a request, retrying a 503 after its Retry-After (at most 50 times). */
async function send(base: string, path: string, init: RequestInit) {
  for (let retries = 0; ; retries += 1) {
    const response = await fetch(`${base}${path}`, init);
    if (response.status !== 503 || retries >= 50) return { response, retries };
    await response.arrayBuffer();
    await sleep(Number(response.headers.get('retry-after') ?? '1') * 1000);
  }
}

/** The large trace uploaded and analysed, with health asked meanwhile. */
async function largeTrace(base: string, largeFile: string) {
  const body = readFileSync(largeFile);
  const upload = await healthDuring(
    base,
    fetch(`${base}/api/traces?name=large.json`, { method: 'POST', body, headers: bytes }).then(
      async (response) => (await response.json()) as { traces: { id: string }[] },
    ),
  );
  const analysis = await healthDuring(
    base,
    fetch(`${base}/api/traces/${upload.result.traces[0]!.id}/analyses`, {
      method: 'POST',
      body: '{"method": "offline"}',
      headers: json,
    }).then((response) => response.status),
  );
  if (analysis.result !== 201) throw new Error(`the large analysis answered ${analysis.result}`);
  return { upload: upload.latencies, analysis: analysis.latencies };
}

/** The pairs, `concurrency` at a time; resolves with their times and counts. */
async function loadPairs(base: string, pairs: number, concurrency: number) {
  const example = JSON.parse(
    readFileSync(new URL('../examples/who-and-when-hc-6.json', import.meta.url), 'utf8'),
  ) as { history: { content: string }[] };
  const pairTimes: number[] = [];
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
      const uploaded = await send(base, `/api/traces?name=load-${index}.json`, {
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
      const analysed = await send(base, `/api/traces/${traces[0]!.id}/analyses`, {
        method: 'POST',
        body: '{"method": "offline"}',
        headers: json,
      });
      retries += analysed.retries;
      await analysed.response.arrayBuffer();
      if (analysed.response.status !== 201) failures += 1;
      pairTimes.push(performance.now() - started);
    }
  };
  const started = performance.now();
  const { latencies } = await healthDuring(
    base,
    Promise.all(Array.from({ length: concurrency }, worker)),
  );
  const seconds = (performance.now() - started) / 1000;
  return { seconds, pairTimes, retries, failures, health: latencies };
}

/** Pairs stored with an analysis, counted in the database at `target`. */
async function storedPairs(target: string): Promise<number> {
  const db = await openDatabase(target);
  try {
    const row = await db.queries
      .selectFrom('traces')
      .innerJoin('analyses', 'analyses.trace_id', 'traces.id')
      .select((builder) => builder.fn.count<number>('traces.id').distinct().as('n'))
      .where('traces.name', 'like', 'load-%')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  } finally {
    await db.close();
  }
}

/** Runs the load on a server whose store is `databaseUrl` (default: the home's SQLite file). */
export async function runLoad(options: {
  databaseUrl?: string;
  largeFile: string;
  pairs: number;
  concurrency: number;
}): Promise<LoadFigures> {
  const home = mkdtempSync(join(tmpdir(), 'faultline-bench-server-'));
  const { databaseUrl } = options;
  const server = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('server-child.ts', import.meta.url)), home].concat(
      databaseUrl ? [databaseUrl] : [],
    ),
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const exited = once(server, 'exit');
  try {
    const [line] = (await once(createInterface({ input: server.stdout }), 'line')) as [string];
    const base = line.replace(/\/$/, '');
    const large = await largeTrace(base, options.largeFile);
    // The machine's own noise: health asked for two seconds while the server has nothing to do
    // (after the large trace, when the worker threads have loaded).
    const idle = await healthDuring(base, sleep(2_000));
    const load = await loadPairs(base, options.pairs, options.concurrency);
    const stored = await storedPairs(databaseLocation(home, databaseUrl));
    return {
      healthIdle: idle.latencies,
      healthDuringUpload: large.upload,
      healthDuringAnalysis: large.analysis,
      seconds: load.seconds,
      pairTimes: load.pairTimes,
      healthDuringPairs: load.health,
      lost: options.pairs - load.failures - stored,
      failures: load.failures,
      retries: load.retries,
      stored,
    };
  } finally {
    server.stdin.end();
    await exited;
    rmSync(home, { recursive: true, force: true });
  }
}
