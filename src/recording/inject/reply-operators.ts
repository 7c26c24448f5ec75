/**
 * The reply operators (response corruption): each changes what an agent answered, its text or its
 * tool calls, and returns undefined when it finds nothing to change.
 */
import { sameAgent } from '../../trace/agents.js';
import type { ToolCall } from '../../trace/model.js';
import { asObject } from '../wire/types.js';
import type { ReplyOperator } from './operator-types.js';

const LAST_NUMBER = /(-?\d+(?:\.\d+)?)(?!.*\d)/s;

/** The text with its last number changed by `delta`, or undefined when it has none. */
export function perturbLastNumber(text: string, delta: number): string | undefined {
  if (!LAST_NUMBER.test(text)) return undefined;
  return text.replace(LAST_NUMBER, (number) => String(Number(number) + delta));
}

/** A tool call's arguments as an object, when they are a JSON object. */
function argumentsObject(call: ToolCall): Record<string, unknown> | undefined {
  try {
    return asObject(JSON.parse(call.arguments));
  } catch {
    return undefined;
  }
}

const FENCED = /```[^\n]*\n[\s\S]*?```/g;
const INLINE = /`[^`\n]+`/g;

/** Half of a piece of code: its first half of lines, or of characters when it is one line. */
function halfOf(code: string): string {
  const lines = code.split('\n');
  if (lines.length > 1) return lines.slice(0, Math.ceil(lines.length / 2)).join('\n');
  return code.slice(0, Math.floor(code.length / 2));
}

/** Applies `change` to the code of each tool call that carries a `code` (or `source`) argument. */
function changeToolCode(
  calls: ToolCall[],
  change: (code: string) => string | undefined,
): ToolCall[] | undefined {
  let changed = false;
  const out = calls.map((call) => {
    const args = argumentsObject(call);
    const key = args && ['code', 'source', 'script'].find((name) => typeof args[name] === 'string');
    if (!args || !key) return call;
    const next = change(args[key] as string);
    if (next === undefined) return call;
    changed = true;
    return { ...call, arguments: JSON.stringify({ ...args, [key]: next }) };
  });
  return changed ? out : undefined;
}

/** The reply operators: name, description, operator. */
export const replyOperators: [string, string, ReplyOperator][] = [
  [
    'replace',
    'replaces the answer with the plan\'s "text" (no tool calls)',
    (_reply, { target }) => ({ text: target.text ?? '', toolCalls: [] }),
  ],
  [
    'perturb-number',
    'changes the last number of the action (tool arguments, else code in the text, else the text) by "delta" (default 1)',
    (reply, { target }) => {
      const delta = target.delta ?? 1;
      for (let index = reply.toolCalls.length - 1; index >= 0; index -= 1) {
        const call = reply.toolCalls[index]!;
        const changed = changeToolCode([call], (code) => perturbLastNumber(code, delta));
        const args = changed?.[0]?.arguments ?? perturbLastNumber(call.arguments, delta);
        if (args !== undefined) {
          const toolCalls = [...reply.toolCalls];
          toolCalls[index] = { ...call, arguments: args };
          return { ...reply, toolCalls };
        }
      }
      // A number in code (a fenced block, inline code) is the one the work rests on; else the last.
      const spans = [...reply.text.matchAll(new RegExp(`${FENCED.source}|${INLINE.source}`, 'g'))];
      const span = spans.findLast((match) => LAST_NUMBER.test(match[0]));
      if (span) {
        const start = span.index;
        const changed = perturbLastNumber(span[0], delta)!;
        const text =
          reply.text.slice(0, start) + changed + reply.text.slice(start + span[0].length);
        return { ...reply, text };
      }
      const text = perturbLastNumber(reply.text, delta);
      return text === undefined ? undefined : { ...reply, text };
    },
  ],
  [
    'drop-code-block',
    'removes the code: fenced blocks (else inline code) from the text, and tool calls that run code',
    (reply) => {
      const remaining = reply.toolCalls.filter((call) => !changeToolCode([call], () => ''));
      const fenced = reply.text.replace(FENCED, '');
      const text = fenced !== reply.text ? fenced : reply.text.replace(INLINE, '');
      if (text === reply.text && remaining.length === reply.toolCalls.length) return undefined;
      return { text, toolCalls: remaining };
    },
  ],
  [
    'truncate-code-block',
    'cuts each piece of code (a fenced block, else inline code, and code a tool runs) to its first half',
    (reply) => {
      const toolCalls = changeToolCode(reply.toolCalls, halfOf);
      let text = reply.text.replace(FENCED, (block) => {
        const body = block.replace(/^```[^\n]*\n/, '').replace(/```$/, '');
        return `${block.slice(0, block.indexOf('\n') + 1)}${halfOf(body.replace(/\n$/, ''))}\n\`\`\``;
      });
      if (text === reply.text)
        text = reply.text.replace(INLINE, (code) => `\`${halfOf(code.slice(1, -1))}\``);
      if (text === reply.text && !toolCalls) return undefined;
      return { text, toolCalls: toolCalls ?? reply.toolCalls };
    },
  ],
  [
    'claim-success',
    'claims the work is done and verified, without doing it (no tool calls)',
    () => ({
      text: 'Done: the task is complete and I have verified the result, so nothing more is needed.',
      toolCalls: [],
    }),
  ],
  [
    'stop-early',
    'keeps only the first line of the answer and drops its tool calls',
    (reply) => {
      const first = reply.text.trim().split('\n')[0] ?? '';
      if (first === reply.text.trim() && reply.toolCalls.length === 0) return undefined;
      return { text: first, toolCalls: [] };
    },
  ],
  [
    'repeat-previous',
    "repeats the agent's previous answer (else the run's last answer)",
    (reply, { earlier, target }) => {
      const previous =
        earlier.filter((item) => sameAgent(item.agent, target.agent)).at(-1) ?? earlier.at(-1);
      if (!previous) return undefined;
      const same =
        previous.reply.text === reply.text &&
        JSON.stringify(previous.reply.toolCalls) === JSON.stringify(reply.toolCalls);
      return same ? undefined : { text: previous.reply.text, toolCalls: previous.reply.toolCalls };
    },
  ],
  [
    'other-role',
    "answers with another agent's last answer, as if the agent did that agent's job",
    (_reply, { earlier, target }) => {
      const other = earlier.filter((item) => !sameAgent(item.agent, target.agent)).at(-1);
      if (!other || !other.reply.text.trim()) return undefined;
      return { text: other.reply.text, toolCalls: [] };
    },
  ],
];
