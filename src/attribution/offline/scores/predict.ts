/**
 * Scores stage: the step scorer's probability that each step is the decisive one, then the agent
 * scorer's probability that each agent is responsible (its features include the step
 * probabilities). Both scorers are conditional logits stored in the model file.
 */
import type { Trace } from '../../../trace/model.js';
import type { AttributeOptions } from '../../method.js';
import { computeAgentFeatures } from '../features/agent-features.js';
import { attributionInputs } from '../features/inputs.js';
import type { RunFigures } from '../features/run-facts.js';
import type { OfflineModel } from '../model/model-file.js';
import { applyAgentPrior } from './agent-prior.js';
import { candidateAgents } from './candidate-agents.js';
import { scoreRows, softmax, stepProbabilitiesOf } from './scoring.js';

/** Everything the model concludes about a trace, before it is decoded and phrased. */
export interface OfflinePrediction {
  /** Feature rows of the steps. */
  rows: number[][];
  /** Probability that each step is the decisive one. */
  stepProbabilities: number[];
  /** Probability that each agent is responsible, most likely first (agents only, no tools). */
  agents: { agent: string; probability: number }[];
  /**
   * The agent scorer's probability of every speaker it scored, tools and placeholders included:
   * what a step's joint score reads (a tool's output may be the decisive step, blamed on its caller).
   */
  speakers: { agent: string; probability: number }[];
}

/** The prediction, with the run's figures as its rows read them (the reason's quotes read them). */
export function predict(
  trace: Trace,
  model: OfflineModel,
  options: AttributeOptions = {},
): OfflinePrediction & { figures: RunFigures } {
  const { rows, mask, unshared, figures } = attributionInputs(
    trace,
    options.useGroundTruth !== false,
  );
  const stepProbabilities = stepProbabilitiesOf(model.step, rows, mask);
  const agentInputs = computeAgentFeatures(trace, rows, stepProbabilities, mask, unshared);
  const agentProbabilities = softmax(
    scoreRows(model.agent, agentInputs.rows),
    agentInputs.rows.map(() => true),
  );
  const scored = agentInputs.agents
    .map((agent, index) => ({ agent, probability: agentProbabilities[index]! }))
    .sort((left, right) => right.probability - left.probability);
  // An adapted model moves them by what its system's labels say of each agent.
  // Only agents may be named: tools and placeholders leave the list (candidate-agents.ts).
  const speakers = model.system ? applyAgentPrior(scored, model.system) : scored;
  const agents = candidateAgents(trace, speakers);
  return { rows, stepProbabilities, agents, speakers, figures };
}

/** Scores a trace's steps and agents. */
export function predictOffline(
  trace: Trace,
  model: OfflineModel,
  options: AttributeOptions = {},
): OfflinePrediction {
  const { rows, stepProbabilities, agents, speakers } = predict(trace, model, options);
  return { rows, stepProbabilities, agents, speakers };
}
