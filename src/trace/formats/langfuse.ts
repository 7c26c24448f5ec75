/**
 * Langfuse trace exports (`GET /api/public/traces/{id}`, also the UI's "download trace"): a trace
 * with `observations` of type AGENT, GENERATION, TOOL, SPAN, EVENT, ...; hierarchy through
 * `parentObservationId`; `level: ERROR` with `statusMessage` marks failures.
 */
import { z } from 'zod';
import { TraceFormatError } from '../../errors.js';
import { buildTrace } from '../build-trace.js';
import {
  openAiToolCalls,
  argumentsText,
  isObject,
  textOf,
  validate,
  type TraceFormat,
} from '../format.js';
import { callsText } from '../step-text.js';
import {
  sortKeyOfTime,
  stepsFromSpans,
  setModelUsage,
  withQuestionStep,
  type NeutralSpan,
} from '../spans.js';
import { requireSteps } from '../chat-messages.js';

const NAME = 'langfuse';

const observationSchema = z.object({
  id: z.string(),
  type: z.string(),
  name: z.string().nullish(),
  parentObservationId: z.string().nullish(),
  startTime: z.string().nullish(),
  endTime: z.string().nullish(),
  model: z.string().nullish(),
  usageDetails: z.record(z.string(), z.unknown()).nullish(),
  usage: z.record(z.string(), z.unknown()).nullish(),
  level: z.string().nullish(),
  statusMessage: z.string().nullish(),
  input: z.unknown().optional(),
  output: z.unknown().optional(),
  metadata: z.unknown().optional(),
});

const traceSchema = z.object({
  id: z.string().nullish(),
  name: z.string().nullish(),
  input: z.unknown().optional(),
  output: z.unknown().optional(),
  observations: z.array(z.unknown()),
});

function generationOutput(output: unknown): Pick<NeutralSpan, 'content' | 'toolCalls'> {
  const message = isObject(output) ? output : undefined;
  const toolCalls = openAiToolCalls(message);
  const text = message ? textOf(message.content) : textOf(output);
  return {
    content: text || callsText(toolCalls),
    toolCalls,
  };
}

function questionOf(input: unknown): string {
  if (typeof input === 'string') return input;
  if (isObject(input)) {
    for (const key of ['question', 'input', 'query', 'task', 'prompt'])
      if (typeof input[key] === 'string') return input[key];
  }
  return '';
}

export const langfuseFormat: TraceFormat = {
  name: NAME,
  description: 'Langfuse trace exports (trace with observations)',
  detect(input) {
    return (
      input.kind === 'json' && isObject(input.value) && Array.isArray(input.value.observations)
    );
  },
  parse(input, context) {
    if (input.kind !== 'json')
      throw new TraceFormatError(context.file, 'expected a Langfuse trace JSON', { format: NAME });
    const trace = validate(traceSchema, input.value, { file: context.file, format: NAME });
    const spans = trace.observations.map((raw, index): NeutralSpan => {
      const observation = validate(observationSchema, raw, {
        file: context.file,
        format: NAME,
        prefix: `observations[${index}]`,
      });
      const out: NeutralSpan = {
        id: observation.id,
        start: sortKeyOfTime(observation.startTime),
        end: sortKeyOfTime(observation.endTime),
        kind: 'other',
        name: observation.name ?? observation.type,
        content: '',
      };
      // usageDetails (current API) or usage (older exports): input/output token counts.
      const usage = observation.usageDetails ?? observation.usage ?? {};
      setModelUsage(
        out,
        observation.model,
        usage.input ?? usage.promptTokens,
        usage.output ?? usage.completionTokens,
      );
      if (observation.startTime) out.timestamp = observation.startTime;
      if (observation.parentObservationId) out.parentId = observation.parentObservationId;
      if (observation.level === 'ERROR') out.error = observation.statusMessage || 'error';
      switch (observation.type) {
        case 'AGENT':
          Object.assign(out, { kind: 'agent', content: textOf(observation.output) });
          break;
        case 'GENERATION':
          Object.assign(out, { kind: 'llm' }, generationOutput(observation.output));
          break;
        case 'TOOL': {
          const result = textOf(observation.output);
          out.kind = 'tool';
          out.call = { name: out.name, arguments: argumentsText(observation.input) };
          out.content = [callsText([out.call]), result].filter(Boolean).join('\n');
          out.toolResults = [
            { name: out.name, content: result, ...(out.error ? { isError: true } : {}) },
          ];
          break;
        }
      }
      return out;
    });
    const question = questionOf(trace.input);
    const steps = withQuestionStep(question, stepsFromSpans(spans));
    requireSteps(steps, context.file, NAME, 'observations');
    return [
      buildTrace({
        id: trace.id ?? context.id,
        format: NAME,
        source: context.file,
        ...(question ? { question } : {}),
        steps,
        metadata: trace.name ? { name: trace.name } : {},
      }),
    ];
  },
};
