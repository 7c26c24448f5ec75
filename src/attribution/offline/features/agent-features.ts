/**
 * Agent-level features: each agent's share of the step model's probability mass plus what kind of
 * agent it is, how it behaved, and how much of what it writes no one else writes (unshared.ts). A
 * second conditional logit over agents uses them, which names the responsible agent more accurately
 * than taking the agent of the single most likely step.
 */
import type { Step, Trace } from '../../../trace/model.js';
import { FEATURE_NAMES, type FeatureName } from './feature-names.js';
import type { UnsharedShares } from './unshared.js';

/** Agent feature names, in column order (the model file records them; see feature-names.ts). */
export const AGENT_FEATURE_NAMES = [
  'log_step_mass',
  'log_best_step',
  'step_share',
  'is_tool',
  'verifier',
  'web',
  'orchestrator',
  'assistant',
  'file',
  'code_share',
  'caused_tool_error',
  'spoke_first',
  'claims_share',
  'hedged',
  'first_position',
  'spoke_last',
  'second_actor',
  'unsupported_claims',
  'code_failed',
  'claimed_after_failure',
  'unshared_numbers',
  'unshared_words',
] as const;

/** An agent feature's name. */
export type AgentFeatureName = (typeof AGENT_FEATURE_NAMES)[number];

const column = (name: FeatureName) => {
  const index = FEATURE_NAMES.indexOf(name);
  if (index === -1) throw new Error(`agent features need step feature ${name}`);
  return index;
};

/** Agent features that summarise a step feature over the agent's steps: its most or its mean. */
const FROM_STEPS: readonly [AgentFeatureName, FeatureName, 'max' | 'mean'][] = [
  ['verifier', 'kind_verifier', 'max'],
  ['web', 'kind_web', 'max'],
  ['orchestrator', 'kind_orchestrator', 'max'],
  ['assistant', 'kind_assistant', 'max'],
  ['file', 'kind_file', 'max'],
  ['code_share', 'has_code', 'mean'],
  ['caused_tool_error', 'next_error', 'max'],
  ['spoke_first', 'first_actor', 'max'],
  ['claims_share', 'claim_without_tool', 'mean'],
  ['hedged', 'hedging', 'max'],
  ['spoke_last', 'last_substantive_step', 'max'],
  ['second_actor', 'actor_rank_1', 'max'],
  ['unsupported_claims', 'unsupported_claim', 'max'],
  ['code_failed', 'code_then_failure', 'max'],
  ['claimed_after_failure', 'claim_after_failure', 'max'],
];
const SUMMARIES = FROM_STEPS.map(([name, feature, how]) => ({
  name,
  column: column(feature),
  how,
}));

/** The indices of each agent's steps that `keep` accepts, agents in order of appearance. */
export function stepsByAgent(
  trace: Trace,
  keep: (step: Step, index: number) => boolean,
): Map<string, number[]> {
  const stepsOf = new Map<string, number[]>();
  trace.steps.forEach((step, index) => {
    if (!keep(step, index)) return;
    const indices = stepsOf.get(step.agent);
    if (indices) indices.push(index);
    else stepsOf.set(step.agent, [index]);
  });
  return stepsOf;
}

/**
 * The agents that may be blamed and their feature rows (one per agent, in order of appearance):
 * the speakers of the candidate steps, each summarised over those steps.
 */
export function computeAgentFeatures(
  trace: Trace,
  stepRows: readonly number[][],
  probabilities: readonly number[],
  mask: readonly boolean[],
  unshared: ReadonlyMap<string, UnsharedShares>,
): { agents: string[]; rows: number[][] } {
  const stepsOf = stepsByAgent(trace, (_, index) => mask[index]!);
  const count = Math.max(1, trace.steps.length);
  const agents: string[] = [];
  const rows: number[][] = [];
  for (const [agent, indices] of stepsOf) {
    const rowsOf = indices.map((index) => stepRows[index]!);
    const first = indices[0]!;
    const values: Partial<Record<AgentFeatureName, number>> = {
      log_step_mass: Math.log(
        indices.reduce((sum, index) => sum + probabilities[index]!, 0) + 1e-9,
      ),
      log_best_step: Math.log(Math.max(...indices.map((index) => probabilities[index]!)) + 1e-9),
      step_share: indices.length / count,
      is_tool: trace.steps[first]!.role === 'tool' ? 1 : 0,
      first_position: first / count,
      unshared_numbers: unshared.get(agent)?.numbers ?? 0,
      unshared_words: unshared.get(agent)?.words ?? 0,
    };
    for (const summary of SUMMARIES) {
      const column = rowsOf.map((row) => row[summary.column]!);
      values[summary.name] =
        summary.how === 'max'
          ? Math.max(...column)
          : column.reduce((sum, value) => sum + value, 0) / column.length;
    }
    agents.push(agent);
    rows.push(AGENT_FEATURE_NAMES.map((name) => values[name]!));
  }
  return { agents, rows };
}
