/**
 * What a step says, read whole: its content and the tool calls it makes. Importers put a call
 * into the content only when the turn says nothing else, so a turn that speaks and calls a tool
 * ("I'll load the spreadsheet." plus `run_python({...})`) would otherwise hide its arguments, the
 * very thing a wrong or missing argument is found in.
 */
import type { Step, ToolCall } from './model.js';

/** A text lower-cased, with each run of whitespace one space: how a task is looked for in a step. */
export function squash(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').trim();
}

/** The last task squashed, and how: a trace's task (often pages long) is squashed several times. */
let lastTask: { task: string; squashed: string } | undefined;

/** `squash` of a task, remembered for the last task given. */
export function squashTask(task: string): string {
  if (lastTask?.task !== task) lastTask = { task, squashed: squash(task) };
  return lastTask.squashed;
}

/** Tool calls as text: `name(arguments)`, one call a line (also what a turn that only calls says). */
export function callsText(calls: readonly ToolCall[]): string {
  return calls.map((call) => `${call.name}(${call.arguments})`).join('\n');
}

/** True when the content already shows the call (its `name(` or its arguments). */
function shows(content: string, call: ToolCall): boolean {
  return content.includes(`${call.name}(`) || content.includes(call.arguments);
}

/** A step's content followed by each tool call of its that the content does not show. */
export function stepText(step: Pick<Step, 'content' | 'toolCalls'>): string {
  // Most steps call no tool: their text is their content, with nothing allocated.
  if (!step.toolCalls?.length) return step.content;
  const hidden = step.toolCalls.filter((call) => !shows(step.content, call));
  if (hidden.length === 0) return step.content;
  const calls = callsText(hidden);
  return step.content.trim() ? `${step.content}\n${calls}` : calls;
}
