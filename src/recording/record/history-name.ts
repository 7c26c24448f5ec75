/**
 * The agent a call belongs to, from the conversation it carries:
 *
 * - a handoff: the last tool call in the history that hands the conversation to an agent, so the
 *   calls after it are that agent's until the next handoff. A tool call is a handoff when
 *   1. its output names the agent it hands to: the OpenAI Agents SDK's `{"assistant":
 *      "Researcher"}`, LangGraph's "Successfully transferred to researcher", LlamaIndex.TS's
 *      "Agent ResearchAgent is now handling the request…";
 *   2. its arguments name an agent (`toAgent`, `agent`, `agent_name`, `assistant`: LlamaIndex.TS's
 *      `handOff`, delegation tools, a router's `select_agent`) and its output is not a refusal
 *      ("Agent X not found");
 *   3. it is a `transfer_to_X` (or `transfer_back_to_X`) tool whose output is a handoff's
 *      (`{"assistant": …}` or "Successfully transferred …"): agent X as the tool names it;
 *   4. its tool is named after an agent the run already knows, and it was answered.
 *   A tool that happens to be called `transfer_to_savings` and answers `{"ok": true}` moves money,
 *   not the conversation.
 * - the `name` a framework puts on an agent's own assistant messages (LangChain sends the agent's
 *   name on each): the history ends with the tool results of an assistant message, so the call
 *   continues that message's turn and is its agent's.
 */
import type { ToolCall } from '../../trace/model.js';
import { asObject, asString, type HistoryItem } from '../wire/types.js';
import { tidyName } from './prompt-name.js';

/** A handoff tool's name, and the agent it hands to as the tool names it. */
const HANDOFF_TOOL = /^transfer_(?:back_)?to_(.+)$/;

/** LangGraph's handoff output (`create_handoff_tool`, the supervisor's and swarm's). */
const TRANSFERRED = /^Successfully transferred (?:back )?to ([^\n]{1,80})/;

/** LlamaIndex.TS's handoff output ("Agent X is now handling the request due to …"), and the like. */
const NOW_HANDLING = ' is now handling';

/** The agent an output opening "[Agent ]X is now handling …" names, X on the first line. */
function nowHandling(head: string): string | undefined {
  const at = head.indexOf(NOW_HANDLING);
  if (at <= 0 || at > 90) return undefined;
  const name = head.slice(0, at).trim();
  if (name.includes('\n')) return undefined;
  return tidyName(name.startsWith('Agent ') ? name.slice('Agent '.length) : name);
}

/** Argument keys that name the agent a tool hands to. */
const AGENT_ARGUMENTS = ['toAgent', 'to_agent', 'agent', 'agent_name', 'agentName', 'assistant'];

/** An output that refuses the handoff: the agent does not exist, the call was wrong. */
const REFUSED = /\bnot found\b|\binvalid\b|\bunknown agent\b|^\s*error\b/i;

/** Longest output read for a handoff's words (they open the output). */
const HEAD = 400;

/** The agent a handoff's output names, and whether the output is a handoff's at all. */
function handoffOutput(text: string): { handoff: boolean; agent?: string } {
  const head = text.trimStart().slice(0, HEAD);
  const transferred = TRANSFERRED.exec(head);
  if (transferred) return { handoff: true, agent: tidyName(transferred[1]!.replace(/\.$/, '')) };
  const handling = nowHandling(head);
  if (handling) return { handoff: true, agent: handling };
  if (!head.startsWith('{')) return { handoff: false };
  try {
    const agent = asString(asObject(JSON.parse(text))?.assistant);
    return agent ? { handoff: true, agent: tidyName(agent) } : { handoff: false };
  } catch {
    return { handoff: false };
  }
}

/** The agent a tool call's arguments name (`{"toAgent": "ResearchAgent", "reason": …}`). */
function agentInArguments(call: ToolCall): string | undefined {
  if (!call.arguments.includes('gent') && !call.arguments.includes('assistant')) return undefined;
  try {
    const args = asObject(JSON.parse(call.arguments));
    for (const key of AGENT_ARGUMENTS) {
      const value = asString(args?.[key]);
      if (value && value.length <= 60 && !value.includes('\n')) return tidyName(value);
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/** Agent names as compared: case and separators aside (`Research Agent` = `research_agent`). */
export const agentKey = (name: string) => name.toLowerCase().replace(/[\s_-]+/g, '');

/** The agent one answered tool call hands the conversation to, by the rules of the file's comment. */
function handedTo(
  call: ToolCall,
  output: string,
  known: ReadonlyMap<string, string>,
): string | undefined {
  const said = handoffOutput(output);
  if (said.agent) return said.agent;
  const argued = agentInArguments(call);
  if (argued && !REFUSED.test(output.slice(0, HEAD))) return argued;
  const named = HANDOFF_TOOL.exec(call.name);
  if (named && said.handoff) return tidyName(named[1]!);
  return known.get(agentKey(call.name));
}

/**
 * The agent the last handoff in a history hands the conversation to; `known` maps the run's known
 * agents by `agentKey` to their names (a tool named after one of them hands to it).
 */
export function nameFromHandoff(
  items: readonly HistoryItem[],
  known: ReadonlyMap<string, string> = new Map(),
): string | undefined {
  const outputs = new Map<string, string>();
  for (const item of items)
    if (item.role === 'tool' && item.toolResult?.callId !== undefined)
      outputs.set(item.toolResult.callId, item.text);
  for (let index = items.length - 1; index >= 0; index -= 1) {
    const calls = items[index]!.toolCalls ?? [];
    for (let position = calls.length - 1; position >= 0; position -= 1) {
      const call = calls[position]!;
      const output = call.id === undefined ? undefined : outputs.get(call.id);
      if (output === undefined) continue;
      const agent = handedTo(call, output, known);
      if (agent) return agent;
    }
  }
  return undefined;
}

/**
 * The `name` on the assistant message whose tool results end the history: the call continues
 * that agent's turn. A name on any other message may be another agent's, so it is not used.
 */
export function nameFromHistory(items: readonly HistoryItem[]): string | undefined {
  let index = items.length - 1;
  if (items[index]?.role !== 'tool') return undefined;
  while (index >= 0 && items[index]!.role === 'tool') index -= 1;
  const turn = items[index];
  if (turn?.role !== 'assistant' || !turn.name || !turn.toolCalls?.length) return undefined;
  return tidyName(turn.name);
}
