/**
 * Which agent made a model call, and which run it belongs to, from what the call carries:
 *
 * - agent: the `x-faultline-agent` header, else a name the body declares (`metadata.agent`,
 *   OpenAI's `user`, Anthropic's `metadata.user_id`), else the name the system prompt gives the
 *   agent ("You are the planner…", CrewAI's "You are {role}."), else a stable fingerprint of the
 *   system prompt (`agent-1a2b3c4d`), so one agent's calls group together even unnamed;
 * - run: the `x-faultline-run` header, else the current run until the proxy has been idle (no call
 *   in flight) for the run gap, after which the next call starts a new run.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { RequestView } from './wire/types.js';

/** Header naming the agent that makes a call. */
export const AGENT_HEADER = 'x-faultline-agent';
/** Header naming the run a call belongs to. */
export const RUN_HEADER = 'x-faultline-run';

/** Where an agent's name came from. */
export type AgentSource = 'header' | 'body' | 'system-prompt' | 'fingerprint';

/** Names a system prompt may give that say nothing about which agent it is. */
const GENERIC = new Set([
  'assistant',
  'ai',
  'ai assistant',
  'helpful assistant',
  'helpful ai assistant',
  'helpful ai',
  'language model',
  'large language model',
  'chatbot',
  'ai language model',
  'agent',
  'helpful agent',
]);

/** Words that end a role phrase: "the planner of a team", "an expert who writes". */
const ROLE_END =
  /\s+(?:who|that|which|of|in|for|with|tasked|responsible|and|to|on|at|from|by|working|whose|named|called)\b.*$/is;

/** A name as it will be shown: one line, no surrounding punctuation or quotes, at most 60 characters. */
function tidy(name: string): string | undefined {
  const cleaned = name
    .replace(/\s+/g, ' ')
    .replace(/^[\s"'`*_]+|[\s"'`*_.,:;!]+$/g, '')
    .slice(0, 60)
    .trim();
  return cleaned.length > 0 ? cleaned : undefined;
}

/** The agent's name a system prompt states, if it states one. */
export function nameInSystemPrompt(system: string): string | undefined {
  const head = system.slice(0, 2000);
  const explicit =
    /\b(?:your name is|you are (?:called|named))\s+["'`]?([^\n"'`.,;:!]{1,60})/i.exec(head);
  if (explicit) return tidy(explicit[1]!);
  // CrewAI: "You are {role}. {backstory}\nYour personal goal is: {goal}".
  if (/\nYour personal goal is:/.test(head)) {
    const role = /^\s*You are ([^\n]{1,80}?)\s*(?:\n|\.(?:\s|$))/.exec(head);
    if (role) return tidy(role[1]!);
  }
  const opening = /(?:^|\n)\s*(?:#+\s*)?You are\s+([^\n]{1,120})/.exec(head);
  if (!opening) return undefined;
  const rest = opening[1]!;
  // "You are Coder, …" / "You are Senior Research Analyst." : a capitalised name right after.
  const proper = /^([A-Z][\w-]*(?:[ _-][A-Z][\w-]*){0,4})(?=\s*(?:[.,:;!(]|$))/.exec(rest);
  if (proper && !GENERIC.has(proper[1]!.toLowerCase())) return tidy(proper[1]!);
  // "You are the planner of …", "You are an expert Python coder who …".
  const role = /^(?:the|a|an)\s+([^.,:;!\n()]{1,80})/i.exec(rest);
  if (!role) return undefined;
  const words = role[1]!.replace(ROLE_END, '').trim().split(/\s+/).slice(0, 4).join(' ');
  const name = tidy(words);
  if (!name || GENERIC.has(name.toLowerCase())) return undefined;
  return name;
}

/** A stable short name for a system prompt that names no agent. */
export function promptFingerprint(system: string): string {
  return `agent-${createHash('sha256').update(system).digest('hex').slice(0, 8)}`;
}

/** The agent that made a call and how it was known. */
export function identifyAgent(
  header: string | undefined,
  request: RequestView,
): { agent: string; source: AgentSource } {
  const fromHeader = header ? tidy(header) : undefined;
  if (fromHeader) return { agent: fromHeader, source: 'header' };
  const declared = request.declaredAgent ? tidy(request.declaredAgent) : undefined;
  if (declared) return { agent: declared, source: 'body' };
  const named = nameInSystemPrompt(request.system);
  if (named) return { agent: named, source: 'system-prompt' };
  return { agent: promptFingerprint(request.system), source: 'fingerprint' };
}

/** A new run id: `run-20260102-030405-1a2b` (UTC time and a random suffix). */
export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `run-${stamp}-${randomBytes(2).toString('hex')}`;
}

/** A run id as given in a header, kept to characters safe in a file name. */
export function tidyRunId(value: string): string | undefined {
  const cleaned = value
    .trim()
    .replace(/[^\w.-]+/g, '_')
    .slice(0, 120);
  return cleaned.replace(/^[._]+/, '').length > 0 ? cleaned : undefined;
}

/** Settings of run identification. */
export interface RunClockOptions {
  /** Idle time after which a call without a run header starts a new run. */
  gapMs: number;
  now?: () => number;
  newId?: () => string;
}

/** Groups calls without a run header into runs separated by idle gaps. */
export class RunClock {
  private current: string | undefined;
  private inFlight = 0;
  private lastActivity = 0;
  private readonly now: () => number;
  private readonly newId: () => string;

  constructor(private readonly options: RunClockOptions) {
    this.now = options.now ?? Date.now;
    this.newId = options.newId ?? (() => newRunId());
  }

  /** The run of a call that starts now; `header` (the run header's value) wins. */
  begin(header: string | undefined): string {
    const named = header ? tidyRunId(header) : undefined;
    if (named) return named;
    const now = this.now();
    if (!this.current || (this.inFlight === 0 && now - this.lastActivity > this.options.gapMs))
      this.current = this.newId();
    this.inFlight += 1;
    this.lastActivity = now;
    return this.current;
  }

  /** A call of `run` (begun without a header) has finished. */
  end(run: string): void {
    if (run !== this.current) return;
    this.inFlight = Math.max(0, this.inFlight - 1);
    this.lastActivity = this.now();
  }
}
