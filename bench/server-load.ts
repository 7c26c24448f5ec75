/**
 * Child process of the benchmark: the server under load, on loopback only, bounded in count and
 * time, on the SQLite store and, when a PostgreSQL server can be started here (as the tests start
 * one, test/postgres-server.ts), on PostgreSQL too, in one process one after the other
 * (bench/server-load-run.ts is one run). Prints JSON on stdout:
 * `{ results: [{ name, values, unit, target }], notes: [...] }`.
 *
 * Per store: `/api/health` p99 during a 60 MB trace's analysis and during the pairs (under 50 ms:
 * the work runs in worker threads), 500 upload+analysis pairs at concurrency 50 with nothing lost
 * (counted in the database the server used) and the p99 of a pair. Then PostgreSQL/SQLite ratios
 * of the pairs' wall time (at most 1.2) and p99.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPostgres } from '../test/postgres-server.js';
import { generateTrace } from './generate-trace.js';
import { quantile, runLoad, type LoadFigures } from './server-load-run.js';

const PAIRS = 500;
const CONCURRENCY = 50;

const results: { name: string; values: number[]; unit: string; target: number }[] = [];
const notes: string[] = [];
const pairsName = `${PAIRS} upload+analysis pairs at concurrency ${CONCURRENCY}`;

/** The results and the note of one store's run. */
function report(store: string, figures: LoadFigures, sizeMb: number): void {
  const p99 = quantile(figures.pairTimes, 0.99);
  results.push(
    {
      name: `${store}: /api/health p99 during a ${sizeMb} MB trace's analysis`,
      values: [quantile(figures.healthDuringAnalysis, 0.99)],
      unit: 'ms',
      target: 50,
    },
    {
      name: `${store}: /api/health p99 during the ${PAIRS} pairs`,
      values: [quantile(figures.healthDuringPairs, 0.99)],
      unit: 'ms',
      target: 50,
    },
    {
      name: `${store}: ${pairsName}: pairs lost`,
      values: [figures.lost + figures.failures],
      unit: 'pairs',
      target: 0,
    },
    { name: `${store}: ${pairsName}: p99 of a pair`, values: [p99], unit: 'ms', target: 2000 },
  );
  notes.push(
    `${store}: ${PAIRS} pairs in ${figures.seconds.toFixed(2)} s: p50 ${quantile(figures.pairTimes, 0.5).toFixed(0)} ms, p99 ${p99.toFixed(0)} ms; ${figures.stored} stored and analysed in its database, ${figures.failures} failed, ${figures.retries} retries after 503; health p99 ${quantile(figures.healthDuringPairs, 0.99).toFixed(1)} ms during the pairs (${figures.healthDuringPairs.length} requests), ${quantile(figures.healthDuringUpload, 0.99).toFixed(1)} ms during the ${sizeMb} MB upload, ${quantile(figures.healthDuringAnalysis, 0.99).toFixed(1)} ms during its analysis, ${quantile(figures.healthIdle, 0.99).toFixed(1)} ms idle between the two`,
  );
}

const folder = mkdtempSync(join(tmpdir(), 'faultline-bench-load-'));
const largeFile = join(folder, 'large-60mb.json');
try {
  const sizeMb = Math.round((await generateTrace(largeFile, 65_000)) / 1e6);
  const load = { largeFile, pairs: PAIRS, concurrency: CONCURRENCY };
  const sqlite = await runLoad(load);
  report('SQLite', sqlite, sizeMb);
  const postgres = await startPostgres();
  if ('skip' in postgres) notes.push(`PostgreSQL not measured: ${postgres.skip}`);
  else {
    try {
      const figures = await runLoad({
        ...load,
        databaseUrl: await postgres.createDatabase('load'),
      });
      report('PostgreSQL', figures, sizeMb);
      const ratio = figures.seconds / sqlite.seconds;
      const p99Ratio = quantile(figures.pairTimes, 0.99) / quantile(sqlite.pairTimes, 0.99);
      results.push({
        name: `PostgreSQL/SQLite: ${pairsName}: wall time ratio`,
        values: [ratio],
        unit: 'x',
        target: 1.2,
      });
      notes.push(
        `PostgreSQL/SQLite: ${PAIRS} pairs ${figures.seconds.toFixed(2)} s / ${sqlite.seconds.toFixed(2)} s = ${ratio.toFixed(2)}; p99 of a pair ${p99Ratio.toFixed(2)}`,
      );
    } finally {
      await postgres.stop();
    }
  }
} finally {
  rmSync(folder, { recursive: true, force: true });
}
process.stdout.write(JSON.stringify({ results, notes }));
