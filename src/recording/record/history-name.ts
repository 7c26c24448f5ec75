/**
 * The agent a call belongs to, from the conversation it carries:
 *
 * - a handoff: the last `transfer_to_X` (or `transfer_back_to_X`) tool call in the history whose
 *   output is a handoff's hands the conversation to agent X, so the calls after it are X's until
 *   the next handoff. The OpenAI Agents SDK's handoff answers with `{"assistant": "Researcher"}`
 *   (the agent's own name, where the tool's is `transfer_to_researcher`); LangGraph's with
 *   "Successfully transferred to researcher";
 * - the `name` a framework puts on an agent's own assistant messages (LangChain sends the agent's
 *   name on each): the history ends with the tool results of an assistant message, so the call
 *   continues that message's turn and is its agent's.
 */
import { asObject, asString, type HistoryItem } from '../wire/types.js';
import { tidyName } from './prompt-name.js';

/** A handoff tool's name, and the agent it hands to as the tool names it. */
const HANDOFF_TOOL = /^transfer_(?:back_)?to_(.+)$/;

/** LangGraph's handoff output (`create_handoff_tool`, the supervisor's and swarm's). */
const TRANSFERRED = /^Successfully transferred (?:back )?to /;

/**
 * What a handoff's output says: the agent it names (`{"assistant": "Researcher"}`), a handoff that
 * names none (LangGraph's "Successfully transferred to researcher"), or undefined when the output
 * is not a handoff's: a tool that happens to be called `transfer_to_savings` moves money, not
 * the conversation.
 */
function handoffOutput(text: string): { agent?: string } | undefined {
  if (TRANSFERRED.test(text.trim())) return {};
  if (!text.trimStart().startsWith('{')) return undefined;
  try {
    const agent = asString(asObject(JSON.parse(text))?.assistant);
    return agent ? { agent } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The agent the last handoff in a history hands the conversation to: a `transfer_to_X` call
 * whose output is a handoff's.
 */
export function nameFromHandoff(items: readonly HistoryItem[]): string | undefined {
  for (let index = items.length - 1; index >= 0; index -= 1) {
    const calls = (items[index]!.toolCalls ?? []).filter((call) => HANDOFF_TOOL.test(call.name));
    for (const handoff of calls.reverse()) {
      const output = items
        .slice(index + 1)
        .find((item) => item.role === 'tool' && item.toolResult?.callId === handoff.id);
      const said = handoff.id && output ? handoffOutput(output.text) : undefined;
      if (said) return tidyName(said.agent ?? HANDOFF_TOOL.exec(handoff.name)![1]!);
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
