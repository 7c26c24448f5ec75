/**
 * `npm run bench`: speed and memory against the targets in the issues, as medians of repeated
 * runs and ratios to each target (these machines are shared and noisy: read ratios, not digits).
 * Writes bench/out/results.json.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import {
  attributeWithModel,
  loadOfflineModel,
} from '../src/attribution/offline/attribute/attributor.js';
import { expandPaths, loadTrace } from '../src/trace/load.js';
import type { Trace } from '../src/trace/model.js';
import { DEFAULT_WEB_ROOT } from '../src/server/app.js';
import { startServer } from '../src/server/serve.js';
import { browserUnavailable, launchBrowser } from '../test/browser.js';
import { generateTrace } from './generate-trace.js';
import { measureLargeStep } from './large-step.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DATA = join(ROOT, '../shared/datasets/who-and-when');
const OUT = join(ROOT, 'bench/out');
const median = (values: number[]) =>
  [...values].sort((left, right) => left - right)[Math.floor(values.length / 2)]!;

interface Result {
  name: string;
  median: number;
  unit: string;
  target: number;
  /** measured / target for "less is better", target / measured for throughput: ≤ 1 meets it. */
  ratio: number;
  runs: number;
}
const results: Result[] = [];
const record = (
  name: string,
  values: number[],
  unit: string,
  target: number,
  higherIsBetter = false,
) => {
  const value = median(values);
  // A target of zero (nothing lost) is met by zero alone.
  const ratio =
    target === 0
      ? value === 0
        ? 0
        : Number.POSITIVE_INFINITY
      : higherIsBetter
        ? target / value
        : value / target;
  results.push({
    name,
    median: Number(value.toFixed(3)),
    unit,
    target,
    ratio: Number(ratio.toFixed(3)),
    runs: values.length,
  });
};

async function loadAll(files: string[]): Promise<Trace[]> {
  const traces: Trace[] = [];
  for (const file of files) traces.push(await loadTrace(file));
  return traces;
}

mkdirSync(OUT, { recursive: true });
if (!existsSync(DATA)) throw new Error(`benchmark data not found: ${DATA}`);
const files = await expandPaths([DATA]);
await loadAll(files); // warm-up: module loading and JIT, not measured

const importTimes: number[] = [];
for (let round = 0; round < 7; round += 1) {
  const started = performance.now();
  await loadAll(files);
  importTimes.push((performance.now() - started) / 1000);
}
record(`import + normalise ${files.length} Who&When traces`, importTimes, 's', 1);

const traces = await loadAll(files);
const model = loadOfflineModel();
// Warm-up: V8 is still optimising the hot functions during the first passes (a single warm-up
// pass left the next rounds about 15% slower than the steady state a long batch runs at).
for (let pass = 0; pass < 5; pass += 1)
  for (const trace of traces) attributeWithModel(trace, model);
const throughput: number[] = [];
for (let round = 0; round < 11; round += 1) {
  const started = performance.now();
  for (const trace of traces) attributeWithModel(trace, model);
  throughput.push(traces.length / ((performance.now() - started) / 1000));
}
record('offline attribution throughput', throughput, 'traces/s', 1000, true);

const cli = join(ROOT, 'dist/cli/index.js');
if (existsSync(cli)) {
  const wall: number[] = [];
  for (let round = 0; round < 7; round += 1) {
    const started = performance.now();
    execFileSync(
      process.execPath,
      [cli, 'attribute', join(ROOT, 'examples/who-and-when-hc-6.json'), '--json'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    wall.push((performance.now() - started) / 1000);
  }
  record('faultline attribute, one trace, incl. Node start-up', wall, 's', 0.5);
} else {
  process.stderr.write('skipping the CLI wall-time benchmark: run `npm run build` first\n');
}

if (existsSync(cli)) {
  // `faultline eval` of the offline model on the shared traces, start-up included; a fresh store
  // each time so nothing is resumed.
  const evalTimes: number[] = [];
  for (let round = 0; round < 3; round += 1) {
    const home = join(OUT, `eval-home-${round}`);
    rmSync(home, { recursive: true, force: true });
    const started = performance.now();
    execFileSync(process.execPath, [cli, 'eval', DATA, '--method', 'offline', '--include-train'], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, FAULTLINE_HOME: home },
    });
    evalTimes.push((performance.now() - started) / 1000);
    rmSync(home, { recursive: true, force: true });
  }
  record(`faultline eval --method offline on ${files.length} traces`, evalTimes, 's', 5);
}

