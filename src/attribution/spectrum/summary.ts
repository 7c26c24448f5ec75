/**
 * The spectrum as a verdict carries it (`Attribution.spectrum`): the runs compared, whether they
 * vary enough to conclude, and the failed run's most suspicious steps with their counts.
 */
import type { SpectrumResult, SuspiciousStep } from './types.js';

/** A spectrum analysis in brief. */
export interface SpectrumSummary {
  formula: string;
  runs: { failing: number; passing: number; unknown: number };
  conclusive: boolean;
  notes: string[];
  /** The failed run's most suspicious steps (at most five), with their units' counts. */
  steps: SuspiciousStep[];
  /** Agents by their most suspicious step, with that step's score. */
  agents: { agent: string; score: number }[];
}

/** The brief of a spectrum analysis. */
export function summariseSpectrum(result: SpectrumResult, steps = 5): SpectrumSummary {
  return {
    formula: result.formula,
    runs: result.runs,
    conclusive: result.conclusive,
    notes: result.notes,
    steps: result.failed.steps.slice(0, steps),
    agents: result.agents,
  };
}
