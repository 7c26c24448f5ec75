/**
 * OpenInference spans (Arize Phoenix, smolagents and LlamaIndex instrumentation): in OTLP/JSON,
 * or as Phoenix's REST `GET /v1/projects/{p}/spans` answer. Kinds come from
 * `openinference.span.kind`; LLM messages are flattened as `llm.output_messages.{i}.message.*`.
 */
import { z } from 'zod';
import { TraceFormatError } from '../../errors.js';
import { buildTrace } from '../build-trace.js';
import { argumentsText, isObject, textOf, validate, type TraceFormat } from '../format.js';
import { callsText } from '../step-text.js';
import type { ToolCall } from '../model.js';
import { decodeOtlp, isOtlp, someString } from '../otlp.js';
import type { RawInput } from '../read-input.js';
import {
  isoOfNanos,
  sortKeyOfTime,
  stepsFromSpans,
  setModelUsage,
  withQuestionStep,
  type NeutralSpan,
} from '../spans.js';
import { requireSteps } from '../chat-messages.js';

const NAME = 'openinference';
/** The attribute that marks an OpenInference span. */
const SPAN_KIND = 'openinference.span.kind';

/** One span with attributes already as a flat map, whichever envelope it came in. */
interface FlatSpan {
  traceId: string;
  spanId: string;
  parentId?: string;
  name: string;
  start: bigint;
  end: bigint;
  attributes: Record<string, unknown>;
  error?: string;
}

const phoenixSchema = z.object({
  data: z.array(
    z.object({
      name: z.string().nullish(),
      context: z.object({ trace_id: z.string().nullish(), span_id: z.string() }),
      parent_id: z.string().nullish(),
      span_kind: z.string().nullish(),
      start_time: z.string().nullish(),
      end_time: z.string().nullish(),
      status_code: z.string().nullish(),
      status_message: z.string().nullish(),
      attributes: z.record(z.string(), z.unknown()).nullish(),
    }),
  ),
});

/** Phoenix may nest attributes (`{llm: {model_name}}`); flatten to dotted keys. */
function flatten(
  value: Record<string, unknown>,
  prefix = '',
  out: Record<string, unknown> = {},
): Record<string, unknown> {
  for (const [key, inner] of Object.entries(value)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (isObject(inner)) flatten(inner, path, out);
    else if (Array.isArray(inner) && inner.every(isObject))
      inner.forEach((item, index) => flatten(item, `${path}.${index}`, out));
    else out[path] = inner;
  }
  return out;
}

function flatSpans(input: RawInput, file: string): FlatSpan[] {
  if (input.kind !== 'json')
    throw new TraceFormatError(file, 'expected JSON spans', { format: NAME });
  if (isOtlp(input.value)) {
    return decodeOtlp(input.value, { file, format: NAME }).map((span) => ({
      traceId: span.traceId,
      spanId: span.spanId,
      ...(span.parentSpanId ? { parentId: span.parentSpanId } : {}),
      name: span.name,
      start: span.start,
      end: span.end,
      attributes: span.attributes,
      ...(span.error ? { error: span.error } : {}),
    }));
  }
  const phoenix = validate(phoenixSchema, input.value, { file, format: NAME });
  return phoenix.data.map((span) => {
    const attributes = flatten(span.attributes ?? {});
    if (span.span_kind && !attributes[SPAN_KIND]) attributes[SPAN_KIND] = span.span_kind;
    return {
      traceId: span.context.trace_id ?? '',
      spanId: span.context.span_id,
      ...(span.parent_id ? { parentId: span.parent_id } : {}),
      name: span.name ?? '',
      start: sortKeyOfTime(span.start_time),
      end: sortKeyOfTime(span.end_time),
      attributes,
      ...(span.status_code === 'ERROR' ? { error: span.status_message || 'error' } : {}),
    };
  });
}

/** Collects `prefix.{i}.suffix` attributes in index order. */
function indexed(
  attributes: Record<string, unknown>,
  prefix: string,
): Map<number, Record<string, unknown>> {
  const out = new Map<number, Record<string, unknown>>();
  for (const [key, value] of Object.entries(attributes)) {
    if (!key.startsWith(`${prefix}.`)) continue;
    const rest = key.slice(prefix.length + 1);
    const dot = rest.indexOf('.');
    const index = Number(dot === -1 ? rest : rest.slice(0, dot));
    if (!Number.isInteger(index)) continue;
    const entry = out.get(index) ?? {};
    entry[dot === -1 ? '' : rest.slice(dot + 1)] = value;
    out.set(index, entry);
  }
  return new Map([...out.entries()].sort((left, right) => left[0] - right[0]));
}

