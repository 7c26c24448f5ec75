/**
 * What a run being recorded has learnt of its agents, call by call: the name each system prompt
 * was given (so calls with that prompt keep it: a supervisor whose history ends with the messages
 * of the worker it handed to is still the supervisor) and every agent named so far (a tool named
 * after one of them hands the conversation to it). A fingerprint names no prompt: a later call
 * with real evidence may still name it.
 */
import { agentKey } from './history-name.js';
import { identifyAgent, type AgentSource, type RunAgents } from './identify.js';
import { maskVolatile, shortHash } from './recording.js';
import type { RequestView } from '../wire/types.js';

/** The key a system prompt is remembered by: its hash with times, dates and ids masked. */
export const promptKey = (system: string) => shortHash(maskVolatile(system));

/** The key of an empty system prompt, which names nobody (every agent may send it). */
const EMPTY_PROMPT = promptKey('');

/** A run's agents: the name of each system prompt, and the agents known. */
export class AgentBook implements RunAgents {
  private readonly prompts = new Map<string, string>();
  readonly known = new Map<string, string>();

  /** The name the run gave `system`, if it gave one. */
  nameOfPrompt(system: string): string | undefined {
    return system.trim() ? this.prompts.get(promptKey(system)) : undefined;
  }

  /** The agent of a call with the run's evidence so far; the answer joins that evidence. */
  identify(
    header: string | undefined,
    request: RequestView,
  ): { agent: string; source: AgentSource } {
    const found = identifyAgent(header, request, this);
    this.note(
      request.system.trim() ? promptKey(request.system) : EMPTY_PROMPT,
      found.agent,
      found.source,
    );
    return found;
  }

  /** Notes that a call with the prompt keyed `key` was made by `agent`, known from `source`. */
  note(key: string | undefined, agent: string, source: AgentSource): void {
    if (source === 'fingerprint') return;
    this.known.set(agentKey(agent), agent);
    if (key !== undefined && key !== EMPTY_PROMPT && !this.prompts.has(key))
      this.prompts.set(key, agent);
  }
}
