/**
 * Who&When benchmark records (ICML 2025). Algorithm-Generated files name the speaker in
 * `history[i].name`; Hand-Crafted (Magentic-One) files in `history[i].role`. `mistake_step` is a
 * string index into `history`; `is_correct` and `is_corrected` both occur.
 */
import { z } from 'zod';
import { buildTrace } from '../build-trace.js';
import { isObject, validate, type TraceFormat } from '../format.js';
import {
  draftStepsFromMessages,
  labelsFromMistakeFields,
  modesFromMastField,
  requireSteps,
} from '../chat-messages.js';

const NAME = 'who-and-when';

const recordSchema = z.object({
  history: z.array(z.unknown()),
  question: z.string().nullish(),
  question_ID: z.union([z.string(), z.number()]).nullish(),
  level: z.union([z.string(), z.number()]).nullish(),
  ground_truth: z.union([z.string(), z.number()]).nullish(),
  is_correct: z.boolean().nullish(),
  is_corrected: z.boolean().nullish(),
  mistake_agent: z.string().nullish(),
  mistake_step: z.union([z.string(), z.number()]).nullish(),
  mistake_reason: z.string().nullish(),
  mistake_type: z.string().nullish(),
  /** MAST modes present in the run, when the record carries them (`{"1.1": 0, ...}`). */
  mast: z.record(z.string(), z.union([z.number(), z.boolean()])).nullish(),
});

const LABEL_KEYS = ['mistake_agent', 'mistake_step', 'question_ID', 'is_correct', 'is_corrected'];

export const whoAndWhenFormat: TraceFormat = {
  name: NAME,
  description: 'Who&When benchmark records (Algorithm-Generated and Hand-Crafted)',
  detect(input) {
    return (
      input.kind === 'json' &&
      isObject(input.value) &&
      Array.isArray(input.value.history) &&
      LABEL_KEYS.some((key) => key in (input.value as object))
    );
  },
  parse(input, context) {
    const value = input.kind === 'json' ? input.value : undefined;
    const record = validate(recordSchema, value, { file: context.file, format: NAME });
    requireSteps(record.history, context.file, NAME, 'history');
    // Hand-Crafted records have no `name` anywhere: their speaker is the role.
    const speakerInName = record.history.some(
      (message) => isObject(message) && typeof message.name === 'string',
    );
    const steps = draftStepsFromMessages(record.history, {
      file: context.file,
      format: NAME,
      field: 'history',
      speaker: speakerInName ? 'name-then-role' : 'role',
    });
    const correct = record.is_correct ?? record.is_corrected;
    const modes = modesFromMastField(record.mast);
    const labels = {
      ...labelsFromMistakeFields(record),
      ...(modes.length > 0 || record.mast ? { modes } : {}),
    };
    return [
      buildTrace({
        id: context.id,
        format: NAME,
        source: context.file,
        ...(record.question ? { question: record.question } : {}),
        ...(record.ground_truth !== null && record.ground_truth !== undefined
          ? { groundTruth: String(record.ground_truth) }
          : {}),
        outcome: correct === true ? 'success' : correct === false ? 'failure' : 'unknown',
        steps,
        metadata: {
          subset: speakerInName ? 'Algorithm-Generated' : 'Hand-Crafted',
          ...(record.level !== null && record.level !== undefined
            ? { level: String(record.level) }
            : {}),
          ...(record.mistake_type ? { mistakeType: record.mistake_type } : {}),
        },
        labels,
      }),
    ];
  },
};
