/**
 * The fix a replay gives the blamed step in place of what the model said: text, and the tool calls
 * the step should make instead, when it made some. Given on the command line (plain text, or JSON
 * `{"content": …, "toolCalls": [{"name": …, "arguments": …}]}`, `toolCalls` empty or left out for
 * a step that only speaks, and `{"text": …}` as replay prints a fix), or written by a model from
 * the task, the run up to the step, the step itself and why it was blamed (AgenTracer's
 * `suggested_fix`).
 */
import { z } from 'zod';
import { UserError } from '../../errors.js';
import type { ModelClient } from '../../llm/client.js';
import type { ToolCall, Trace } from '../../trace/model.js';
import { callsText, stepText } from '../../trace/step-text.js';

/** What the blamed step says instead. */
export interface Fix {
  text: string;
  /** The tool calls the step makes instead (none: the step only speaks). */
  toolCalls?: ToolCall[];
}

const structuredFix = z
  .object({
    content: z.string().nullish(),
    text: z.string().nullish(),
    toolCalls: z.array(z.object({ name: z.string().min(1), arguments: z.unknown() })).nullish(),
  })
  .strict();

const argumentsOf = (value: unknown) =>
  typeof value === 'string' ? value : JSON.stringify(value ?? {});

/** A fix from its JSON form, or undefined when the value is not one. */
function fromJson(value: unknown): Fix | undefined {
  const parsed = structuredFix.safeParse(value);
  if (!parsed.success) return undefined;
  const toolCalls = (parsed.data.toolCalls ?? []).map((call) => ({
    name: call.name,
    arguments: argumentsOf(call.arguments),
  }));
  let text = parsed.data.content ?? parsed.data.text ?? '';
  // A step that only calls tools shows its calls as its text (callsText); a fix that echoes that
  // would be replayed as a reply saying `name(arguments)` beside the very calls.
  if (toolCalls.length > 0 && text.trim() === callsText(toolCalls)) text = '';
  return toolCalls.length > 0 ? { text, toolCalls } : { text };
}

/**
 * The fix `--fix` gives: its JSON form when it is one (`{"content", "toolCalls"}`, tool calls
 * empty or left out for a step that only speaks, or `{"text", "toolCalls"}` as replay prints a
 * fix), else the text itself.
 */
export function parseFix(value: string): Fix {
  const trimmed = value.trim();
  if (!trimmed) throw new UserError('--fix is empty: give the text the step should say instead');
  let json: unknown;
  if (trimmed.startsWith('{')) {
    try {
      json = JSON.parse(trimmed);
    } catch {
      // Not JSON: the fix is the text as given.
    }
  }
  const fix = json === undefined ? undefined : fromJson(json);
  if (!fix) return { text: value };
  if (!fix.text.trim() && !fix.toolCalls)
    throw new UserError(
      '--fix gives neither content nor tool calls: say what the step should say ("content") or call ("toolCalls")',
    );
  return fix;
}

/** A fix as one line for messages. */
export function describeFix(fix: Fix): string {
  const calls = fix.toolCalls?.length ? callsText(fix.toolCalls) : '';
  const text = [fix.text.trim(), calls].filter(Boolean).join(' ').replace(/\s+/g, ' ');
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}

/** Characters of each earlier step shown to the fix writer, and how many earlier steps. */
const STEP_CHARACTERS = 1_500;
const EARLIER_STEPS = 40;

const shortened = (text: string) =>
  text.length > STEP_CHARACTERS
    ? `${text.slice(0, STEP_CHARACTERS)}\n[… ${text.length - STEP_CHARACTERS} characters omitted …]`
    : text;

const SYSTEM = `You rewrite one step of a multi-agent run that failed, as the agent of that step should have written it, so that the run can succeed. Keep the agent's role, format and conventions (the next agents read its output as before): change what is wrong and nothing else. When the step called tools, give the calls it should make instead, with their arguments as JSON text. Reply with JSON only: {"content": "<what the step says>", "toolCalls": [{"name": "<tool>", "arguments": "<JSON arguments>"}]} (toolCalls empty when the step calls no tool).`;

/** The prompt a fix writer reads: task, the run up to the step, the step, and why it was blamed. */
export function fixPrompt(trace: Trace, step: number, reason: string): string {
  const target = trace.steps[step]!;
  const earlier = trace.steps.slice(Math.max(0, step - EARLIER_STEPS), step);
  const lines = [`Task: ${trace.question?.trim() || '(not recorded)'}`, ''];
  if (step > earlier.length) lines.push(`(${step - earlier.length} earlier steps omitted)`);
  lines.push(
    'The run so far:',
    ...earlier.map(
      (item) =>
        `Step ${item.index} - ${item.speaker} (${item.role}):\n${shortened(stepText(item))}\n`,
    ),
    `Step to rewrite: Step ${step} - ${target.speaker} (${target.role})`,
  );
  const calls = target.toolCalls?.length ? callsText(target.toolCalls) : '';
  // A step that only called tools has its calls as its content: they are shown once, as calls.
  const said = target.content.trim() === calls ? '' : target.content.trim();
  lines.push('It said:', said || '(nothing)');
  if (calls) lines.push('It called tools:', calls);
  lines.push(
    '',
    `Why it was blamed: ${reason}`,
    '',
    `Write step ${step} again, as ${target.speaker} should have.`,
  );
  return lines.join('\n');
}

const replySchema = z.object({
  content: z.string(),
  toolCalls: z.array(z.object({ name: z.string(), arguments: z.string() })),
});

/** Asks a model for the fix of `step`. */
export async function writeFix(
  client: ModelClient,
  trace: Trace,
  step: number,
  reason: string,
): Promise<Fix> {
  const reply = await client.generate({
    system: SYSTEM,
    prompt: fixPrompt(trace, step, reason),
    schema: replySchema,
    schemaName: 'step_fix',
  });
  const text = reply.text.trim();
  // From the first `{` to the last `}`, by position (a pattern would rescan from every `{`).
  const open = text.indexOf('{');
  const close = text.lastIndexOf('}');
  const json = open >= 0 && close > open ? text.slice(open, close + 1) : undefined;
  if (json) {
    try {
      const fix = fromJson(JSON.parse(json));
      if (fix && (fix.text.trim() || fix.toolCalls)) return fix;
    } catch {
      // A reply that is not the JSON asked for is taken as the step's text.
    }
  }
  if (!text)
    throw new UserError(
      `${client.spec.provider}:${client.spec.model} wrote an empty fix for step ${step}`,
    );
  return { text };
}
