/**
 * Learning a system layer (scores/agent-prior.ts) from a few labelled runs of one system: each
 * agent's smoothed rate of being responsible in the runs it took part in, and the prior's weight
 * against the agent scorer, chosen by leaving each labelled run out in turn: the weight that names
 * the most held-out runs' agents right, the middle one of those tied (on a few runs many weights
 * tie; the smallest left the example team's adapted model below the agent most often blamed, the
 * largest cost the six held-out systems 2 points: docs/MODEL.md).
 */
import { onTeam, responsibleAgents, sameAgent } from '../../../trace/agents.js';
import { traceHash } from '../../../trace/hash.js';
import type { Trace } from '../../../trace/model.js';
import { namedAgentWithModel } from '../attribute/attributor.js';
import type { OfflineModel } from '../model/model-file.js';
import {
  ADAPTATION_CHOICES,
  type AdaptationChoice,
  type AgentPrior,
  type SystemLayer,
} from '../scores/agent-prior.js';

/** Bumped when how a layer is learned changes, so stored `offline-adapted` results are not reused. */
export const SYSTEM_LAYER_VERSION = 2;

/** Pseudo-runs at the base rate added to every name's count. */
export const PRIOR_SMOOTHING = 2;

/** The weights tried, from none (the scorer alone) to nearly the prior alone. */
export const PRIOR_WEIGHTS: readonly number[] = [0, 0.5, 1, 2, 4, 8, 1000];

/** Adds a name to a list unless an equal name (case and separators aside) is in it; its index. */
function indexOf(names: string[], name: string): number {
  const found = names.findIndex((known) => sameAgent(known, name));
  if (found !== -1) return found;
  names.push(name);
  return names.length - 1;
}

/**
 * Each agent's smoothed rate of being responsible, over the runs it took part in; `overAllRuns`:
 * over every labelled run instead (the record: how often each name was blamed, whoever took part).
 */
export function learnAgentPrior(
  runs: readonly Trace[],
  smoothing = PRIOR_SMOOTHING,
  overAllRuns = false,
): AgentPrior | undefined {
  const names: string[] = [];
  const present: number[] = [];
  const blamed: number[] = [];
  for (const run of runs) {
    const responsible = responsibleAgents(run);
    if (responsible.length === 0) continue;
    const taking = new Set<number>();
    for (const step of run.steps) if (onTeam(step)) taking.add(indexOf(names, step.agent));
    const guilty = new Set(responsible.map((agent) => indexOf(names, agent)));
    for (const index of new Set([...taking, ...guilty])) {
      present[index] = (present[index] ?? 0) + 1;
      if (guilty.has(index)) blamed[index] = (blamed[index] ?? 0) + 1;
    }
  }
  if (overAllRuns) {
    const labelled = runs.filter((run) => responsibleAgents(run).length > 0).length;
    names.forEach((_, index) => (present[index] = labelled));
  }
  const seen = present.reduce((sum, count) => sum + (count ?? 0), 0);
  if (seen === 0) return undefined;
  const base = blamed.reduce((sum, count) => sum + (count ?? 0), 0) / seen;
  const rates = names.map(
    (_, index) => ((blamed[index] ?? 0) + smoothing * base) / ((present[index] ?? 0) + smoothing),
  );
  const round = (value: number) => Number(value.toFixed(6));
  return { names, rates: rates.map(round), base: round(base) };
}

/** Whether a model names one of a run's responsible agents. */
export function namesRight(run: Trace, model: OfflineModel): boolean {
  const named = namedAgentWithModel(run, model);
  return named !== null && responsibleAgents(run).some((agent) => sameAgent(agent, named));
}

/**
 * The system layer for `model` learned from labelled runs of one system, its weight chosen by
 * leave-one-run-out; undefined when the runs name no responsible agent.
 */
