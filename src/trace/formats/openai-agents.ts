/**
 * OpenAI Agents SDK traces: the `{data: [trace | trace.span]}` batch its exporter posts (Python
 * `Span.export()`, JS `toJSON()`), or a bare span list. The agent is the `span_data.name` of the
 * enclosing `agent` span; `function` spans are tool calls; `handoff` spans move control.
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
import type { RawInput } from '../read-input.js';
import {
  NO_AGENT,
  sortKeyOfTime,
  stepsFromSpans,
  setModelUsage,
  type NeutralSpan,
} from '../spans.js';
import { requireSteps } from '../chat-messages.js';

const NAME = 'openai-agents';

const spanSchema = z.object({
  id: z.string(),
  trace_id: z.string().nullish(),
  parent_id: z.string().nullish(),
  started_at: z.string().nullish(),
  ended_at: z.string().nullish(),
  error: z.object({ message: z.string().nullish(), data: z.unknown().nullish() }).nullish(),
  span_data: z.object({
    type: z.string(),
    name: z.string().nullish(),
    input: z.unknown().nullish(),
    output: z.unknown().nullish(),
    from_agent: z.string().nullish(),
    to_agent: z.string().nullish(),
    model: z.string().nullish(),
    usage: z.record(z.string(), z.unknown()).nullish(),
    response: z.unknown().nullish(),
    triggered: z.boolean().nullish(),
  }),
});

function records(input: RawInput): unknown[] | undefined {
  if (input.kind === 'jsonl') return input.records;
  if (input.kind !== 'json') return undefined;
  if (Array.isArray(input.value)) return input.value;
  if (isObject(input.value) && Array.isArray(input.value.data)) return input.value.data;
  return undefined;
}

const isSpan = (item: unknown) =>
  isObject(item) && isObject(item.span_data) && typeof item.span_data.type === 'string';

/** Assistant text and tool calls from generation output (chat-completions message list). */
function generationOutput(output: unknown): Pick<NeutralSpan, 'content' | 'toolCalls'> {
  const messages = Array.isArray(output)
    ? output.filter(isObject)
    : isObject(output)
      ? [output]
      : [];
  const toolCalls = messages.flatMap((message) => openAiToolCalls(message));
  const text = messages
    .map((message) => textOf(message.content))
    .filter(Boolean)
    .join('\n');
  return {
    content: text || callsText(toolCalls),
    toolCalls,
  };
}

export const openAiAgentsFormat: TraceFormat = {
  name: NAME,
  description:
    'OpenAI Agents SDK trace exports (agent, generation/response, function, handoff spans)',
  detect(input) {
    const list = records(input);
    return list !== undefined && list.some(isSpan);
  },
  parse(input, context) {
    const list = records(input);
    if (!list)
      throw new TraceFormatError(context.file, 'expected {"data": [...]} of trace spans', {
        format: NAME,
      });
    const traceRecord = list.find((item) => isObject(item) && item.object === 'trace');
    const spans: NeutralSpan[] = [];
    list.forEach((raw, index) => {
      if (!isSpan(raw)) return;
      const span = validate(spanSchema, raw, {
        file: context.file,
        format: NAME,
        prefix: `data[${index}]`,
      });
      const data = span.span_data;
      const out: NeutralSpan = {
        id: span.id,
        start: sortKeyOfTime(span.started_at),
        end: sortKeyOfTime(span.ended_at),
        kind: 'other',
        name: data.name ?? data.type,
        content: '',
      };
      setModelUsage(out, data.model, data.usage?.input_tokens, data.usage?.output_tokens);
      if (span.started_at) out.timestamp = span.started_at;
      if (span.parent_id) out.parentId = span.parent_id;
      if (span.error)
        out.error = [span.error.message, span.error.data ? JSON.stringify(span.error.data) : '']
          .filter(Boolean)
          .join(': ');
      switch (data.type) {
        case 'agent':
          out.kind = 'agent';
          break;
        case 'generation':
          Object.assign(out, { kind: 'llm', name: NO_AGENT }, generationOutput(data.output));
          break;
        case 'response': {
          // Content is only exported by custom processors; otherwise the step says so.
          const response = isObject(data.response) ? data.response : undefined;
          Object.assign(out, {
            kind: 'llm',
            name: NO_AGENT,
            content: response
              ? textOf(response.output_text ?? response.output)
              : '(model response; content not exported)',
          });
          break;
        }
        case 'function':
          out.kind = 'tool';
          out.call = { name: out.name, arguments: argumentsText(data.input) };
          out.content = [callsText([out.call]), textOf(data.output)].filter(Boolean).join('\n');
          out.toolResults = [
            {
              name: out.name,
              content: textOf(data.output),
              ...(span.error ? { isError: true } : {}),
            },
          ];
          break;
        case 'handoff':
          Object.assign(out, {
            kind: 'handoff',
            name: data.from_agent ?? 'agent',
            ...(data.to_agent ? { target: data.to_agent } : {}),
          });
          break;
        case 'guardrail':
          if (data.triggered)
            Object.assign(out, {
              error: `guardrail ${data.name ?? ''} triggered`.replace('  ', ' '),
            });
          break;
      }
      spans.push(out);
    });
    const steps = stepsFromSpans(spans);
    requireSteps(steps, context.file, NAME, 'data');
    const workflow =
      isObject(traceRecord) && typeof traceRecord.workflow_name === 'string'
        ? traceRecord.workflow_name
        : undefined;
    const traceId =
      isObject(traceRecord) && typeof traceRecord.id === 'string' ? traceRecord.id : undefined;
    return [
      buildTrace({
        id: traceId ?? context.id,
        format: NAME,
        source: context.file,
        steps,
        metadata: workflow ? { workflow } : {},
      }),
    ];
  },
};
