/**
 * The reply operators (response corruption): each changes what an agent answered, its text or its
 * tool calls, and returns undefined when it finds nothing to change.
 */
import { sameAgent } from '../../trace/agents.js';
import type { ToolCall } from '../../trace/model.js';
import { asObject } from '../wire/types.js';
import type { ReplyOperator } from './operator-types.js';

const NUMBER = /-?\d+(?:\.\d+)?/g;

/** The last number of a text, taken from all of them (a look-ahead for "no digit after" rescans). */
function lastNumber(text: string): RegExpExecArray | undefined {
  let last: RegExpExecArray | undefined;
  for (const match of text.matchAll(NUMBER)) last = match;
  return last;
}

/** The text with its last number changed by `delta`, or undefined when it has none. */
export function perturbLastNumber(text: string, delta: number): string | undefined {
  const number = lastNumber(text);
  if (!number) return undefined;
  const end = number.index + number[0].length;
  return `${text.slice(0, number.index)}${Number(number[0]) + delta}${text.slice(end)}`;
}

/** A tool call's arguments as an object, when they are a JSON object. */
function argumentsObject(call: ToolCall): Record<string, unknown> | undefined {
  try {
    return asObject(JSON.parse(call.arguments));
  } catch {
    return undefined;
  }
}

/** A piece of code in a reply's text: where it starts, its text with its marks, its kind. */
interface CodeSpan {
  index: number;
  code: string;
  fenced: boolean;
}

/** The text with each fenced block (`fenced`) or each inline span replaced by `change(code)`. */
function replaceCode(text: string, fenced: boolean, change: (code: string) => string): string {
  let out = '';
  let from = 0;
  for (const span of codeSpans(text)) {
    if (span.fenced !== fenced) continue;
    out += text.slice(from, span.index) + change(span.code);
    from = span.index + span.code.length;
  }
  return from === 0 ? text : out + text.slice(from);
}

/** Inline code: a backtick, then text up to the next one on the same line. */
const INLINE = /`[^`\n]+`/y;

/**
 * The code in a reply, in order: fenced blocks (```` ```lang\n…``` ````) and inline spans (`` `x` ``),
 * found by position in one pass (a lazy pattern for fences rescans the rest of the reply from each
 * fence that is never closed). A fence never closed is read as no code.
 */
function codeSpans(text: string): CodeSpan[] {
  const spans: CodeSpan[] = [];
  // Once a fence is never closed, no later one is: fences are looked for no more.
  let fences = true;
  for (let at = text.indexOf('`'); at >= 0; at = text.indexOf('`', at)) {
    if (fences && text.startsWith('```', at)) {
      const lineEnd = text.indexOf('\n', at + 3);
      const close = lineEnd < 0 ? -1 : text.indexOf('```', lineEnd + 1);
      if (close >= 0) spans.push({ index: at, code: text.slice(at, close + 3), fenced: true });
      else fences = false;
      at = close >= 0 ? close + 3 : at + 3;
      continue;
    }
    INLINE.lastIndex = at;
    const inline = INLINE.exec(text);
    if (inline) spans.push({ index: at, code: inline[0], fenced: false });
    at = inline ? INLINE.lastIndex : at + 1;
  }
  return spans;
}

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
      const span = codeSpans(reply.text).findLast(({ code }) => lastNumber(code) !== undefined);
      if (span) {
        const start = span.index;
        const changed = perturbLastNumber(span.code, delta)!;
        const text =
          reply.text.slice(0, start) + changed + reply.text.slice(start + span.code.length);
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
      const fenced = replaceCode(reply.text, true, () => '');
      const text = fenced !== reply.text ? fenced : replaceCode(reply.text, false, () => '');
      if (text === reply.text && remaining.length === reply.toolCalls.length) return undefined;
      return { text, toolCalls: remaining };
    },
  ],
  [
    'truncate-code-block',
    'cuts each piece of code (a fenced block, else inline code, and code a tool runs) to its first half',
    (reply) => {
      const toolCalls = changeToolCode(reply.toolCalls, halfOf);
      let text = replaceCode(reply.text, true, (block) => {
        const body = block.replace(/^```[^\n]*\n/, '').replace(/```$/, '');
        return `${block.slice(0, block.indexOf('\n') + 1)}${halfOf(body.replace(/\n$/, ''))}\n\`\`\``;
      });
      if (text === reply.text)
        text = replaceCode(reply.text, false, (code) => `\`${halfOf(code.slice(1, -1))}\``);
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
