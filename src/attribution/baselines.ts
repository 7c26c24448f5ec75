/**
 * Baselines every evaluation reports next to real methods, computed by the same code:
 * the first step by a non-tool, non-human agent; always the most frequent agent of a labelled set;
 * and the expected accuracy of a uniform random guess.
 */
import type { Trace } from '../trace/model.js';
import { NO_USAGE, type Attribution, type AttributionMethod } from './method.js';

/** Index of the first step spoken by an agent (not a tool, the human or the system); 0 if none. */
export function firstAgentStep(trace: Trace): number {
  const index = trace.steps.findIndex((step) => step.role === 'agent');
  return index === -1 ? 0 : index;
}

/** The simplest honest method: blame the first agent step. */
export const firstAgentMethod: AttributionMethod = {
  name: 'first-agent',
  description: 'baseline: the first step by a non-tool, non-human agent',
  async attribute(trace) {
    const step = firstAgentStep(trace);
    const agent = trace.steps[step]?.agent ?? 'unknown';
    const result: Attribution = {
      agent,
      step,
      reason: `Baseline: step ${step} is the first step by an agent (${agent}); no evidence was weighed.`,
      method: 'first-agent',
      usage: { ...NO_USAGE },
    };
    return result;
  },
};

/** Steps a random guess would pick among: every step spoken by an agent (all steps if none). */
export function randomCandidates(trace: Trace): number[] {
  const agentSteps = trace.steps.filter((step) => step.role === 'agent').map((step) => step.index);
  return agentSteps.length > 0 ? agentSteps : trace.steps.map((step) => step.index);
}

/**
 * Exact expected accuracy of a uniform random guess over the candidate steps (step level) and
 * over the distinct agents among them (agent level). No sampling: the expectation is computed.
 */
export function randomExpectation(trace: Trace): { agent: number; step: number } {
  const candidates = randomCandidates(trace);
  const labels = trace.labels;
  const stepHit =
    labels?.step !== undefined && candidates.includes(labels.step) ? 1 / candidates.length : 0;
  const agents = [...new Set(candidates.map((index) => trace.steps[index]!.agent.toLowerCase()))];
  const agentHit =
    labels?.agent !== undefined && agents.includes(labels.agent.toLowerCase())
      ? 1 / agents.length
      : 0;
  return { agent: agentHit, step: stepHit };
}

/** The agent named most often as responsible in a labelled set (ties: first in name order). */
export function mostFrequentAgent(traces: readonly Trace[]): string | undefined {
  const counts = new Map<string, number>();
  for (const trace of traces) {
    const agent = trace.labels?.agent;
    if (agent) counts.set(agent, (counts.get(agent) ?? 0) + 1);
  }
  return [...counts.entries()].sort(
    (left, right) => right[1] - left[1] || left[0].localeCompare(right[0]),
  )[0]?.[0];
}
