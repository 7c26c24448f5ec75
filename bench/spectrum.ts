/**
 * Child process of the benchmark: spectrum analysis (src/attribution/spectrum/) over 21 runs of
 * one task of 100 steps each, the size of FAMAS's repeats. The runs are made from the longest
 * Magentic-One run of the shared Who&When data (its steps cycled to 100), each run with its numbers
 * changed, one step in five reworded, and one run in three passing, so that units must be matched
 * across runs as in real repeats. Measured: the analysis, units and all (target 1 s); and the
 * combined verdict of each failed run in turn over the same runs, as `faultline attribute FOLDER`
 * gives them (units cut once for the task, target 1.5 s for the 14). Prints
 * `{ results: [{ name, values, unit, target }], notes }`.
 */
import { join } from 'node:path';
import { createCombinedMethod } from '../src/attribution/spectrum/combined.js';
import { analyseSpectrum } from '../src/attribution/spectrum/rank.js';
import { buildTrace } from '../src/trace/build-trace.js';
import { expandPaths, loadTrace } from '../src/trace/load.js';
import type { Trace } from '../src/trace/model.js';
import { ROOT } from '../test/paths.js';

const RUNS = 21;
const STEPS = 100;

const files = await expandPaths([join(ROOT, '../shared/datasets/who-and-when/Hand-Crafted')]);
let longest: Trace | undefined;
for (const file of files) {
  const trace = await loadTrace(file);
  if (!longest || trace.steps.length > longest.steps.length) longest = trace;
}
const source = longest!;

/** Run `index`: the source's steps cycled to 100, numbers shifted, some steps reworded. */
function repeat(index: number): Trace {
  return buildTrace({
    id: `run-${index}`,
    format: 'bench',
    ...(source.question ? { question: source.question } : {}),
    outcome: index % 3 === 0 ? 'success' : 'failure',
    steps: Array.from({ length: STEPS }, (_, position) => {
      const step = source.steps[position % source.steps.length]!;
      let content = step.content.replace(/\d+/g, (digits) => String(Number(digits) + index));
      if ((position + index) % 5 === 0) content = `Next, ${content.split(' ').reverse().join(' ')}`;
      return { speaker: step.speaker, role: step.role, content };
    }),
  });
}

const runs = Array.from({ length: RUNS }, (_, index) => repeat(index));
analyseSpectrum(runs); // warm-up: module loading and JIT, not measured
const seconds: number[] = [];
let units = 0;
for (let round = 0; round < 7; round += 1) {
  const started = performance.now();
  units = analyseSpectrum(runs).units.length;
  seconds.push((performance.now() - started) / 1000);
}
// Each failed run's combined verdict in turn, one method and one run list (`attribute FOLDER`).
const failedRuns = runs.filter((run) => run.outcome === 'failure');
const inTurn: number[] = [];
for (let round = 0; round < 3; round += 1) {
  const combined = createCombinedMethod();
  const started = performance.now();
  for (const run of failedRuns) await combined.attribute(run, { runs });
  inTurn.push((performance.now() - started) / 1000);
}
process.stdout.write(
  `${JSON.stringify({
    results: [
      {
        name: `spectrum over ${RUNS} runs of ${STEPS} steps`,
        values: seconds,
        unit: 's',
        target: 1,
      },
      {
        name: `combined verdicts of the ${failedRuns.length} failed runs of those ${RUNS}, in turn`,
        values: inTurn,
        unit: 's',
        target: 1.5,
      },
    ],
    notes: [
      `spectrum: ${RUNS} runs of ${STEPS} steps made from ${source.source ?? source.id} (${source.steps.length} steps), ${units} units ranked`,
    ],
  })}\n`,
);
