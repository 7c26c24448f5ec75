/**
 * The original tool's input: any JSON with a `history` or `conversation` array of
 * `{role, name?, content}` plus optional `question` and `ground_truth`; also a bare array of such
 * messages, or JSON Lines with one message per line; and a tau-bench result (`traj`, the OpenAI
 * chat messages of a customer-service run with its simulated user and tools, and `reward`: 1 a
 * success, less a failure). tau-bench's results file, a list of results, reads as one run each
 * (trace/import-input.ts).
 */
import { z } from 'zod';
import { buildTrace } from '../build-trace.js';
import { isObject, JSON_LINES, validate, type TraceFormat } from '../format.js';
import type { RawInput } from '../read-input.js';
import {
  draftStepsFromMessages,
  labelsFromMistakeFields,
  modesFromMastField,
  requireSteps,
} from '../chat-messages.js';

const NAME = 'messages';

const envelopeSchema = z.object({
  question: z.string().nullish(),
  task: z.string().nullish(),
  ground_truth: z.union([z.string(), z.number()]).nullish(),
  groundTruth: z.union([z.string(), z.number()]).nullish(),
  mistake_agent: z.string().nullish(),
  mistake_step: z.union([z.string(), z.number()]).nullish(),
  mistake_reason: z.string().nullish(),
  /** MAST modes present in the run (MAD's `{"1.1": 0, "1.3": 1, ...}`). */
  mast: z.record(z.string(), z.union([z.number(), z.boolean()])).nullish(),
  /** The system, model and benchmark, as MAD names them. */
  mas: z.string().nullish(),
  llm: z.string().nullish(),
  benchmark: z.string().nullish(),
  /** tau-bench: 1 when the run succeeded. */
  reward: z.number().nullish(),
});

function isMessage(value: unknown): boolean {
  return (
    isObject(value) &&
    'content' in value &&
    ('role' in value || 'name' in value) &&
    !('type' in value && 'source' in value)
  );
}

function messageList(
  input: RawInput,
): { field: string; messages: unknown[]; envelope: unknown } | undefined {
  if (input.kind === 'jsonl') {
    return input.records.length > 0 && input.records.every(isMessage)
      ? { field: JSON_LINES, messages: input.records, envelope: {} }
      : undefined;
  }
  if (input.kind !== 'json') return undefined;
  const { value } = input;
  if (Array.isArray(value))
    return value.length > 0 && isMessage(value[0])
      ? { field: '', messages: value, envelope: {} }
      : undefined;
  if (!isObject(value)) return undefined;
  if (Array.isArray(value.history))
    return { field: 'history', messages: value.history, envelope: value };
  if (Array.isArray(value.conversation))
    return { field: 'conversation', messages: value.conversation, envelope: value };
  if (Array.isArray(value.traj)) return { field: 'traj', messages: value.traj, envelope: value };
  return undefined;
}

export const messagesFormat: TraceFormat = {
  name: NAME,
  description:
    'a `history` or `conversation` array of {role, name?, content} (JSON or JSON Lines), or a tau-bench result (`traj`)',
  detect(input) {
    return messageList(input) !== undefined;
  },
  parse(input, context) {
    const list = messageList(input);
    const field = list?.field ?? 'history';
    const messages = list?.messages ?? [];
    requireSteps(messages, context.file, NAME, field || 'the message list');
    const envelope = validate(envelopeSchema, list?.envelope ?? {}, {
      file: context.file,
      format: NAME,
    });
    const steps = draftStepsFromMessages(messages, {
      file: context.file,
      format: NAME,
      field,
      speaker: 'name-then-role',
    });
    const groundTruth = envelope.ground_truth ?? envelope.groundTruth;
    const modes = modesFromMastField(envelope.mast);
    const labels = {
      ...labelsFromMistakeFields(envelope),
      ...(modes.length > 0 || envelope.mast ? { modes } : {}),
    };
    return [
      buildTrace({
        id: context.id,
        format: NAME,
        source: context.file,
        ...((envelope.question ?? envelope.task)
          ? { question: (envelope.question ?? envelope.task)! }
          : {}),
        ...(groundTruth !== null && groundTruth !== undefined
          ? { groundTruth: String(groundTruth) }
          : {}),
        steps,
        ...(typeof envelope.reward === 'number'
          ? { outcome: envelope.reward >= 1 ? ('success' as const) : ('failure' as const) }
          : {}),
        ...(envelope.mas || envelope.llm || envelope.benchmark
          ? {
              metadata: {
                ...(envelope.mas ? { system: envelope.mas } : {}),
                ...(envelope.llm ? { llm: envelope.llm } : {}),
                ...(envelope.benchmark ? { benchmark: envelope.benchmark } : {}),
              },
            }
          : {}),
        labels,
      }),
    ];
  },
};
