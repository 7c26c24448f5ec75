/**
 * Trains the offline model from labelled traces: the step scorer on every trace's steps, then the
 * agent scorer on agent features that include the step scorer's probabilities.
 * Deterministic: the same traces give the same file.
 */
import { responsibleAgents, sameAgent } from '../../trace/agents.js';
import { traceHash } from '../../trace/hash.js';
import type { Trace } from '../../trace/model.js';
import { AGENT_FEATURE_NAMES, computeAgentFeatures } from './agent-features.js';
import { fitConditionalLogit, type LabelledList } from './conditional-logit.js';
import { hasStepLabel, isLabelled, stepInputs, stepProbabilitiesOf } from './inputs.js';
import { FEATURE_NAMES } from './feature-names.js';
import { MODEL_FORMAT_VERSION, type OfflineModel } from './model.js';
import { DEFAULT_TRAIN_SETTINGS, type TrainSettings } from './settings.js';

export { DEFAULT_TRAIN_SETTINGS, type TrainSettings } from './settings.js';

/**
 * Trains both scorers on the labelled traces among `traces`: the step scorer on those with a step
 * label, the agent scorer on every trace that names its responsible agents.
 */
export function trainOfflineModel(
  traces: readonly Trace[],
  settings: TrainSettings = DEFAULT_TRAIN_SETTINGS,
  data: string[] = [],
): OfflineModel {
  const usable = traces.filter(isLabelled);
  const inputs = usable.map((trace) => stepInputs(trace));
  const stepLists: LabelledList[] = [];
  usable.forEach((trace, index) => {
    if (hasStepLabel(trace)) stepLists.push({ ...inputs[index]!, label: trace.labels!.step! });
  });
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
    const label = responsibleAgents(trace)
      .map((name) => agents.findIndex((agent) => sameAgent(agent, name)))
      .filter((found) => found !== -1);
    if (label.length > 0)
      agentLists.push({
        rows,
        mask: rows.map(() => true),
        label: label.length === 1 ? label[0]! : label,
      });
  });
  const agent = fitConditionalLogit(agentLists, AGENT_FEATURE_NAMES.length, {
    ...fit,
    l2: settings.agentL2,
  });

  return {
    formatVersion: MODEL_FORMAT_VERSION,
    step: { features: [...FEATURE_NAMES], ...step },
    agent: { features: [...AGENT_FEATURE_NAMES], ...agent },
    decoding: { agentWeight: settings.agentWeight, earliestShare: settings.earliestShare },
    training: {
      traces: usable.length,
      stepL2: settings.stepL2,
      agentL2: settings.agentL2,
      traceHashes: usable.map(traceHash).sort(),
      data,
    },
  };
}
