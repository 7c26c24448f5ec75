/**
 * The legacy Magentic-One `log.jsonl` written by its LogHandler: one JSON record per line with
 * `source` (e.g. `Orchestrator (-> WebSurfer)`), `message`, `type` and `timestamp`. Records
 * without a source (LLM call accounting) are not steps.
 */
import { z } from 'zod';
import { TraceFormatError } from '../../errors.js';
import { buildTrace, type DraftStep } from '../build-trace.js';
import {
  argumentsText,
  isObject,
  itemPosition,
  JSON_LINES,
  textOf,
  validate,
  type TraceFormat,
} from '../format.js';
import { requireSteps } from '../chat-messages.js';

const NAME = 'magentic-one';

const recordSchema = z.object({
  source: z.string().nullish(),
  message: z.unknown().optional(),
  type: z.string().nullish(),
  timestamp: z.string().nullish(),
  action: z.string().nullish(),
  arguments: z.unknown().optional(),
});

const isRecord = (item: unknown) =>
  isObject(item) &&
  typeof item.type === 'string' &&
  ('source' in item || /Event$/.test(String(item.type))) &&
  !('agent_id' in item);

export const magenticOneFormat: TraceFormat = {
  name: NAME,
  description: 'Magentic-One log.jsonl (LogHandler records with source and message)',
  detect(input) {
    return (
      input.kind === 'jsonl' &&
      input.records.length > 0 &&
      input.records.every(isRecord) &&
      input.records.some(
        (item) => isObject(item) && typeof item.source === 'string' && 'message' in item,
      )
    );
  },
  parse(input, context) {
    if (input.kind !== 'jsonl')
      throw new TraceFormatError(context.file, 'expected JSON Lines', { format: NAME });
    const steps: DraftStep[] = [];
    input.records.forEach((raw, index) => {
      const record = validate(recordSchema, raw, {
        file: context.file,
        format: NAME,
        prefix: itemPosition(JSON_LINES, index),
      });
      if (!record.source || record.message === undefined) return;
      const step: DraftStep = { speaker: record.source, content: textOf(record.message) };
      if (record.timestamp) step.timestamp = record.timestamp;
      if (record.action)
        step.toolCalls = [{ name: record.action, arguments: argumentsText(record.arguments) }];
      steps.push(step);
    });
    requireSteps(steps, context.file, NAME, 'records');
    const finalAnswer = steps.find((step) => /final answer/i.test(step.speaker));
    return [
      buildTrace({
        id: context.id,
        format: NAME,
        source: context.file,
        steps,
        metadata: finalAnswer ? { finalAnswer: finalAnswer.content.trim() } : {},
      }),
    ];
  },
};
