/**
 * The flags of `faultline train` as commander parses them, and what they set: the training
 * settings (each checked), where the model goes, and the fitting flags `--base` alone refuses.
 */
import { AGENT_FEATURE_NAMES } from '../../attribution/offline/features/agent-features.js';
import { FEATURE_NAMES } from '../../attribution/offline/features/feature-names.js';
import {
  DEFAULT_TRAIN_SETTINGS,
  type TrainSettings,
  type UnfamiliarStep,
} from '../../attribution/offline/model/settings.js';
import { UserError } from '../../errors.js';
import { nonNegativeNumber, share } from '../flag-values.js';
import type { FoldFlags } from '../fold-options.js';

export interface TrainFlags extends FoldFlags {
  data: string[];
  /** Where the model goes (default: outOf). */
  out?: string;
  modesData?: string[];
  cv?: boolean;
  loso?: boolean;
  /** true: the shipped model's training data; folders: those. */
  base?: true | string[];
  userWeight: string;
  balanceSystems?: boolean;
  dropFeatures?: string;
  stepL2: string;
  agentL2: string;
  agentWeight: string;
  earliestShare: string;
  unfamiliarAgentWeight: string;
  unfamiliarStep: UnfamiliarStep;
  unfamiliarRejectedShare: string;
}

/** The features named by `--drop-features`, each checked against the model's features. */
function featureList(value: string): string[] {
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const known = new Set<string>([...FEATURE_NAMES, ...AGENT_FEATURE_NAMES]);
  const unknown = names.filter((name) => !known.has(name));
  if (unknown.length > 0)
    throw new UserError(
      `--drop-features: unknown feature${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; the features are listed in models/offline-model.json (step.features, agent.features)`,
    );
  return names;
}

/** The training settings the flags give, each checked. */
export function settingsOf(flags: TrainFlags): TrainSettings {
  return {
    ...DEFAULT_TRAIN_SETTINGS,
    stepL2: nonNegativeNumber(flags.stepL2, '--step-l2'),
    agentL2: nonNegativeNumber(flags.agentL2, '--agent-l2'),
    agentWeight: nonNegativeNumber(flags.agentWeight, '--agent-weight'),
    earliestShare: share(flags.earliestShare, '--earliest-share', { aboveZero: true }),
    unfamiliarAgentWeight: nonNegativeNumber(
      flags.unfamiliarAgentWeight,
      '--unfamiliar-agent-weight',
    ),
    unfamiliarStep: flags.unfamiliarStep,
    unfamiliarRejectedShare: share(flags.unfamiliarRejectedShare, '--unfamiliar-rejected-share'),
    ...(flags.balanceSystems ? { balanceSystems: true } : {}),
    ...(flags.dropFeatures ? { dropFeatures: featureList(flags.dropFeatures) } : {}),
  };
}

/** Where the model goes: --out, else an adapted model beside you, never over the shipped one. */
export function outOf(flags: TrainFlags): string {
  return (
    flags.out ?? (flags.base !== undefined ? 'adapted-model.json' : 'models/offline-model.json')
  );
}

/** The flags that set how a model is fitted: `--base` alone fits nothing, so it refuses them. */
export function refuseFitFlags(flags: TrainFlags): void {
  const defaults = DEFAULT_TRAIN_SETTINGS;
  const set = [
    flags.modesData && '--modes-data',
    flags.userWeight !== '5' && '--user-weight',
    flags.balanceSystems && '--balance-systems',
    flags.dropFeatures && '--drop-features',
    flags.stepL2 !== String(defaults.stepL2) && '--step-l2',
    flags.agentL2 !== String(defaults.agentL2) && '--agent-l2',
    flags.agentWeight !== String(defaults.agentWeight) && '--agent-weight',
    flags.earliestShare !== String(defaults.earliestShare) && '--earliest-share',
    flags.unfamiliarAgentWeight !== String(defaults.unfamiliarAgentWeight) &&
      '--unfamiliar-agent-weight',
    flags.unfamiliarStep !== defaults.unfamiliarStep && '--unfamiliar-step',
    flags.unfamiliarRejectedShare !== String(defaults.unfamiliarRejectedShare) &&
      '--unfamiliar-rejected-share',
  ].filter((flag): flag is string => typeof flag === 'string');
  if (set.length > 0)
    throw new UserError(
      `${set.join(', ')}: --base alone adapts the shipped model without fitting it, so ${set.length === 1 ? 'this flag does' : 'these flags do'} nothing; name base folders (--base DIR...) to refit, or leave ${set.length === 1 ? 'it' : 'them'} out`,
    );
}
