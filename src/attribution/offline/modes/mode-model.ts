/**
 * The failure-mode classifiers as the model file stores them, and what they find in a run: one
 * logistic regression per MAST mode (logistic.ts) over run-level features (mode-features.ts), each
 * with its own decision threshold, and the same kind of classifier over per-agent features.
 * Training lives in mode-training.ts, so that attributing does not load it.
 */
import { z } from 'zod';
import { mastCode } from '../../../trace/mast.js';
import { foundMode } from '../../found-mode.js';
import type { Trace } from '../../../trace/model.js';
import type { AgentModes, FoundMode } from '../../method.js';
import { logisticProbability } from '../scores/logistic.js';
import { agentModeFeatures } from './mode-features.js';

export const modeModelSchema = z.object({
  features: z.array(z.string()),
  modes: z.array(
    z.object({
      code: z.string(),
      mean: z.array(z.number()),
      scale: z.array(z.number()),
      weights: z.array(z.number()),
      bias: z.number(),
      threshold: z.number(),
      /** Share of the training runs (or agents) labelled with the mode. */
      rate: z.number().min(0).max(1),
      /**
       * The named-or-not decision held out (out-of-fold probabilities, thresholds chosen on the
       * other folds): precision, recall and F1, and whether that F1 beats the constant answer's
       * (always naming the mode, F1 2·rate / (1 + rate); never naming it scores 0).
       */
      heldOut: z.object({
        precision: z.number(),
        recall: z.number(),
        f1: z.number(),
        beatsConstant: z.boolean(),
      }),
    }),
  ),
  /** The constant answer: the k most frequent modes of the training runs (k best on them). */
  baseline: z.array(z.string()),
  training: z.object({
    traces: z.number(),
    l2: z.number(),
    traceHashes: z.array(z.string()),
    data: z.array(z.string()),
  }),
});

/** A trained failure-mode classifier as stored in the model file. */
export type ModeModel = z.infer<typeof modeModelSchema>;

/**
 * The MAST modes a trace is labelled with: the run's own list, else the modes of its responsible
 * agents (injected faults); undefined when the trace says nothing about modes.
 */
export function labelledModes(trace: Trace): string[] | undefined {
  const labels = trace.labels;
  if (labels?.modes) return [...new Set(labels.modes.map((code) => mastCode(code) ?? code))];
  if (labels?.faults && labels.faults.length > 0)
    return [...new Set(labels.faults.map((fault) => mastCode(fault.mode) ?? fault.mode))];
  return undefined;
}

const round = (value: number) => Number(value.toFixed(4));

/**
 * Of the modes found, the one the blamed step does most to raise: the step's own feature values
 * through each mode's weights on the run's per-feature maxima, as if the step alone were the run's
 * maximum (mode-features.ts puts the maxima right after the means). Undefined when no found mode
 * is raised by the step.
 */
export function stepTiedMode(
  model: ModeModel,
  found: readonly FoundMode[],
  stepRow: readonly number[],
): FoundMode | undefined {
  const width = stepRow.length;
  let best: { mode: FoundMode; tie: number } | undefined;
  for (const mode of found) {
    const entry = model.modes.find((candidate) => candidate.code === mode.code);
    if (!entry) continue;
    let tie = 0;
    for (let column = 0; column < width; column += 1) {
      const at = width + column;
      tie += (entry.weights[at]! * (stepRow[column]! - entry.mean[at]!)) / entry.scale[at]!;
    }
    if (tie > 0 && (!best || tie > best.tie)) best = { mode, tie };
  }
  return best?.mode;
}

/** Most modes shown by default, per run and per agent. */
export const SHOWN_MODES = 3;

/**
 * Every mode above its threshold, each with its lift (probability ÷ the mode's training rate) and
 * whether it is shown by default: only modes whose held-out decision beats the constant answer
 * and that are more likely than usual, at most SHOWN_MODES of them, those most raised above their
 * usual rate. Shown modes come first,
 * by lift; the others follow, most confident first.
 */
export function predictModes(model: ModeModel, row: readonly number[]): FoundMode[] {
  return namedModes(model, modeProbabilities(model, row));
}

/** Every learned mode's probability for a feature row, by code. */
export function modeProbabilities(
  model: ModeModel,
  row: readonly number[],
): Record<string, number> {
  return Object.fromEntries(model.modes.map((mode) => [mode.code, logisticProbability(mode, row)]));
}

/** Probabilities rounded as results state them. */
export const roundedProbabilities = (probabilities: Record<string, number>) =>
  Object.fromEntries(Object.entries(probabilities).map(([code, value]) => [code, round(value)]));

/** The named modes of these probabilities, marked and ordered as predictModes says. */
export function namedModes(model: ModeModel, probabilities: Record<string, number>): FoundMode[] {
  const named: { found: FoundMode; lift: number; eligible: boolean }[] = [];
  for (const mode of model.modes) {
    const confidence = probabilities[mode.code] ?? 0;
    if (confidence < mode.threshold) continue;
    const lift = mode.rate > 0 ? confidence / mode.rate : 0;
    const found = foundMode(mode.code, round(confidence));
    if (found) named.push({ found, lift, eligible: mode.heldOut.beatsConstant && lift > 1 });
  }
  const shown = named
    .filter((entry) => entry.eligible)
    .sort(
      (left, right) => right.lift - left.lift || left.found.code.localeCompare(right.found.code),
    )
    .slice(0, SHOWN_MODES);
  const rest = named
    .filter((entry) => !shown.includes(entry))
    .sort(
      (left, right) =>
        right.found.confidence! - left.found.confidence! ||
        left.found.code.localeCompare(right.found.code),
    );
  return [
    ...shown.map((entry) => ({ ...entry.found, lift: round(entry.lift), shown: true })),
    ...rest.map((entry) => ({ ...entry.found, lift: round(entry.lift), shown: false })),
  ];
}

/**
 * Every agent's modes above their thresholds under the per-agent classifier, agents with a mode
 * only, the most confident agent first.
 */
export function predictAgentModes(
  model: ModeModel,
  trace: Trace,
  rows: readonly (readonly number[])[],
): AgentModes[] {
  const { agents, rows: agentRows } = agentModeFeatures(trace, rows);
  return agents
    .map((agent, index) => ({ agent, modes: predictModes(model, agentRows[index]!) }))
    .filter((entry) => entry.modes.length > 0)
    .sort((left, right) => topConfidence(right.modes) - topConfidence(left.modes));
}

/** The highest confidence among modes. */
function topConfidence(modes: readonly FoundMode[]): number {
  return Math.max(...modes.map((mode) => mode.confidence ?? 0));
}
