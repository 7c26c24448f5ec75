/**
 * Child process of the benchmark: imports one large trace and reports time and peak memory as
 * JSON on stdout. Run alone so its resident memory is the import's own.
 */
import { performance } from 'node:perf_hooks';
import { loadTrace } from '../src/trace/load.js';

const file = process.argv[2]!;
const started = performance.now();
const trace = await loadTrace(file);
const seconds = (performance.now() - started) / 1000;
process.stdout.write(
  JSON.stringify({
    steps: trace.steps.length,
    seconds,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
  }),
);
