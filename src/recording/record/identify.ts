/**
 * Which agent made a model call, and which run it belongs to, from what the call carries and what
 * the run has shown so far:
 *
 * - agent, in the order of evidence: the `x-faultline-agent` header; a name the body declares
 *   (`metadata.agent`, OpenAI's `user`, Anthropic's `metadata.user_id`); the name the run already
 *   gave this system prompt (a supervisor keeps its name when its history ends with the messages
 *   of the worker it handed to); the agent the history's last handoff hands to (history-name.ts:
 *   `transfer_to_X`, `handOff {"toAgent": X}`, "X is now handling", a tool named after a known
 *   agent); the `name` on the agent's own assistant message whose tool results end the history;
 *   the name the system prompt gives the agent ("You are the planner…", CrewAI's "You are
 *   {role}."; prompt-name.ts); else a stable fingerprint of the system prompt (`agent-1a2b3c4d`),
 *   so one agent's calls group together even unnamed. The run's memory is agent-book.ts;
 * - run: the `x-faultline-run` header, else the W3C `traceparent` header's trace id (an
 *   OpenTelemetry-instrumented client sends one with every call of a traced run), else the
 *   current run until the proxy has been idle (no call in flight) for the run gap, after which the
 *   next call starts a new run.
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
/** The W3C trace context header (`00-<trace id>-<span id>-<flags>`). */
export const TRACEPARENT_HEADER = 'traceparent';

/** The header that names the task a call's run is a run of (runs of one task are compared). */
export const TASK_HEADER = 'x-faultline-task';

/** Where an agent's name came from. */
export type AgentSource =
  'header' | 'body' | 'known-prompt' | 'handoff' | 'history-name' | 'system-prompt' | 'fingerprint';

/** Every source, in the order of evidence. */
export const AGENT_SOURCES = [
  'header',
  'body',
  'known-prompt',
  'handoff',
  'history-name',
  'system-prompt',
  'fingerprint',
] as const satisfies readonly AgentSource[];

/** A stable short name for a system prompt that names no agent. */
export function promptFingerprint(system: string): string {
  return `agent-${createHash('sha256').update(system).digest('hex').slice(0, 8)}`;
}

/** What a run has learnt of its agents so far (agent-book.ts keeps it). */
export interface RunAgents {
  /** The name the run gave a system prompt, if it gave one. */
  nameOfPrompt(system: string): string | undefined;
  /** The run's known agents by `agentKey`. */
  readonly known: ReadonlyMap<string, string>;
}

/** The agent that made a call and how it was known; `run` is what its run knows already. */
export function identifyAgent(
  header: string | undefined,
  request: RequestView,
  run?: RunAgents,
): { agent: string; source: AgentSource } {
  const fromHeader = header ? tidyName(header) : undefined;
  if (fromHeader) return { agent: fromHeader, source: 'header' };
  const declared = request.declaredAgent ? tidyName(request.declaredAgent) : undefined;
  if (declared) return { agent: declared, source: 'body' };
  const remembered = run?.nameOfPrompt(request.system);
  if (remembered) return { agent: remembered, source: 'known-prompt' };
  const handedTo = nameFromHandoff(request.items, run?.known);
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

/** A `traceparent` header's trace id (32 hex digits, not all zero), if it carries a valid one. */
export function traceIdOf(traceparent: string | undefined): string | undefined {
  const match = /^\s*[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}/i.exec(traceparent ?? '');
  const traceId = match?.[1]?.toLowerCase();
  return traceId && !/^0+$/.test(traceId) ? traceId : undefined;
}

/** Settings of run identification. */
export interface RunClockOptions {
  /** Idle time after which a call without a run header starts a new run. */
  gapMs: number;
  now?: () => number;
  newId?: () => string;
  /** Trace ids remembered (their runs), the oldest forgotten first (default 10,000). */
  traces?: number;
}

/**
 * Groups calls into runs: by the run header, else by the trace id of their `traceparent`, else by
 * idle gaps between calls that carry neither.
 */
export class RunClock {
  private current: string | undefined;
  private inFlight = 0;
  private lastActivity = 0;
  private readonly now: () => number;
  private readonly newId: () => string;
  /** The run of each trace id seen, in the order first seen. */
  private readonly traces = new Map<string, string>();

  constructor(private readonly options: RunClockOptions) {
    this.now = options.now ?? Date.now;
    this.newId = options.newId ?? (() => newRunId());
  }

  /**
   * The run of a call that starts now: `header` (the run header's value) wins, then the trace id
   * of `traceparent`; a call with neither is counted in flight until `end`.
   */
  begin(header: string | undefined, traceparent?: string): string {
    const named = header ? tidyRunId(header) : undefined;
    if (named) return named;
    const traceId = traceIdOf(traceparent);
    if (traceId) return this.runOfTrace(traceId);
    const now = this.now();
    if (!this.current || (this.inFlight === 0 && now - this.lastActivity > this.options.gapMs))
      this.current = this.newId();
    this.inFlight += 1;
    this.lastActivity = now;
    return this.current;
  }

  /** Whether `begin` with these headers counts the call in flight (so `end` must follow). */
  static counted(header: string | undefined, traceparent?: string): boolean {
    return !(header && tidyRunId(header)) && !traceIdOf(traceparent);
  }

  private runOfTrace(traceId: string): string {
    const known = this.traces.get(traceId);
    if (known) return known;
    const run = `${this.newId()}-${traceId.slice(0, 8)}`;
    this.traces.set(traceId, run);
    if (this.traces.size > (this.options.traces ?? 10_000))
      this.traces.delete(this.traces.keys().next().value!);
    return run;
  }

  /** A call of `run` (begun without a header) has finished. */
  end(run: string): void {
    if (run !== this.current) return;
    this.inFlight = Math.max(0, this.inFlight - 1);
    this.lastActivity = this.now();
  }
}
