/**
 * How sure the model was of a step, from the token log probabilities a recording or an importer
 * kept (`Step.logprobs`): the step's mean token probability (the geometric mean, e^mean) and its
 * least likely token. A step is marked low when either falls below its threshold; a run without
 * log probabilities shows nothing of this.
 */
import type { Step } from './api.js';

/** Below this mean token probability a step is marked low. */
export const LOW_MEAN = 0.5;
/** Below this probability of its least likely token a step is marked low. */
export const LOW_TOKEN = 0.1;

/** A step's confidence as the page shows it, or undefined for a step without log probabilities. */
export interface StepConfidence {
  /** Mean token probability, 0 to 1. */
  mean: number;
  low: boolean;
  /** The short text beside the step: `confidence 64%`. */
  text: string;
  /** The tooltip: the figures, the least likely tokens, and the thresholds. */
  title: string;
}

const percent = (value: number) =>
  value >= 0.995 ? '>99%' : value < 0.01 ? '<1%' : `${Math.round(value * 100)}%`;

/** The confidence of a step, where its source logged token log probabilities. */
export function stepConfidence(step: Step): StepConfidence | undefined {
  const logprobs = step.logprobs;
  if (!logprobs) return undefined;
  const mean = Math.exp(logprobs.mean);
  const least = Math.exp(logprobs.min);
  const low = mean < LOW_MEAN || least < LOW_TOKEN;
  const tokens = logprobs.lowest
    .slice(0, 3)
    .map((token) => `${JSON.stringify(token.token)} ${percent(Math.exp(token.logprob))}`)
    .join(', ');
  return {
    mean,
    low,
    text: `confidence ${percent(mean)}`,
    title: [
      `Mean token probability ${percent(mean)} over ${logprobs.tokens} tokens; least likely: ${tokens}.`,
      `Marked low when the mean is under ${percent(LOW_MEAN)} or a token is under ${percent(LOW_TOKEN)}: a sudden drop in the model's own confidence often marks where a run went wrong.`,
    ].join(' '),
  };
}