if (!browserUnavailable() && existsSync(DEFAULT_WEB_ROOT)) {
  // The page with a 130-step trace: navigation until every step is on screen.
  const longest = [...traces].sort((left, right) => right.steps.length - left.steps.length)[0]!;
  const home = join(OUT, 'page-home');
  rmSync(home, { recursive: true, force: true });
  const server = await startServer({ home, host: '127.0.0.1', port: 0 });
  const browser = await launchBrowser();
  const pageTimes: number[] = [];
  const longRun = join(OUT, 'page-2000.json');
  await generateTrace(longRun, 2000);
  const verdictTimes: number[] = [];
  try {
    for (let round = 0; round < 5; round += 1) {
      const page = await browser.newPage();
      const started = performance.now();
      await page.goto(server.state.url);
      await page.setInputFiles('#file', longest.source!);
      await page
        .locator('article.step')
        .nth(longest.steps.length - 1)
        .waitFor();
      pageTimes.push((performance.now() - started) / 1000);
      await page.close();
    }
    // A 2,000-step run: from choosing the file to the verdict on screen (upload, render, attribute).
    for (let round = 0; round < 5; round += 1) {
      const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
      await page.goto(server.state.url);
      await page.locator('.examples button').first().waitFor();
      const started = performance.now();
      await page.setInputFiles('#file', longRun);
      await page.waitForURL(/\/traces\//);
      await page.click('#run');
      await page.locator('article.step.blamed').waitFor({ state: 'visible' });
      verdictTimes.push((performance.now() - started) / 1000);
      await page.close();
    }
  } finally {
    await browser.close();
    await server.stop();
    rmSync(home, { recursive: true, force: true });
  }
  record(`page: open, upload and render a ${longest.steps.length}-step trace`, pageTimes, 's', 1);
  record('page: 2,000-step run, file to verdict on screen', verdictTimes, 's', 1.5);
} else {
  process.stderr.write(
    'skipping the page benchmark: needs /usr/bin/chromium and `npm run build`\n',
  );
}

const large = join(OUT, 'large-100k.json');
const bytes = await generateTrace(large, 100_000);
const largeRuns: { seconds: number; maxRssMb: number }[] = [];
for (let round = 0; round < 3; round += 1) {
  const output = execFileSync(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'bench/import-large.ts'), large],
    { encoding: 'utf8', maxBuffer: 1 << 20 },
  );
  largeRuns.push(JSON.parse(output) as { seconds: number; maxRssMb: number });
}
record(
  `import 100,000-step trace (${(bytes / 1e6).toFixed(0)} MB)`,
  largeRuns.map((run) => run.seconds),
  's',
  5,
);
record(
  'peak resident memory, 100,000-step import',
  largeRuns.map((run) => run.maxRssMb),
  'MB',
  1536,
);

// A 200 MB trace whose one step holds nearly all of it: peak memory of `faultline attribute`.
const largeStep = await measureLargeStep(200, 3);
record(
  `peak resident memory, attribute a ${(largeStep.bytes / 1e6).toFixed(0)} MB one-step trace`,
  largeStep.runs.map((run) => run.maxRssMb),
  'MB',
  1024,
);

// Child benchmarks, each in a process of its own so its figures are its own: the server under load,
// the recording proxy and OTLP ingest (loopback only, bounded). Each prints { results, notes } as JSON.
const notes: string[] = [];
for (const script of [
  'bench/server-load.ts',
  'bench/proxy.ts',
  'bench/otlp.ts',
  'bench/spectrum.ts',
]) {
  const output = execFileSync(process.execPath, ['--import', 'tsx', join(ROOT, script)], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  const child = JSON.parse(output) as {
    results: {
      name: string;
      values: number[];
      unit: string;
      target: number;
      higherIsBetter?: boolean;
    }[];
    notes: string[];
  };
  for (const result of child.results)
    record(result.name, result.values, result.unit, result.target, result.higherIsBetter);
  notes.push(...child.notes);
}

writeFileSync(
  join(OUT, 'results.json'),
  `${JSON.stringify({ node: process.version, date: new Date().toISOString(), results, notes }, null, 2)}\n`,
);
const width = Math.max(...results.map((result) => result.name.length));
for (const result of results) {
  const verdict = result.ratio <= 1 ? 'meets target' : 'MISSES target';
  process.stdout.write(
    `${result.name.padEnd(width)}  median ${String(result.median).padStart(9)} ${result.unit.padEnd(8)} target ${result.target} ${result.unit}  ratio ${result.ratio.toFixed(2)}  ${verdict}  (${result.runs} runs)\n`,
  );
}
for (const note of notes) process.stdout.write(`note: ${note}\n`);
