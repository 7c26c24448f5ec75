/**
 * faultline's own canonical trace JSON (`faultline convert --to canonical`, `inspect --json`), read
 * back as written: steps keep their speakers, roles and indices.
 */
import { z } from 'zod';
import { TraceFormatError } from '../../errors.js';
import { buildTrace } from '../build-trace.js';
import { isObject, validate, type TraceFormat } from '../format.js';
import { readLogprobs } from '../logprobs.js';
import type { StepLogprobs } from '../model.js';
import { requireSteps } from '../chat-messages.js';

const NAME = 'canonical';

const stepSchema = z.object({
  index: z.number().int(),
  agent: z.string(),
  speaker: z.string(),
  role: z.enum(['agent', 'tool', 'human', 'system']),
  content: z.string(),
  toolCalls: z
    .array(z.object({ id: z.string().optional(), name: z.string(), arguments: z.string() }))
    .optional(),
  toolResults: z
    .array(
      z.object({
        id: z.string().optional(),
        name: z.string().optional(),
        content: z.string(),
        isError: z.boolean().optional(),
      }),
    )
    .optional(),
  timestamp: z.string().optional(),
  error: z.string().optional(),
  span: z
    .object({
      id: z.string(),
      parentId: z.string().optional(),
      durationMs: z.number().optional(),
      model: z.string().optional(),
      inputTokens: z.number().optional(),
      outputTokens: z.number().optional(),
    })
    .optional(),
  /** Kept as read: `readLogprobs` takes faultline's own summary or a provider's token list. */
  logprobs: z.unknown().optional(),
});

const traceSchema = z.object({
  id: z.string(),
  format: z.string(),
  question: z.string().optional(),
  groundTruth: z.string().optional(),
  outcome: z.enum(['success', 'failure', 'unknown']).optional(),
  steps: z.array(stepSchema),
  metadata: z.record(z.string(), z.unknown()).optional(),
  labels: z
    .object({
      agent: z.string().optional(),
      agents: z.array(z.string()).optional(),
      step: z.number().int().optional(),
      reason: z.string().optional(),
      faults: z.array(z.object({ agent: z.string(), mode: z.string() })).optional(),
      modes: z.array(z.string()).optional(),
      proof: z.object({ run: z.string(), replays: z.number().int() }).optional(),
    })
    .optional(),
  reference: z.string().optional(),
});

/** A step's log probabilities, where it has some this reader understands. */
function logprobsOf(value: unknown): { logprobs?: StepLogprobs } {
  const logprobs = readLogprobs(value);
  return logprobs ? { logprobs } : {};
}

const looksCanonical = (value: unknown) =>
  isObject(value) &&
  typeof value.format === 'string' &&
  Array.isArray(value.steps) &&
  Array.isArray(value.agents) &&
  value.steps.every((step) => isObject(step) && 'speaker' in step && 'role' in step);

export const canonicalFormat: TraceFormat = {
  name: NAME,
  description: "faultline's canonical trace JSON (convert --to canonical, inspect --json)",
  detect(input) {
    return (
      input.kind === 'json' &&
      (looksCanonical(input.value) ||
        (Array.isArray(input.value) && input.value.length > 0 && input.value.every(looksCanonical)))
    );
  },
  parse(input, context) {
    if (input.kind !== 'json')
      throw new TraceFormatError(context.file, 'expected canonical trace JSON', { format: NAME });
    const documents = Array.isArray(input.value) ? input.value : [input.value];
    return documents.map((document, documentIndex) => {
      const prefix = Array.isArray(input.value) ? `[${documentIndex}]` : '';
      const trace = validate(traceSchema, document, {
        file: context.file,
        format: NAME,
        ...(prefix ? { prefix } : {}),
      });
      requireSteps(trace.steps, context.file, NAME, 'steps');
      return buildTrace({
        id: trace.id,
        format: trace.format,
        source: context.file,
        ...(trace.question ? { question: trace.question } : {}),
        ...(trace.groundTruth ? { groundTruth: trace.groundTruth } : {}),
        ...(trace.outcome ? { outcome: trace.outcome } : {}),
        steps: trace.steps.map((step) => ({
          speaker: step.speaker,
          agent: step.agent,
          role: step.role,
          content: step.content,
          ...(step.toolCalls
            ? {
                toolCalls: step.toolCalls.map((call) => ({
                  ...(call.id ? { id: call.id } : {}),
                  name: call.name,
                  arguments: call.arguments,
                })),
              }
            : {}),
          ...(step.toolResults
            ? {
                toolResults: step.toolResults.map((result) => ({
                  ...(result.id ? { id: result.id } : {}),
                  ...(result.name ? { name: result.name } : {}),
                  content: result.content,
                  ...(result.isError ? { isError: true } : {}),
                })),
              }
            : {}),
          ...(step.timestamp ? { timestamp: step.timestamp } : {}),
          ...(step.error ? { error: step.error } : {}),
          ...logprobsOf(step.logprobs),
        })),
        ...(trace.metadata ? { metadata: trace.metadata } : {}),
        ...(trace.labels ? { labels: trace.labels } : {}),
        ...(trace.reference ? { reference: trace.reference } : {}),
      });
    });
  },
};