function outputOf(attributes: Record<string, unknown>): { text: string; toolCalls: ToolCall[] } {
  const messages = [...indexed(attributes, 'llm.output_messages').values()];
  const toolCalls: ToolCall[] = [];
  const texts: string[] = [];
  for (const message of messages) {
    if (typeof message['message.content'] === 'string') texts.push(message['message.content']);
    const calls = indexed(message, 'message.tool_calls');
    for (const call of calls.values()) {
      const id = call['tool_call.id'];
      toolCalls.push({
        ...(typeof id === 'string' ? { id } : {}),
        name: String(call['tool_call.function.name'] ?? 'unknown'),
        arguments: argumentsText(call['tool_call.function.arguments']),
      });
    }
  }
  const text = texts.join('\n') || textOf(attributes['output.value']) || callsText(toolCalls);
  return { text, toolCalls };
}

function neutral(span: FlatSpan): NeutralSpan {
  const kind = String(span.attributes[SPAN_KIND] ?? '').toUpperCase();
  const out: NeutralSpan = {
    id: span.spanId,
    start: span.start,
    end: span.end,
    kind: 'other',
    name: span.name,
    content: textOf(span.attributes['output.value']),
  };
  setModelUsage(
    out,
    span.attributes['llm.model_name'],
    span.attributes['llm.token_count.prompt'],
    span.attributes['llm.token_count.completion'],
  );
  const timestamp = isoOfNanos(span.start);
  if (timestamp) out.timestamp = timestamp;
  if (span.parentId) out.parentId = span.parentId;
  if (span.error) out.error = span.error;
  if (kind === 'AGENT') {
    out.kind = 'agent';
    out.name = String(
      span.attributes['agent.name'] ?? span.attributes['graph.node.id'] ?? span.name,
    );
  } else if (kind === 'LLM') {
    const output = outputOf(span.attributes);
    Object.assign(out, {
      kind: 'llm',
      name: String(span.attributes['llm.model_name'] ?? span.name),
      content: output.text,
      toolCalls: output.toolCalls,
    });
  } else if (kind === 'TOOL') {
    out.kind = 'tool';
    out.name = String(span.attributes['tool.name'] ?? span.name);
    const args = textOf(span.attributes['input.value']);
    const result = textOf(span.attributes['output.value']);
    out.content = [args ? `${out.name}(${args})` : '', result].filter(Boolean).join('\n');
    const id = span.attributes['tool_call.id'];
    out.call = { ...(typeof id === 'string' ? { id } : {}), name: out.name, arguments: args };
    out.toolResults = [
      { ...(typeof id === 'string' ? { id } : {}), name: out.name, content: result },
    ];
  }
  return out;
}

function looksLikeOpenInference(input: RawInput): boolean {
  if (input.kind !== 'json') return false;
  const { value } = input;
  // The span kind attribute's name, as the export's JSON text would show it quoted.
  if (isOtlp(value))
    return someString(
      value.resourceSpans,
      (text) => text === SPAN_KIND || text.endsWith(`"${SPAN_KIND}`),
    );
  return (
    isObject(value) &&
    Array.isArray(value.data) &&
    value.data.some(
      (span) =>
        isObject(span) && isObject(span.context) && ('span_kind' in span || 'attributes' in span),
    )
  );
}

export const openInferenceFormat: TraceFormat = {
  name: NAME,
  description: 'OpenInference spans (Arize Phoenix), in OTLP/JSON or Phoenix REST form',
  detect: looksLikeOpenInference,
  parse(input, context) {
    const spans = flatSpans(input, context.file);
    const ids = new Set(spans.map((span) => span.spanId));
    const root = spans.find((span) => !span.parentId || !ids.has(span.parentId));
    const question = root ? textOf(root.attributes['input.value']) : '';
    const steps = withQuestionStep(question, stepsFromSpans(spans.map(neutral)));
    requireSteps(steps, context.file, NAME, 'spans');
    return [
      buildTrace({
        id: root?.traceId || context.id,
        format: NAME,
        source: context.file,
        ...(question ? { question } : {}),
        steps,
      }),
    ];
  },
};
