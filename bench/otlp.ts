/**
 * Child process of the benchmark: live ingest under load, on loopback only, bounded in rate and
 * time. A load thread sends agent runs as OTLP/JSON exports (10 spans a run in GenAI conventions,
 * one run in ten failed, 500 spans an export as an SDK's batch processor sends them) at 5,000
 * spans per second for 60 s (`--seconds N` for a shorter check), retrying a 503 as exporters do,
 * and asks `/api/health` every 50 ms meanwhile. Measured: spans lost (sent but not accepted, or in
 * runs never stored; target 0), peak RSS of this process (server and load thread together), the
 * p99 of `/api/health` during ingest. Prints `{ results: [{ name, values, unit, target, higherIsBetter? }], notes }`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { startServer } from '../src/server/serve.js';
import type { LiveStats } from '../src/live/ingest.js';

const argument = (name: string, fallback: number) => {
  const index = process.argv.indexOf(name);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
};
const SECONDS = argument('--seconds', 60);
const SPANS_PER_SECOND = argument('--rate', 5000);
const SPANS_PER_RUN = 10;
const SPANS_PER_EXPORT = 500;

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));
const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};

/** The load thread: plain JavaScript, so it runs without the TypeScript loader. */
const LOAD = `
const { parentPort, workerData } = require('node:worker_threads');
const { randomBytes } = require('node:crypto');
const { url, seconds, rate, perRun, perExport } = workerData;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const text = (key, value) => ({ key, value: { stringValue: value } });
function run(index) {
  const traceId = randomBytes(16).toString('hex');
  const root = randomBytes(8).toString('hex');
  const failed = index % 10 === 0;
  const now = BigInt(Date.now()) * 1000000n;
  const spans = [];
  for (let step = 1; step < perRun; step += 1) {
    const tool = step % 3 === 0;
    spans.push({
      traceId, spanId: randomBytes(8).toString('hex'), parentSpanId: root,
      name: tool ? 'execute_tool search' : 'chat gpt-4o', kind: 1,
      startTimeUnixNano: String(now + BigInt(step) * 1000000n),
      endTimeUnixNano: String(now + BigInt(step) * 1000000n + 500000n),
      attributes: tool
        ? [text('gen_ai.operation.name', 'execute_tool'), text('gen_ai.tool.name', 'search'),
           text('gen_ai.tool.call.result', 'result ' + step)]
        : [text('gen_ai.operation.name', 'chat'), text('gen_ai.agent.name', step % 2 ? 'Planner' : 'Coder'),
           text('gen_ai.output.messages', JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'step ' + step + ' of run ' + index }] }]))],
      status: { code: failed && step === perRun - 1 ? 2 : 0 },
    });
  }
  spans.push({
    traceId, spanId: root, name: 'invoke_agent Team', kind: 1,
    startTimeUnixNano: String(now), endTimeUnixNano: String(now + 20000000n),
    attributes: [text('gen_ai.operation.name', 'invoke_agent'), text('gen_ai.agent.name', 'Team')],
    status: { code: failed ? 2 : 0 },
  });
  return spans;
}
async function send(body) {
  for (let retries = 0; ; retries += 1) {
    const response = await fetch(url + 'v1/traces', { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    await response.arrayBuffer();
    if (response.status === 200) return retries;
    if (response.status !== 503 || retries > 100) throw new Error('export answered ' + response.status);
    await sleep(1000);
  }
}
(async () => {
  const health = [];
  let stop = false;
  const pinger = (async () => {
    while (!stop) {
      const started = performance.now();
      await (await fetch(url + 'api/health')).arrayBuffer();
      health.push(performance.now() - started);
      await sleep(50);
    }
  })();
  const exportsPerSecond = rate / perExport;
  const total = Math.round(seconds * exportsPerSecond);
  const started = performance.now();
  let runs = 0, spans = 0, retries = 0, inFlight = [];
  for (let index = 0; index < total; index += 1) {
    const due = started + (index * 1000) / exportsPerSecond;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const batch = [];
    while (batch.length < perExport) { batch.push(...run(runs)); runs += 1; }
    spans += batch.length;
    const body = JSON.stringify({ resourceSpans: [{ resource: { attributes: [text('service.name', 'bench')] }, scopeSpans: [{ scope: { name: 'bench' }, spans: batch }] }] });
    inFlight.push(send(body).then((count) => { retries += count; }));
    if (inFlight.length > 64) { await Promise.all(inFlight); inFlight = []; }
  }
  await Promise.all(inFlight);
  const elapsed = (performance.now() - started) / 1000;
  stop = true;
  await pinger;
  parentPort.postMessage({ runs, spans, retries, elapsed, health });
})().catch((error) => parentPort.postMessage({ error: String(error) }));
`;

const home = mkdtempSync(join(tmpdir(), 'faultline-bench-otlp-'));
const results: {
  name: string;
  values: number[];
  unit: string;
  target: number;
  higherIsBetter?: boolean;
}[] = [];
const notes: string[] = [];
const server = await startServer({ home, host: '127.0.0.1', port: 0, workers: 1 });
let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 250);
try {
  const load = new Worker(LOAD, {
    eval: true,
    workerData: {
      url: server.state.url,
      seconds: SECONDS,
      rate: SPANS_PER_SECOND,
      perRun: SPANS_PER_RUN,
      perExport: SPANS_PER_EXPORT,
    },
  });
  const sent = await new Promise<{
    runs: number;
    spans: number;
    retries: number;
    elapsed: number;
    health: number[];
    error?: string;
  }>((resolve, reject) => {
    load.once('message', resolve);
    load.once('error', reject);
  });
  await load.terminate();
  if (sent.error) throw new Error(sent.error);
  // Every run completes a quiet period after its root span; then the queue drains.
  const stats = async () =>
    (await (await fetch(`${server.state.url}api/live`)).json()) as LiveStats;
  let live = await stats();
  const drainStarted = Date.now();
  while ((live.runsWaiting > 0 || live.runsQueued > 0) && Date.now() - drainStarted < 10 * 60_000) {
    await sleep(250);
    live = await stats();
  }
  const drainSeconds = (Date.now() - drainStarted) / 1000;
  const lost = sent.spans - live.spansAccepted + (sent.runs - live.runsStored) * SPANS_PER_RUN;
  const rate = sent.spans / sent.elapsed;
  results.push(
    { name: 'OTLP ingest: spans lost', values: [lost], unit: 'spans', target: 0 },
    {
      name: 'OTLP ingest: peak RSS (server and load thread)',
      values: [Math.round(peakRss / 1024 / 1024)],
      unit: 'MB',
      target: 1024,
    },
    {
      name: 'OTLP ingest: /api/health p99 during ingest',
      values: [Number(quantile(sent.health, 0.99).toFixed(1))],
      unit: 'ms',
      target: 50,
    },
    {
      name: 'OTLP ingest: spans per second sustained',
      values: [Math.round(rate)],
      unit: 'spans/s',
      target: SPANS_PER_SECOND,
      higherIsBetter: true,
    },
  );
  notes.push(
    `${sent.spans} spans in ${sent.runs} runs sent in ${sent.elapsed.toFixed(1)} s (${sent.retries} exports retried after 503); ${live.spansAccepted} accepted, ${live.runsStored} runs stored, ${live.runsFailedToStore} failed to store; the queue drained ${drainSeconds.toFixed(1)} s after the last export`,
  );
} finally {
  clearInterval(sampler);
  await server.stop();
  rmSync(home, { recursive: true, force: true });
}
process.stdout.write(`${JSON.stringify({ results, notes })}\n`);
