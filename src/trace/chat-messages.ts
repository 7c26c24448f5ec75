/**
 * OpenAI-style message lists (`{role, name?, content, tool_calls?}`), the shape shared by
 * Who&When, the original tool's `history`/`conversation` files and AG2 group chats.
 */
import { z } from 'zod';
import { TraceFormatError } from '../errors.js';
import type { DraftStep } from './build-trace.js';
import { argumentsText, itemPosition, textOf, validate } from './format.js';
import { readLogprobs } from './logprobs.js';
import { callsText } from './step-text.js';
import type { StepRole, TraceLabels } from './model.js';

const toolCallSchema = z.object({
  id: z.string().nullish(),
  function: z.object({ name: z.string(), arguments: z.unknown().nullish() }).nullish(),
  name: z.string().nullish(),
  arguments: z.unknown().nullish(),
});

const toolResponseSchema = z.object({
  tool_call_id: z.string().nullish(),
  name: z.string().nullish(),
  content: z.unknown().nullish(),
});

/** One message; only the fields faultline reads are declared. */
export const chatMessageSchema = z.object({
  role: z.string().nullish(),
  name: z.string().nullish(),
  content: z.unknown(),
  tool_calls: z.array(toolCallSchema).nullish(),
  tool_responses: z.array(toolResponseSchema).nullish(),
  tool_call_id: z.string().nullish(),
  timestamp: z.union([z.string(), z.number()]).nullish(),
  /** Token log probabilities logged with the reply (a Chat Completions choice's `logprobs`). */
  logprobs: z.unknown().nullish(),
});

export type ChatMessage = z.infer<typeof chatMessageSchema>;

/** Where the speaker is written. Who&When Hand-Crafted keeps it in `role`. */
export type SpeakerField = 'name-then-role' | 'role';

function roleFromMessage(message: ChatMessage, speaker: string): StepRole | undefined {
  const role = message.role?.toLowerCase();
  if (role === 'tool' || role === 'function') return 'tool';
  if (role === 'system' && !message.name) return 'system';
  if (role === 'user' && !message.name && speaker === message.role) return 'human';
  return undefined;
}

/** Content as text, rejecting shapes that are not message text (a bare object, or null alone). */
function contentText(message: ChatMessage, position: string, file: string, format: string): string {
  const { content } = message;
  if (typeof content === 'string') return content;
  const hasTools =
    (message.tool_calls?.length ?? 0) > 0 || (message.tool_responses?.length ?? 0) > 0;
  if ((content === null || content === undefined) && hasTools) return '';
  if (Array.isArray(content)) return textOf(content);
  const found =
    content === null
      ? 'null'
      : content === undefined
        ? 'missing'
        : `${typeof content === 'object' ? 'an object' : typeof content}`;
  throw new TraceFormatError(file, `content is ${found}; expected the message text as a string`, {
    format,
    position: `${position}.content`,
  });
}

/**
 * Converts a list of chat messages into draft steps. Every message must name its speaker and
 * carry text (or tool calls); the first offence is reported with its position.
 */
export function draftStepsFromMessages(
  messages: readonly unknown[],
  options: { file: string; format: string; field: string; speaker: SpeakerField },
): DraftStep[] {
  // The tools called so far, by call id: a tool message without a name speaks as the tool whose
  // call it answers (OpenAI's `{"role": "tool", "tool_call_id": ...}`), not as a generic `tool`.
  const calledTools = new Map<string, string>();
  return messages.map((raw, index) => {
    const position = itemPosition(options.field, index);
    const message = validate(chatMessageSchema, raw, {
      file: options.file,
      format: options.format,
      prefix: position,
    });
    const answered =
      message.tool_call_id && /^(tool|function)$/i.test(message.role ?? '')
        ? calledTools.get(message.tool_call_id)
        : undefined;
    const speaker = (
      options.speaker === 'role' ? message.role : (message.name ?? answered ?? message.role)
    )?.trim();
    if (!speaker) {
      throw new TraceFormatError(options.file, 'the message names no speaker (no name or role)', {
        format: options.format,
        position,
      });
    }
    const step: DraftStep = {
      speaker,
      content: contentText(message, position, options.file, options.format),
    };
    const role = options.speaker === 'role' ? undefined : roleFromMessage(message, speaker);
    if (role) step.role = role;
    if (message.tool_calls) {
      step.toolCalls = message.tool_calls.map((call) => ({
        ...(call.id ? { id: call.id } : {}),
        name: call.function?.name ?? call.name ?? 'unknown',
        arguments: argumentsText(call.function?.arguments ?? call.arguments),
      }));
      // A turn that only calls tools reads as its calls, as in the other importers.
      if (!step.content.trim()) step.content = callsText(step.toolCalls);
      for (const call of step.toolCalls) if (call.id) calledTools.set(call.id, call.name);
    }
    if (message.tool_responses) {
      step.toolResults = message.tool_responses.map((response) => ({
        ...(response.tool_call_id ? { id: response.tool_call_id } : {}),
        ...(response.name ? { name: response.name } : {}),
        content: textOf(response.content),
      }));
    }
    if (message.timestamp !== null && message.timestamp !== undefined) {
      step.timestamp = String(message.timestamp);
    }
    const logprobs = readLogprobs(message.logprobs);
    if (logprobs) step.logprobs = logprobs;
    return step;
  });
}

/** Throws the standard error for a trace with no steps. */
export function requireSteps(
  steps: readonly unknown[],
  file: string,
  format: string,
  field: string,
): void {
  if (steps.length === 0) {
    throw new TraceFormatError(file, `${field} is empty: there are no steps to attribute`, {
      format,
      position: field,
    });
  }
}

/** Who&When's label fields, as written in its records and in files of the original tool. */
export interface MistakeFields {
  mistake_agent?: string | null | undefined;
  mistake_step?: string | number | null | undefined;
  mistake_reason?: string | null | undefined;
}

/** Labels from Who&When's `mistake_*` fields; `mistake_step` may be a string ("3"). */
export function labelsFromMistakeFields(fields: MistakeFields): TraceLabels {
  const step =
    fields.mistake_step === null || fields.mistake_step === undefined
      ? undefined
      : Number.parseInt(String(fields.mistake_step), 10);
  return {
    ...(fields.mistake_agent ? { agent: fields.mistake_agent } : {}),
    ...(step !== undefined && Number.isFinite(step) ? { step } : {}),
    ...(fields.mistake_reason ? { reason: fields.mistake_reason } : {}),
  };
}

/**
 * The MAST modes a run is labelled with, from a `mast` map of code to presence
 * (`{"1.1": 0, "1.3": 1, ...}`, as MAD and the shared mad-mast data write it).
 */
export function modesFromMastField(
  mast: Record<string, number | boolean> | null | undefined,
): string[] {
  if (!mast) return [];
  return Object.entries(mast)
    .filter(([, present]) => present === true || present === 1)
    .map(([code]) => code);
}
