/**
 * Agent-level features: each agent's share of the step model's probability mass plus what kind of
 * agent it is and how it behaved. A second conditional logit over agents uses them, which names the
 * responsible agent more accurately than taking the agent of the single most likely step.
 */
import type { Trace } from '../../trace/model.js';
import { FEATURE_NAMES, type FeatureName } from './feature-names.js';

/** Agent feature names, in column order. */
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
] as const;

const column = (name: FeatureName) => {
  const index = FEATURE_NAMES.indexOf(name);
  if (index === -1) throw new Error(`agent features need step feature ${name}`);
  return index;
};

/** The agents that may be blamed and their feature rows (one per agent, in order of appearance). */
export function computeAgentFeatures(
  trace: Trace,
  stepRows: readonly number[][],
  probabilities: readonly number[],
): { agents: string[]; rows: number[][] } {
  const columns = {
    verifier: column('kind_verifier'),
    web: column('kind_web'),
    orchestrator: column('kind_orchestrator'),
    assistant: column('kind_assistant'),
    file: column('kind_file'),
    code: column('has_code'),
    nextError: column('next_error'),
    firstActor: column('first_actor'),
    claim: column('claim_without_tool'),
    hedging: column('hedging'),
    last: column('last_substantive_step'),
    second: column('actor_rank_1'),
    unsupported: column('unsupported_claim'),
    codeFailed: column('code_then_failure'),
    afterFailure: column('claim_after_failure'),
  };
  const stepsOf = new Map<string, number[]>();
  trace.steps.forEach((step, index) => {
    if (step.role === 'human') return;
    if (!stepsOf.has(step.agent)) stepsOf.set(step.agent, []);
    stepsOf.get(step.agent)!.push(index);
  });
  const count = Math.max(1, trace.steps.length);
  const agents: string[] = [];
  const rows: number[][] = [];
  for (const [agent, indices] of stepsOf) {
    const rowsOf = indices.map((index) => stepRows[index]!);
    const max = (feature: number) => Math.max(...rowsOf.map((row) => row[feature]!));
    const share = (feature: number) =>
      rowsOf.reduce((sum, row) => sum + row[feature]!, 0) / rowsOf.length;
    const mass = indices.reduce((sum, index) => sum + probabilities[index]!, 0);
    const best = Math.max(...indices.map((index) => probabilities[index]!));
    agents.push(agent);
    rows.push([
      Math.log(mass + 1e-9),
      Math.log(best + 1e-9),
      indices.length / count,
      trace.steps[indices[0]!]!.role === 'tool' ? 1 : 0,
      max(columns.verifier),
      max(columns.web),
      max(columns.orchestrator),
      max(columns.assistant),
      max(columns.file),
      share(columns.code),
      max(columns.nextError),
      max(columns.firstActor),
      share(columns.claim),
      max(columns.hedging),
      indices[0]! / count,
      max(columns.last),
      max(columns.second),
      max(columns.unsupported),
      max(columns.codeFailed),
      max(columns.afterFailure),
    ]);
  }
  return { agents, rows };
}
