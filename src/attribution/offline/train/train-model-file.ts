/**
 * The one function that trains the whole model file (docs/MODEL-FORMAT.md) from labelled runs:
 * the step and agent scorers with their decoding settings and familiarity profiles (scorers.ts),
 * the failure-mode classifiers, run-level and per agent (modes/mode-training.ts), and the
 * calibration of stated confidences (calibrate.ts). `faultline train`, cross-validation,
 * leave-one-system-out, the calibration's own held-out models and the modes evaluation all call
 * it; a part they do not need is left out through `parts`.
 */
import type { Trace } from '../../../trace/model.js';
import type { OfflineModel } from '../model/model-file.js';
import { DEFAULT_TRAIN_SETTINGS, type TrainSettings } from '../model/settings.js';
import { AGENT_MODE_FEATURE_NAMES } from '../modes/mode-features.js';
import type { ModeModel } from '../modes/mode-model.js';
import {
  DEFAULT_MODE_SETTINGS,
  modeTrainingExamples,
  trainModeModel,
  type ModeTrainSettings,
} from '../modes/mode-training.js';
import { calibrationFor } from './calibrate.js';
import { trainScorers, type ScorersPart } from './scorers.js';

/** The learned parts of a model file. */
export type ModelPart = 'scorers' | 'modes' | 'calibration';

/** Every part, the default. */
export const MODEL_PARTS: readonly ModelPart[] = ['scorers', 'modes', 'calibration'];

/** Fewest mode-labelled runs (and runs that label faults per agent) a mode classifier learns from. */
export const MIN_MODE_RUNS = 20;

/** The failure-mode classifiers' training runs. */
export interface ModeTraining {
  /** Runs labelled with MAST modes (others are skipped). */
  runs: readonly Trace[];
  /** Where they came from, as recorded in the file. */
  data?: readonly string[];
  settings?: ModeTrainSettings;
  /**
   * Fewest mode-labelled runs for the run-level classifier, and fewest runs labelling faults per
   * agent for the per-agent one (default MIN_MODE_RUNS).
   */
  minRuns?: number;
}

/** What `trainModelFile` trains, and how. */
export interface TrainModelOptions {
  /** Scorer and decoding settings (default: the shipped model's). */
  settings?: TrainSettings;
  /** How much each run counts in the scorers and their calibration (default 1 each). */
  weightOf?: (trace: Trace) => number;
  /** Where the runs came from, as recorded in the file. */
  data?: readonly string[];
  /** Runs for the failure-mode classifiers; without them the file names no modes. */
  modes?: ModeTraining;
  /** The parts to train (default all); a model trained inside a fold needs only some. */
  parts?: readonly ModelPart[];
  /**
   * A model whose parts stand in for those not trained here: a part left out of `parts`, or the
   * mode classifiers when too few runs are labelled with modes (`faultline train --base` keeps the
   * shipped model's).
   */
  keep?: OfflineModel;
  /** Told before each lengthy part is trained, with how many runs it learns from. */
  onPart?: (part: 'modes' | 'agent-modes' | 'scorers' | 'calibration', runs: number) => void;
}

/** The mode classifiers of the file, or undefined when too few runs are labelled with modes. */
function trainModes(
  training: ModeTraining,
  onPart: TrainModelOptions['onPart'],
): Pick<OfflineModel, 'modes' | 'agentModes'> | undefined {
  const minimum = training.minRuns ?? MIN_MODE_RUNS;
  const examples = modeTrainingExamples(training.runs);
  if (examples.runs.length < minimum || examples.runs.length === 0) return undefined;
  const data = [...(training.data ?? [])];
  const settings = training.settings ?? DEFAULT_MODE_SETTINGS;
  onPart?.('modes', examples.runs.length);
  const modes = trainModeModel(examples.runs, data, settings);
  if (examples.agentRuns < minimum || examples.agents.length === 0) return { modes };
  onPart?.('agent-modes', examples.agentRuns);
  const agentModes: ModeModel = trainModeModel(
    examples.agents,
    data,
    settings,
    AGENT_MODE_FEATURE_NAMES,
  );
  return { modes, agentModes };
}

/** The kept model's parts other than the modes and the calibration. */
function keptScorers(keep: OfflineModel | undefined): ScorersPart {
  if (!keep)
    throw new TypeError('trainModelFile: the scorers were not trained and no model keeps them');
  const { modes: _modes, agentModes: _agentModes, calibration: _calibration, ...scorers } = keep;
  return scorers;
}

/**
 * Trains the model file on labelled runs (those naming a responsible agent; the step scorer learns
 * from those that label their decisive step): the object `faultline train` writes as JSON.
 * Deterministic: the same runs and options give the same file, byte for byte.
 */
export function trainModelFile(
  runs: readonly Trace[],
  options: TrainModelOptions = {},
): OfflineModel {
  const parts = new Set(options.parts ?? MODEL_PARTS);
  const settings = options.settings ?? DEFAULT_TRAIN_SETTINGS;
  const trained =
    parts.has('modes') && options.modes ? trainModes(options.modes, options.onPart) : undefined;
  const modes = trained ?? (options.keep?.modes ? pickModes(options.keep) : undefined);
  if (parts.has('scorers')) options.onPart?.('scorers', runs.length);
  const scorers = parts.has('scorers')
    ? trainScorers(runs, settings, options.data, options.weightOf)
    : keptScorers(options.keep);
  // The calibration's held-out models are the scorers alone, trained as these were.
  const trainScorersOnly = (fold: readonly Trace[]) =>
    trainModelFile(fold, {
      settings,
      ...(options.weightOf ? { weightOf: options.weightOf } : {}),
      parts: ['scorers'],
    });
  if (parts.has('calibration')) options.onPart?.('calibration', runs.length);
  const calibration = parts.has('calibration')
    ? calibrationFor(runs, trainScorersOnly)
    : options.keep?.calibration;
  return {
    ...scorers,
    ...(modes?.modes ? { modes: modes.modes } : {}),
    ...(modes?.agentModes ? { agentModes: modes.agentModes } : {}),
    ...(calibration ? { calibration } : {}),
  };
}

/** A model's mode classifiers, run-level and per agent. */
function pickModes(model: OfflineModel): Pick<OfflineModel, 'modes' | 'agentModes'> {
  return {
    ...(model.modes ? { modes: model.modes } : {}),
    ...(model.agentModes ? { agentModes: model.agentModes } : {}),
  };
}