export function fitSystemLayer(
  model: OfflineModel,
  runs: readonly Trace[],
  weights: readonly number[] = PRIOR_WEIGHTS,
): SystemLayer | undefined {
  const labelled = runs.filter((run) => responsibleAgents(run).length > 0);
  const agentPrior = learnAgentPrior(labelled);
  if (!agentPrior) return undefined;
  const { system: _system, ...base } = model;
  const right = weights.map(() => 0);
  labelled.forEach((run, held) => {
    const prior = learnAgentPrior(labelled.filter((_, index) => index !== held));
    weights.forEach((weight, index) => {
      const layered = prior
        ? { ...base, system: { agentPrior: prior, weight, runs: labelled.length - 1 } }
        : base;
      if (namesRight(run, layered)) right[index]! += 1;
    });
  });
  const best = Math.max(...right);
  // Where leaving runs out cannot tell weights apart, the middle one of those tied.
  const tied = weights.filter((_, index) => right[index] === best);
  const weight = tied[Math.floor((tied.length - 1) / 2)]!;
  return { agentPrior, weight, runs: labelled.length };
}

/** The record's weight in the blend of the model and the record. */
export const BLEND_WEIGHT = 1;
/** The record's weight where it alone names the agent (the model breaking its ties). */
export const RECORD_WEIGHT = 1000;

/** Each choice's layer learned from labelled runs (none for the shipped model). */
function layerOf(
  choice: AdaptationChoice,
  base: OfflineModel,
  runs: readonly Trace[],
): SystemLayer | undefined {
  if (choice === 'shipped') return undefined;
  if (choice === 'adapted') return fitSystemLayer(base, runs);
  const record = learnAgentPrior(runs, PRIOR_SMOOTHING, true);
  if (!record) return undefined;
  const weight = choice === 'blend' ? BLEND_WEIGHT : RECORD_WEIGHT;
  return { agentPrior: record, weight, runs: runs.length };
}

/**
 * The system layer chosen for `base` by leaving each labelled run out in turn among the adapted
 * model (its layer and weight learned from the other runs), the blend of the model with the
 * record of who was blamed, the record alone (`prior`) and the shipped model: the one naming the
 * most left-out runs' agents right (ties in ADAPTATION_CHOICES' order), learned from all the runs,
 * with each one's held-out accuracy. An adapted model cannot then lose to its own record on the
 * runs it was given (issue 53). Undefined when the runs name no responsible agent.
 */
export function chooseSystemLayer(
  base: OfflineModel,
  runs: readonly Trace[],
): SystemLayer | undefined {
  const labelled = runs.filter((run) => responsibleAgents(run).length > 0);
  const agentPrior = learnAgentPrior(labelled);
  if (!agentPrior) return undefined;
  const right = new Map<AdaptationChoice, number>(ADAPTATION_CHOICES.map((choice) => [choice, 0]));
  labelled.forEach((run, held) => {
    const others = labelled.filter((_, index) => index !== held);
    for (const choice of ADAPTATION_CHOICES) {
      const layer = layerOf(choice, base, others);
      if (namesRight(run, layer ? { ...base, system: layer } : base))
        right.set(choice, right.get(choice)! + 1);
    }
  });
  const best = Math.max(...right.values());
  const choice = ADAPTATION_CHOICES.find((option) => right.get(option) === best)!;
  const layer = layerOf(choice, base, labelled) ?? { agentPrior, weight: 0, runs: labelled.length };
  const share = (option: AdaptationChoice) =>
    Number((right.get(option)! / labelled.length).toFixed(4));
  return {
    ...layer,
    choice,
    heldOut: {
      adapted: share('adapted'),
      blend: share('blend'),
      prior: share('prior'),
      shipped: share('shipped'),
    },
  };
}

/**
 * `model` adapted to labelled runs of one system: its system layer chosen and learned from them
 * (any layer it had is dropped first), and the runs recorded as trained on (their content hashes,
 * so evaluation leaves them out, and `data`, where they came from). Without a responsible agent in
 * the runs, the model without a layer.
 */
export function adaptModel(
  model: OfflineModel,
  runs: readonly Trace[],
  data: readonly string[] = [],
): OfflineModel {
  const { system: _system, ...base } = model;
  const system = chooseSystemLayer(base, runs);
  if (!system) return base;
  return {
    ...base,
    system,
    training: {
      ...base.training,
      traceHashes: [...base.training.traceHashes, ...runs.map(traceHash)].sort(),
      data: [...base.training.data, ...data],
    },
  };
}
