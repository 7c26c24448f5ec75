/**
 * The agent a call belongs to, from the conversation it carries:
 *
 * - a handoff: the last `transfer_to_X` (or `transfer_back_to_X`) tool call in the history hands
 *   the conversation to agent X, so the calls after it are X's until the next handoff. The OpenAI
 *   Agents SDK's handoff answers with `{"assistant": "Researcher"}` (the agent's own name, where the
 *   tool's is `transfer_to_researcher`); LangGraph's supervisor with "Successfully transferred to
 *   researcher";
 * - the `name` a framework puts on an agent's own assistant messages (LangChain sends the agent's
 *   name on each): the history ends with the tool results of an assistant message, so the call
 *   continues that message's turn and is its agent's.
 */
import { asObject, asString, type HistoryItem } from './wire/types.js';
import { tidyName } from './prompt-name.js';

/** A handoff tool's name, and the agent it hands to as the tool names it. */
const HANDOFF_TOOL = /^transfer_(?:back_)?to_(.+)$/;

/** The agent a handoff's output names (`{"assistant": "Researcher"}`), if it names one. */
function agentInOutput(text: string): string | undefined {
  if (!text.trimStart().startsWith('{')) return undefined;
  try {
    return asString(asObject(JSON.parse(text))?.assistant);
  } catch {
    return undefined;
  }
}

/** The agent the last handoff in a history hands the conversation to. */
export function nameFromHandoff(items: readonly HistoryItem[]): string | undefined {
  for (let index = items.length - 1; index >= 0; index -= 1) {
    const calls = items[index]!.toolCalls ?? [];
    const handoff = calls.findLast((call) => HANDOFF_TOOL.test(call.name));
    if (!handoff) continue;
    const output = handoff.id
      ? items
          .slice(index + 1)
          .find((item) => item.role === 'tool' && item.toolResult?.callId === handoff.id)
      : undefined;
    const named = output ? agentInOutput(output.text) : undefined;
    return tidyName(named ?? HANDOFF_TOOL.exec(handoff.name)![1]!);
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
