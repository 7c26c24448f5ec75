/**
 * A system's agent-name prior (`faultline train --base`): how often each of a system's agents was
 * to blame in its labelled runs, smoothed, and how much it moves the agent scorer's probabilities.
 * The log says what happened in a run; the prior says which of this team's agents usually fails.
 * Only names the labels contain are moved; any other agent keeps its share.
 */
import { sameAgent } from '../../../trace/agents.js';

/** The prior as stored in the model file (`system.agentPrior`). */
export interface AgentPrior {
  /** Agent names that took part in the labelled runs, as first spelled. */
  names: string[];
  /** Each name's smoothed rate of being responsible in a run it took part in. */
  rates: number[];
  /** The rate over all names: what an agent the labels do not contain is given. */
  base: number;
}

/**
 * What an adaptation may be, in the order preferred where leaving runs out cannot tell them apart:
 * the model blended with the record of who was blamed (weight 1), the model with its layer (rates
 * over the runs each agent took part in, weight chosen), the record alone (the model breaking its
 * ties), and the shipped model unchanged. Over seven systems with k = 20 (scripts/adaptation.ts)
 * this order beat the adapted layer first (+3.6 against +3.2 points over the better baseline) and
 * the record first (+2.9).
 */
export const ADAPTATION_CHOICES = ['blend', 'adapted', 'prior', 'shipped'] as const;
export type AdaptationChoice = (typeof ADAPTATION_CHOICES)[number];

/** The adaptation to one system: the prior and its weight against the agent scorer. */
export interface SystemLayer {
  agentPrior: AgentPrior;
  /** The exponent of (rate / base): 0 leaves the scorer's probabilities as they are. */
  weight: number;
  /** How many labelled runs of the system it was learned from. */
  runs: number;
  /** Which adaptation was chosen (train/system-layer.ts); absent in older files. */
  choice?: AdaptationChoice;
  /** Each adaptation's agent accuracy on the labelled runs, each left out in turn. */
  heldOut?: Record<AdaptationChoice, number>;
}

/** The prior's rate for an agent; the base rate for a name the labels do not contain. */
export function priorRate(prior: AgentPrior, agent: string): number {
  const index = prior.names.findIndex((name) => sameAgent(name, agent));
  return index === -1 ? prior.base : prior.rates[index]!;
}

/**
 * The agent scorer's probabilities moved by the prior: p(a) · (rate(a) / base)^weight,
 * renormalised, most likely first (ties keep the scorer's order).
 */
export function applyAgentPrior(
  agents: readonly { agent: string; probability: number }[],
  layer: SystemLayer,
): { agent: string; probability: number }[] {
  if (layer.weight === 0 || agents.length === 0) return [...agents];
  const { agentPrior: prior, weight } = layer;
  const logs = agents.map(
    ({ agent, probability }) =>
      Math.log(probability + 1e-12) + weight * Math.log(priorRate(prior, agent) / prior.base),
  );
  const top = Math.max(...logs);
  const scaled = logs.map((value) => Math.exp(value - top));
  const total = scaled.reduce((sum, value) => sum + value, 0);
  return agents
    .map(({ agent }, index) => ({ agent, probability: scaled[index]! / total, index }))
    .sort((left, right) => right.probability - left.probability || left.index - right.index)
    .map(({ agent, probability }) => ({ agent, probability }));
}
