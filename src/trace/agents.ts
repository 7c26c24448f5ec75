/**
 * Canonical agent names and roles. Speakers are written many ways across frameworks; labels and
 * methods compare canonical names only.
 */
import type { Step, StepRole, Trace, TraceLabels } from './model.js';
import { squash, squashTask } from './step-text.js';
import { cutName } from './text-limits.js';

/** Speakers that are the human user rather than an agent. */
const HUMAN_SPEAKERS = new Set(['human', 'user', 'user_proxy', 'userproxy', 'admin']);
/**
 * Speakers that are framework plumbing rather than an agent (AG2's group chat manager, under its
 * default name, only posts the team's introduction; the speakers it relays keep their names).
 */
const SYSTEM_SPEAKERS = new Set(['system', 'developer', 'chat_manager']);
/** Code executors and terminals: tool-like agents that run what others wrote. */
const TOOL_SPEAKER = /(terminal|executor|code_?exec|interpreter|^tool$|^function$|^ipython$)/i;

/**
 * The canonical name of a speaker: the parenthesised suffix Magentic-One adds is dropped
 * (`Orchestrator (thought)` and `Orchestrator (-> WebSurfer)` are the agent `Orchestrator`),
 * surrounding whitespace is trimmed, and a name longer than any real one is cut (text-limits.ts).
 */
export function canonicalAgentName(speaker: string): string {
  const trimmed = cutName(speaker.trim());
  // The last `(…)` holding no parenthesis, found from the end: a pattern for it (/\s*\(…\)\s*$/)
  // tried at every position of a long run of spaces takes time quadratic in the name's length.
  if (!trimmed.endsWith(')')) return trimmed;
  const open = trimmed.lastIndexOf('(', trimmed.length - 2);
  if (open < 0 || trimmed.lastIndexOf(')', trimmed.length - 2) > open) return trimmed;
  const withoutSuffix = trimmed.slice(0, open).trim();
  return withoutSuffix.length > 0 ? withoutSuffix : trimmed;
}

/** The role a speaker plays, judged from its name alone. */
export function roleOfSpeaker(speaker: string): StepRole {
  const name = canonicalAgentName(speaker).toLowerCase();
  if (HUMAN_SPEAKERS.has(name)) return 'human';
  if (SYSTEM_SPEAKERS.has(name)) return 'system';
  if (TOOL_SPEAKER.test(name)) return 'tool';
  return 'agent';
}

/**
 * Whether a step (or an agent) belongs to the team that did the work: not the person who gave the
 * task, and not the framework's own messages (a system prompt, a task assignment).
 */
export function onTeam(entry: { role: StepRole }): boolean {
  return entry.role !== 'human' && entry.role !== 'system';
}

/** A turn that repeats this much of an earlier step's opening, verbatim, relays it. */
const QUOTE_LENGTH = 40;
/** How many earlier steps a turn is checked against (a relay passes on recent turns). */
const QUOTE_WINDOW = 50;

/**
 * True when step `index` repeats, verbatim, the opening of one of the steps just before it: it
 * relays what others said (a debate moderator's "these are the other agents' opinions").
 */
export function relaysEarlier(steps: readonly Step[], index: number): boolean {
  const text = steps[index]!.content;
  return steps.slice(Math.max(0, index - QUOTE_WINDOW), index).some((step) => {
    const opening = step.content.trim().slice(0, QUOTE_LENGTH);
    return opening.length === QUOTE_LENGTH && text.includes(opening);
  });
}

/** Shortest task (squashed) that a step is checked for ending with: shorter ones end anything. */
const TASK_LENGTH = 20;

/**
 * True when a step ends with the whole task: a framework's template that posts it (AG2 MathChat's
 * proxy opens with "Let's use Python to solve a math problem. ... Problem: <the task>"). Only an
 * opening step is read so: a later one that ends with the task restates it.
 */
export function postsTask(step: Step, question: string | undefined): boolean {
  const task = squashTask(question ?? '');
  if (task.length < TASK_LENGTH) return false;
  // Only the end can match, so a tail is squashed (an opening plan can run to pages): once its
  // squashed form is longer than the task, its last characters are those of the whole step's.
  const { content } = step;
  const tail = squash(content.slice(-2 * task.length - 64));
  return (tail.length > task.length ? tail : squash(content)).endsWith(task);
}

/**
 * The steps a method may blame: the team's, and the person's turns once the team has spoken that
 * do not relay others (a simulated user or customer inside the run is a participant: roles follow
 * the run's structure, not the word `user`). Never the task (nor an opening template that posts
 * it), never the framework's own messages. The offline model narrows this further
 * (attribution/offline/features.ts).
 */
export function blamableSteps(trace: Pick<Trace, 'steps' | 'question'>): number[] {
  const first = trace.steps.findIndex(onTeam);
  if (first === -1) return [];
  const template = postsTask(trace.steps[first]!, trace.question);
  return trace.steps
    .filter(
      (step, index) =>
        (onTeam(step) && !(template && index === first)) ||
        (step.role === 'human' && index > first && !relaysEarlier(trace.steps, index)),
    )
    .map((step) => step.index);
}

/**
 * Maps a label's agent name onto the trace's own spelling, case-insensitively (Who&When writes
 * `Websurfer` for `WebSurfer`). Unknown names are returned canonicalised but otherwise unchanged.
 */
export function matchAgentName(label: string, agents: readonly string[]): string {
  const wanted = canonicalAgentName(label).toLowerCase();
  const squash = (name: string) => name.toLowerCase().replace(/[\s_-]/g, '');
  return (
    agents.find((agent) => agent.toLowerCase() === wanted) ??
    agents.find((agent) => squash(agent) === squash(wanted)) ??
    canonicalAgentName(label)
  );
}

/** True when two agent names denote the same agent. */
export function sameAgent(left: string, right: string): boolean {
  const squash = (name: string) =>
    canonicalAgentName(name)
      .toLowerCase()
      .replace(/[\s_-]/g, '');
  return squash(left) === squash(right);
}

/** The agents labels hold responsible: all of them when several are named. */
function labelledAgents(labels: Pick<TraceLabels, 'agent' | 'agents'> | undefined): string[] {
  if (labels?.agents && labels.agents.length > 0) return labels.agents;
  return labels?.agent ? [labels.agent] : [];
}

/** True when labels name a responsible agent (one, or several for injected faults). */
export function namesAnAgent(labels: Pick<TraceLabels, 'agent' | 'agents'> | undefined): boolean {
  return labelledAgents(labels).length > 0;
}

/** The agents a trace's labels hold responsible: all of them when several are named. */
export function responsibleAgents(trace: Trace): string[] {
  return labelledAgents(trace.labels);
}

/**
 * The agent-level judgement every measure uses: right when `predicted` is one of the responsible
 * agents (exact up to case and separators; naming any of several is right).
 */
export function namesResponsible(
  predicted: string | null,
  labels: Pick<TraceLabels, 'agent' | 'agents'> | undefined,
): boolean {
  return predicted !== null && labelledAgents(labels).some((agent) => sameAgent(predicted, agent));
}
