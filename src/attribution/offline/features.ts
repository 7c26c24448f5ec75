/**
 * Per-step features of a canonical trace: a run-level pass (run-facts.ts) and then, for each step,
 * every feature family (feature-families.ts), laid out in the column order of feature-names.ts.
 * Every feature is a number that is defined for any importer's output, so the model degrades
 * gracefully where a format carries less. The model never sees ids, file names or the question
 * text itself, only derived quantities.
 */
import type { Trace } from '../../trace/model.js';
import { fillStepFeatures, type FeatureValues } from './feature-families.js';
import { FEATURE_NAMES } from './feature-names.js';
import { runFactsOf } from './run-facts.js';
import { hasCode } from './text-signals.js';

/** The feature matrix of a trace: one row per step, columns in FEATURE_NAMES order. */
export function computeFeatures(trace: Trace): number[][] {
  const run = runFactsOf(trace);
  const values = emptyValues();
  return trace.steps.map((step, index) => {
    const fact = run.facts[index]!;
    fillStepFeatures(
      {
        index,
        step,
        steps: trace.steps,
        fact,
        state: run.states[index]!,
        run,
        code: hasCode(fact.text),
      },
      values,
    );
    return FEATURE_NAMES.map((feature) => values[feature]);
  });
}

/** A values record with every feature at 0, so every family writes into one fixed shape. */
export function emptyValues(): FeatureValues {
  return Object.fromEntries(FEATURE_NAMES.map((name) => [name, 0])) as FeatureValues;
}

/** Steps that may be blamed: never the human asking. Falls back to all steps when none qualify. */
export function candidateMask(trace: Trace): boolean[] {
  const mask = trace.steps.map((step) => step.role !== 'human');
  return mask.some(Boolean) ? mask : trace.steps.map(() => true);
}
