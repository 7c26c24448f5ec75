/**
 * Which speakers may be named responsible: agents only. A tool (its steps are tool outputs), a
 * placeholder such as `(no agent)` (spans outside any agent) and any other parenthesised name are
 * never a candidate while a real agent is; the agent scorer's probabilities are renormalised over
 * the agents that stay, so a run with one agent beside its user, tools and placeholders names it
 * (issue 53: a smolagents run listed `final_answer` and `(no agent)` as agents).
 */
import type { Trace } from '../../../trace/model.js';

/** Whether a speaker name is a placeholder rather than an agent's: `(no agent)`, `(unknown)`, ''. */
export function isPlaceholderAgent(name: string): boolean {
  const trimmed = name.trim();
  return trimmed.length === 0 || /^\(.*\)$/.test(trimmed);
}

/** The speakers of a trace that take a tool's part (any step of theirs is a tool output). */
function toolSpeakers(trace: Trace): Set<string> {
  return new Set(trace.steps.filter((step) => step.role === 'tool').map((step) => step.agent));
}

/**
 * The scored agents that may be named (most likely first), probabilities renormalised over them;
 * all of them where none is a real agent (a run of tools and placeholders only).
 */
export function candidateAgents(
  trace: Trace,
  agents: readonly { agent: string; probability: number }[],
): { agent: string; probability: number }[] {
  const tools = toolSpeakers(trace);
  const kept = agents.filter(({ agent }) => !tools.has(agent) && !isPlaceholderAgent(agent));
  if (kept.length === 0 || kept.length === agents.length) return [...agents];
  const total = kept.reduce((sum, entry) => sum + entry.probability, 0);
  return kept.map(({ agent, probability }) => ({
    agent,
    probability: total > 0 ? probability / total : 1 / kept.length,
  }));
}
