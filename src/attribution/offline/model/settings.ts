/** Training settings of the offline model, apart from the trainer so the CLI starts light. */

/** Which of the named agent's steps an unfamiliar run reports (see TrainSettings). */
export const UNFAMILIAR_STEPS = ['first-failing', 'likeliest', 'rejected-else-likeliest'] as const;
export type UnfamiliarStep = (typeof UNFAMILIAR_STEPS)[number];

/** Training settings; the defaults are what the shipped model uses. */
export interface TrainSettings {
  stepL2: number;
  agentL2: number;
  /** Most Newton iterations per fit. */
  iterations: number;
  /** Weight of the agent scorer in each step's joint score p(step) · p(agent of the step)^w. */
  agentWeight: number;
  /**
   * The responsible agent is the speaker of the earliest step whose joint score is at least this
   * share of the top step's, and the reported step is that agent's most likely one (the decisive
   * error is the earliest; 1 reports the top step and its speaker).
   */
  earliestShare: number;
  /**
   * For a run unlike the training runs (familiarity.ts): the agent weight of its joint scores, and
   * the top step and its speaker are named, without the earliest-step rule, which encodes the
   * training systems (it held up in their cross-validation, not on unseen systems: docs/EXPERIMENTS.md).
   * Absent: unfamiliar runs are decoded like familiar ones.
   */
  unfamiliarAgentWeight?: number;
  /**
   * For a run unlike the step-labelled training runs: which of the named agent's steps is
   * reported: its first failing step (first-failing-step.ts), its most likely, or its first
   * rejected step where what follows rejects one and else its most likely
   * (`rejected-else-likeliest`). Held out one system at a time, the first failing step was right
   * more often on the two step-labelled systems, the most likely far more often on real runs of
   * two other systems; the blend keeps the first failing step only where a rejection shows it
   * (docs/MODEL.md, On systems it has never seen). Absent: the most likely.
   */
  unfamiliarStep?: UnfamiliarStep;
  /**
   * For a run unlike the training runs (`familiar: false`): of the agents at least this share as
   * likely as the most likely one (agent scorer), the one whose output what follows rejects first
   * is named (first-failing-step.ts), the decisive error being the earliest; where none has a
   * rejected step, the joint decoding's agent. Absent or 0: the joint decoding's agent always.
   */
  unfamiliarRejectedShare?: number;
  /**
   * Give every system (subset) an equal share of each fit, however many runs it has, so that one
   * large system does not decide what the model learns (default false).
   */
  balanceSystems?: boolean;
  /** Step and agent features left out of the fit (their weights stay 0). */
  dropFeatures?: readonly string[];
}

/** Fold seeds of the cross-validated figures (docs/MODEL.md); each seed is a full k-fold run. */
export const DEFAULT_FOLD_SEEDS: readonly number[] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];

export const DEFAULT_TRAIN_SETTINGS: TrainSettings = {
  stepL2: 0.2,
  agentL2: 0.1,
  iterations: 50,
  agentWeight: 0.5,
  earliestShare: 0.5,
  unfamiliarAgentWeight: 2,
  unfamiliarStep: 'rejected-else-likeliest',
  unfamiliarRejectedShare: 0.8,
};
