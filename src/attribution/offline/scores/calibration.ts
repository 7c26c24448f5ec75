/**
 * Stated confidences: Platt mappings, σ(a · logit(p) + b), turn the scorers' raw probabilities into
 * stated ones (train/calibrate.ts fits them on held-out predictions; decoding applies them).
 */

import type { StatementFit } from './statement.js';

/** A Platt mapping of a raw probability. */
export interface Platt {
  a: number;
  b: number;
}

/** The mappings of agent and step confidence, for familiar and for unfamiliar runs. */
export interface ConfidenceCalibration {
  familiar: { agent: Platt; step: Platt };
  unfamiliar: {
    agent: Platt;
    step: Platt;
    /**
     * How often the named step, the first other candidate and the second were the labelled step of
     * held-out runs (stated in that order in an unfamiliar run, in place of the step mapping).
     * Absent in older model files and where fewer than ten held-out runs had a step label.
     */
    stepByRank?: number[];
    /**
     * The lowest and highest share of right answers among the held-out systems whose runs the
     * agent confidence of unfamiliar runs was fitted on; absent where fewer than two systems had
     * enough such runs.
     */
    agentRange?: [number, number];
    /**
     * The stated agent and named-step confidence of an unfamiliar run, without and with a clear
     * favourite (the runner-up agent at most half as likely as the most likely one): the low end
     * of what held-out systems support, moved by the least the signal moved accuracy on any of
     * them (train/calibrate.ts). Absent in older model files: `agent` and `stepByRank` state them.
     */
    agentByEvidence?: [number, number];
    stepByEvidence?: [number, number];
    /** The lowest and highest share of named steps that were right on held-out systems. */
    stepRange?: [number, number];
    /**
     * The named agent's and named step's figure fitted on what the run shows (issue 53;
     * train/statement-fit.ts), in place of `agentByEvidence` and `stepByEvidence` where present.
     */
    agentFit?: StatementFit;
    stepFit?: StatementFit;
  };
}

/** The identity mapping (raw scores as they are). */
export const IDENTITY: Platt = { a: 1, b: 0 };

const EPSILON = 1e-6;
/** Log-odds of a probability, clipped away from 0 and 1. */
export const logit = (p: number) => {
  const clipped = Math.min(1 - EPSILON, Math.max(EPSILON, p));
  return Math.log(clipped / (1 - clipped));
};

/** A raw probability through a Platt mapping. */
export function applyPlatt(probability: number, platt: Platt): number {
  return 1 / (1 + Math.exp(-(platt.a * logit(probability) + platt.b)));
}
