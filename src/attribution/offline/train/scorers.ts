/**
 * Trains the scorers of the model file from labelled traces: the step scorer on the traces that
 * label their decisive step, then the agent scorer, on every trace that names its responsible
 * agents, over agent features that include the step scorer's probabilities; with them the decoding
 * settings, the familiarity profiles and the provenance. The whole file is trainModelFile's
 * (train-model-file.ts). Deterministic: the same traces give the same part.
 */
import { responsibleAgents, sameAgent } from '../../../trace/agents.js';
import { traceHash } from '../../../trace/hash.js';
import type { Trace } from '../../../trace/model.js';
import { subsetOf } from '../../../trace/subset.js';
import { AGENT_FEATURE_NAMES, computeAgentFeatures } from '../features/agent-features.js';
import { fitConditionalLogit, type LabelledList } from './conditional-logit.js';
import { fitFamiliarity } from '../familiarity/familiarity.js';
import { FEATURE_NAMES } from '../features/feature-names.js';
import { hasStepLabel, isLabelled, stepInputs } from '../features/inputs.js';
import { stepProbabilitiesOf } from '../scores/scoring.js';
import { MODEL_FORMAT_VERSION, type OfflineModel } from '../model/model-file.js';
import { DEFAULT_TRAIN_SETTINGS, type TrainSettings } from '../model/settings.js';

/** Rows with the dropped features set to 0, so their weights stay 0. */
function dropColumns(rows: number[][], names: readonly string[], settings: TrainSettings) {
  const dropped = names
    .map((name, column) => (settings.dropFeatures?.includes(name) ? column : -1))
    .filter((column) => column !== -1);
  if (dropped.length === 0) return rows;
  return rows.map((row) => row.map((value, column) => (dropped.includes(column) ? 0 : value)));
}

/** Applies per-trace weights (a user's own runs counting more than the base data, say). */
function weigh(lists: (LabelledList & { trace: Trace })[], weightOf?: (trace: Trace) => number) {
  if (weightOf) for (const list of lists) list.weight = (list.weight ?? 1) * weightOf(list.trace);
}

/** Weights that give every system the same total say: lists of small systems count more. */
function balance(lists: (LabelledList & { trace: Trace })[]): void {
  const sizes = new Map<string, number>();
  for (const list of lists)
    sizes.set(subsetOf(list.trace), (sizes.get(subsetOf(list.trace)) ?? 0) + 1);
  for (const list of lists)
    list.weight = lists.length / (sizes.size * sizes.get(subsetOf(list.trace))!);
}

/**
 * The familiarity of the training runs with step labels, when some runs have none (section
 * `stepFamiliarity` of the model file): the earliest-step rule is decoded only for runs like those.
 */
function stepFamiliarityOf(
  usable: readonly Trace[],
  raw: readonly { rows: number[][] }[],
): Pick<OfflineModel, 'stepFamiliarity'> {
  const labelled = usable.flatMap((trace, index) => (hasStepLabel(trace) ? [index] : []));
  if (labelled.length === usable.length) return {};
  if (labelled.length === 0) return { stepFamiliarity: null };
  return {
    stepFamiliarity: fitFamiliarity(
      labelled.map((index) => usable[index]!),
      labelled.map((index) => raw[index]!.rows),
      subsetOf,
    ),
  };
}

/** The part of the model file the scorers make: everything but the modes and the calibration. */
export type ScorersPart = Omit<OfflineModel, 'modes' | 'agentModes' | 'calibration'>;

/**
 * Trains both scorers on the labelled traces among `traces`; `weightOf` says how much each trace
 * counts (default 1 each), e.g. a user's runs above the base data.
 */
export function trainScorers(
  traces: readonly Trace[],
  settings: TrainSettings = DEFAULT_TRAIN_SETTINGS,
  data: readonly string[] = [],
  weightOf?: (trace: Trace) => number,
): ScorersPart {
  const usable = traces.filter(isLabelled);
  const raw = usable.map((trace) => stepInputs(trace));
  const inputs = raw.map(({ rows, mask, unshared }) => ({
    rows: dropColumns(rows, FEATURE_NAMES, settings),
    mask,
    unshared,
  }));
  const stepLists: (LabelledList & { trace: Trace })[] = [];
  usable.forEach((trace, index) => {
    if (hasStepLabel(trace))
      stepLists.push({ ...inputs[index]!, label: trace.labels!.step!, trace });
  });
  if (settings.balanceSystems) balance(stepLists);
  weigh(stepLists, weightOf);
  const fit = { iterations: settings.iterations };
  const step = fitConditionalLogit(stepLists, FEATURE_NAMES.length, {
    ...fit,
    l2: settings.stepL2,
  });

  // The agent scorer sees the fitted step model's probabilities on the training traces. Cross-fitted
  // probabilities were tried and scored lower in nested cross-validation (docs/EXPERIMENTS.md).
  const agentLists: (LabelledList & { trace: Trace })[] = [];
  usable.forEach((trace, index) => {
    const { agents, rows } = computeAgentFeatures(
      trace,
      inputs[index]!.rows,
      stepProbabilitiesOf(step, inputs[index]!.rows, inputs[index]!.mask),
      inputs[index]!.mask,
      inputs[index]!.unshared,
    );
    // Every responsible agent is a right answer; each counts for an equal share.
    const label = responsibleAgents(trace)
      .map((name) => agents.findIndex((agent) => sameAgent(agent, name)))
      .filter((found) => found !== -1);
    if (label.length > 0)
      agentLists.push({
        rows: dropColumns(rows, AGENT_FEATURE_NAMES, settings),
        mask: rows.map(() => true),
        label: label.length === 1 ? label[0]! : label,
        trace,
      });
  });
  if (settings.balanceSystems) balance(agentLists);
  weigh(agentLists, weightOf);
  const agent = fitConditionalLogit(agentLists, AGENT_FEATURE_NAMES.length, {
    ...fit,
    l2: settings.agentL2,
  });

  return {
    formatVersion: MODEL_FORMAT_VERSION,
    step: { features: [...FEATURE_NAMES], ...step },
    agent: { features: [...AGENT_FEATURE_NAMES], ...agent },
    decoding: {
      agentWeight: settings.agentWeight,
      earliestShare: settings.earliestShare,
      ...(settings.unfamiliarAgentWeight !== undefined
        ? { unfamiliarAgentWeight: settings.unfamiliarAgentWeight }
        : {}),
      ...(settings.unfamiliarStep !== undefined ? { unfamiliarStep: settings.unfamiliarStep } : {}),
      ...(settings.unfamiliarRejectedShare !== undefined
        ? { unfamiliarRejectedShare: settings.unfamiliarRejectedShare }
        : {}),
    },
    familiarity: fitFamiliarity(
      usable,
      raw.map((input) => input.rows),
      subsetOf,
    ),
    ...stepFamiliarityOf(usable, raw),
    training: {
      traces: usable.length,
      stepL2: settings.stepL2,
      agentL2: settings.agentL2,
      traceHashes: usable.map(traceHash).sort(),
      data: [...data],
    },
  };
}
