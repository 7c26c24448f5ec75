/**
 * The decoding regimes, chosen once per run by how the run compares with the training runs
 * (familiarity/): each says how the two scorers are combined and which rules name the agent and
 * the step. The rules tuned on the step-labelled training systems (the earliest-step rule) held
 * up in their cross-validation, not on unseen systems, so runs unlike those are decoded without
 * them (model/settings.ts documents each setting; docs/EXPERIMENTS.md what was measured).
 */
import type { Trace } from '../../../trace/model.js';
import { isFamiliar, lookOf, type FamiliarityModel } from '../familiarity/familiarity.js';
import type { OfflineModel } from '../model/model-file.js';

/** How a run is decoded. */
export interface DecodingRegime {
  /** `familiar`, `unlike-step-labelled` (familiar, but unlike the step-labelled runs), `unfamiliar`. */
  name: 'familiar' | 'unlike-step-labelled' | 'unfamiliar';
  /** Whether the run looks like the training runs: picks the calibration that states confidences. */
  familiar: boolean;
  /** Weight w of the agent scorer in each step's joint score p(step) · p(agent of the step)^w. */
  agentWeight: number;
  /**
   * The named agent speaks the earliest step scoring at least this share of the top step (1: the
   * top step's speaker).
   */
  earliestShare: number;
  /**
   * Of the agents at least this share as likely as the most likely, the one whose output is
   * rejected first is named; undefined: the joint decoding's agent.
   */
  rejectedShare: number | undefined;
  /** The named agent's first failing step is reported rather than its most likely one. */
  firstFailing: boolean;
  /** Only where that step is a rejected one (what follows rejects it); else the most likely. */
  rejectedOnly?: boolean;
}

/** The regime of a run under a model, from the run's rows (familiarity/). */
export function regimeOf(trace: Trace, rows: number[][], model: OfflineModel): DecodingRegime {
  const look = lookOf(trace, rows);
  const familiar = isFamiliar(look, model.familiarity, knownNames(model.familiarity));
  // A run like agent-labelled training runs only is still unlike the step-labelled ones.
  const { stepFamiliarity } = model;
  const likeStepLabelled =
    familiar &&
    (stepFamiliarity === undefined ||
      (stepFamiliarity !== null && isFamiliar(look, stepFamiliarity, knownNames(stepFamiliarity))));
  return likeStepLabelled
    ? familiarRegime(model)
    : familiar
      ? unlikeStepLabelledRegime(model)
      : unfamiliarRegime(model);
}

/** A run like the step-labelled training runs: the joint decoding with the earliest-step rule. */
function familiarRegime({ decoding }: OfflineModel): DecodingRegime {
  return {
    name: 'familiar',
    familiar: true,
    agentWeight: decoding.agentWeight,
    earliestShare: decoding.earliestShare,
    rejectedShare: undefined,
    firstFailing: false,
  };
}

/**
 * The weights of a run unlike the step-labelled training runs: the unfamiliar agent weight and the
 * top step, where the model sets one (else as familiar runs).
 */
function unlikeWeights({ decoding }: OfflineModel) {
  const unfamiliarWeight = decoding.unfamiliarAgentWeight;
  return {
    agentWeight: unfamiliarWeight ?? decoding.agentWeight,
    earliestShare: unfamiliarWeight === undefined ? decoding.earliestShare : 1,
    firstFailing: decoding.unfamiliarStep !== undefined && decoding.unfamiliarStep !== 'likeliest',
    rejectedOnly: decoding.unfamiliarStep === 'rejected-else-likeliest',
  };
}

/** A run like the training runs but unlike those with step labels. */
function unlikeStepLabelledRegime(model: OfflineModel): DecodingRegime {
  return {
    name: 'unlike-step-labelled',
    familiar: true,
    ...unlikeWeights(model),
    rejectedShare: undefined,
  };
}

/** A run unlike the training runs: also the agent rejected first among the nearly most likely. */
function unfamiliarRegime(model: OfflineModel): DecodingRegime {
  const share = model.decoding.unfamiliarRejectedShare;
  return {
    name: 'unfamiliar',
    familiar: false,
    ...unlikeWeights(model),
    rejectedShare: share === undefined || share === 0 ? undefined : share,
  };
}

const nameSets = new WeakMap<FamiliarityModel, Set<string>>();

/** A familiarity model's known name words as a set, made once per model. */
function knownNames(familiarity: FamiliarityModel): Set<string> {
  let names = nameSets.get(familiarity);
  if (!names) nameSets.set(familiarity, (names = new Set(familiarity.names)));
  return names;
}
