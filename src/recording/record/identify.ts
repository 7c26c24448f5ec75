/**
 * Which agent made a model call, and which run it belongs to, from what the call carries:
 *
 * - agent: the `x-faultline-agent` header, else a name the body declares (`metadata.agent`,
 *   OpenAI's `user`, Anthropic's `metadata.user_id`), else the agent the history's last handoff
 *   hands to (`transfer_to_X`), else the `name` on the agent's own assistant message whose tool
 *   results end the history (history-name.ts), else the name the system prompt gives the agent
 *   ("You are the planner…", CrewAI's "You are {role}."; prompt-name.ts), else a stable
 *   fingerprint of the system prompt (`agent-1a2b3c4d`), so one agent's calls group together
 *   even unnamed;
 * - run: the `x-faultline-run` header, else the current run until the proxy has been idle (no call
 *   in flight) for the run gap, after which the next call starts a new run.
 */
import { createHash, randomBytes } from 'node:crypto';
import { nameFromHandoff, nameFromHistory } from './history-name.js';
import { nameInSystemPrompt, tidyName } from './prompt-name.js';
import type { RequestView } from '../wire/types.js';

export { nameInSystemPrompt } from './prompt-name.js';

/** Header naming the agent that makes a call. */
export const AGENT_HEADER = 'x-faultline-agent';
/** Header naming the run a call belongs to. */
export const RUN_HEADER = 'x-faultline-run';

/** The header that names the task a call's run is a run of (runs of one task are compared). */
export const TASK_HEADER = 'x-faultline-task';

/** Where an agent's name came from. */
export type AgentSource =
  'header' | 'body' | 'handoff' | 'history-name' | 'system-prompt' | 'fingerprint';

/** Every source, in the order of evidence. */
export const AGENT_SOURCES = [
  'header',
  'body',
  'handoff',
  'history-name',
  'system-prompt',
  'fingerprint',
] as const satisfies readonly AgentSource[];

/** A stable short name for a system prompt that names no agent. */
export function promptFingerprint(system: string): string {
  return `agent-${createHash('sha256').update(system).digest('hex').slice(0, 8)}`;
}

/** The agent that made a call and how it was known. */
export function identifyAgent(
  header: string | undefined,
  request: RequestView,
): { agent: string; source: AgentSource } {
  const fromHeader = header ? tidyName(header) : undefined;
  if (fromHeader) return { agent: fromHeader, source: 'header' };
  const declared = request.declaredAgent ? tidyName(request.declaredAgent) : undefined;
  if (declared) return { agent: declared, source: 'body' };
  const handedTo = nameFromHandoff(request.items);
  if (handedTo) return { agent: handedTo, source: 'handoff' };
  const ownName = nameFromHistory(request.items);
  if (ownName) return { agent: ownName, source: 'history-name' };
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
