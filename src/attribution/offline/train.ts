/**
 * Trains the offline model from labelled traces: the step scorer on every trace's steps, then the
 * agent scorer on agent features that include the step scorer's probabilities.
 * Deterministic: the same traces give the same file.
 */
import { sameAgent } from '../../trace/agents.js';
import { traceHash } from '../../trace/hash.js';
import type { Trace } from '../../trace/model.js';
import { AGENT_FEATURE_NAMES, computeAgentFeatures } from './agent-features.js';
import {
  fitConditionalLogit,
  scoreRows,
  softmax,
  type LabelledList,
  type LinearScorer,
} from './conditional-logit.js';
import { FEATURE_NAMES, candidateMask, computeFeatures } from './features.js';
import { MODEL_FORMAT_VERSION, type OfflineModel } from './model.js';

/** Training settings; the defaults are what the shipped model uses. */
export interface TrainSettings {
  stepL2: number;
  agentL2: number;
  /** Most Newton iterations per fit. */
  iterations: number;
}

export const DEFAULT_TRAIN_SETTINGS: TrainSettings = { stepL2: 0.2, agentL2: 0.1, iterations: 50 };

/** True when a trace has a step label inside the trace and an agent label. */
export function isTrainable(trace: Trace): boolean {
  const step = trace.labels?.step;
  return (
    step !== undefined &&
    Number.isInteger(step) &&
    step >= 0 &&
    step < trace.steps.length &&
    Boolean(trace.labels?.agent)
  );
}

/** A trace's step rows and candidate mask; `useGroundTruth: false` hides the expected answer. */
export function stepInputs(
  trace: Trace,
  useGroundTruth = true,
): { rows: number[][]; mask: boolean[] } {
  const view =
    useGroundTruth || trace.groundTruth === undefined
      ? trace
      : { ...trace, groundTruth: undefined };
  return { rows: computeFeatures(view as Trace), mask: candidateMask(trace) };
}

/** Step probabilities under a step scorer. */
export function stepProbabilitiesOf(
  scorer: LinearScorer,
  rows: number[][],
  mask: boolean[],
): number[] {
  return softmax(scoreRows(scorer, rows), mask);
}

/** Trains both scorers on the trainable traces among `traces`. */
export function trainOfflineModel(
  traces: readonly Trace[],
  settings: TrainSettings = DEFAULT_TRAIN_SETTINGS,
  data: string[] = [],
): OfflineModel {
  const usable = traces.filter(isTrainable);
  const inputs = usable.map((trace) => stepInputs(trace));
  const stepLists: LabelledList[] = usable.map((trace, index) => ({
    ...inputs[index]!,
    label: trace.labels!.step!,
  }));
  const fit = { iterations: settings.iterations };
  const step = fitConditionalLogit(stepLists, FEATURE_NAMES.length, {
    ...fit,
    l2: settings.stepL2,
  });

  // The agent scorer sees the fitted step model's probabilities on the training traces. Cross-fitted
  // probabilities were tried and scored lower in nested cross-validation (docs/MODEL.md).
  const agentLists: LabelledList[] = [];
  usable.forEach((trace, index) => {
    const { agents, rows } = computeAgentFeatures(
      trace,
      inputs[index]!.rows,
      stepProbabilitiesOf(step, inputs[index]!.rows, inputs[index]!.mask),
    );
    const label = agents.findIndex((agent) => sameAgent(agent, trace.labels!.agent!));
    if (label !== -1) agentLists.push({ rows, mask: rows.map(() => true), label });
  });
  const agent = fitConditionalLogit(agentLists, AGENT_FEATURE_NAMES.length, {
    ...fit,
    l2: settings.agentL2,
  });

  return {
    formatVersion: MODEL_FORMAT_VERSION,
    step: { features: [...FEATURE_NAMES], ...step },
    agent: { features: [...AGENT_FEATURE_NAMES], ...agent },
    training: {
      traces: usable.length,
      stepL2: settings.stepL2,
      agentL2: settings.agentL2,
      traceHashes: usable.map(traceHash).sort(),
      data,
    },
  };
}
