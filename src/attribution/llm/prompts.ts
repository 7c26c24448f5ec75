/**
 * The prompts of the LLM methods. The wording follows the Who&When methods; the reply formats are
 * the JSON protocol of docs/PROTOCOL.md. The expected answer appears only when allowed.
 */
import { blamableSteps } from '../../trace/agents.js';
import { MAST_MODES } from '../../trace/mast.js';
import type { Trace } from '../../trace/model.js';

/** The MAST failure modes, one per line, for the question that asks which the run shows. */
const MODE_LIST = MAST_MODES.map((mode) => `${mode.code} ${mode.name}: ${mode.definition}`).join(
  '\n',
);

const DEFINITION =
  'The decisive error step is the earliest step whose correction would have turned the failure into a success; the failure-responsible agent is the agent who took that step.';

/** The system prompt shared by every call. */
export const SYSTEM_PROMPT = `You analyse the log of a multi-agent system that tried to solve a task and failed. ${DEFINITION} Answer with a single JSON object and nothing else.`;

/** Task, expected answer (when allowed) and the agents, above every log. */
export function taskHeader(trace: Trace, useGroundTruth: boolean): string {
  const lines = [`Task: ${trace.question ?? '(not stated in the log)'}`];
  if (useGroundTruth && trace.groundTruth) lines.push(`Expected answer: ${trace.groundTruth}`);
  // The agents that may be blamed: the team, and a person who takes part (a simulated customer).
  const blamable = new Set(blamableSteps(trace).map((index) => trace.steps[index]!.agent));
  lines.push(
    `Agents: ${trace.agents
      .filter((agent) => blamable.has(agent.name))
      .map((agent) => agent.name)
      .join(', ')}`,
  );
  return lines.join('\n');
}

/** All-at-once (also the first call of hybrid). */
export function allAtOncePrompt(header: string, log: string): string {
  return `${header}\n\nLog (steps numbered from 0):\n\n${log}\n\nWhich agent is responsible for the failure, and at which step did the decisive error happen? Which of these failure modes (MAST) does the run show?\n${MODE_LIST}\nReply as {"agent": "<agent name>", "step": <step number>, "reason": "<one or two sentences>", "modes": ["<code>", ...]} (an empty list when none applies).`;
}

/** Step-by-step: one verdict on the last step shown. */
export function stepVerdictPrompt(
  header: string,
  log: string,
  step: number,
  agent: string,
): string {
  return `${header}\n\nLog up to and including step ${step}:\n\n${log}\n\nIs step ${step} (by ${agent}) the decisive error of this run?\nReply as {"error": true or false, "reason": "<one sentence>"}.`;
}

/** Binary search: which half of [low, high] holds the decisive error. */
export function halfPrompt(
  header: string,
  log: string,
  low: number,
  middle: number,
  high: number,
): string {
  return `${header}\n\nLog up to step ${high}:\n\n${log}\n\nThe decisive error lies between step ${low} and step ${high}. Is it in the earlier half (steps ${low} to ${middle}) or the later half (steps ${middle + 1} to ${high})?\nReply as {"half": "earlier" or "later", "reason": "<one sentence>"}.`;
}

/** Appended to a request whose reply could not be read, for the one retry. */
export const RETRY_SUFFIX =
  '\n\nYour previous reply could not be read. Reply with the JSON object only, exactly in the format asked.';
