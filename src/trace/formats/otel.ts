/**
 * OpenTelemetry GenAI semantic conventions in OTLP/JSON: `invoke_agent`, `chat` and
 * `execute_tool` spans, agent names in `gen_ai.agent.name`, messages in
 * `gen_ai.input.messages` / `gen_ai.output.messages` (or in span events, as older versions emit).
 * The conventions name no attribute for token log probabilities yet; a model call's are read from
 * `gen_ai.response.logprobs` (the provider's `logprobs` as JSON text), else from a `logprobs` field
 * of its `gen_ai.choice` events or of its output messages (src/trace/logprobs.ts reads the shapes).
 */
import { TraceFormatError } from '../../errors.js';
import { taskFromSpans } from '../task.js';
import { buildTrace } from '../build-trace.js';
import { parseJsonOr, argumentsText, isObject, textOf, type TraceFormat } from '../format.js';
import { readLogprobs, readLogprobsOfParts } from '../logprobs.js';
import { callsText } from '../step-text.js';
import type { StepLogprobs, ToolCall } from '../model.js';
import { decodeOtlp, isOtlp, someString, type OtlpSpan } from '../otlp.js';
import {
  neutralOfOtlp,
  NO_AGENT,
  noAgentNote,
  stepsFromSpans,
  setModelUsage,
  withQuestionStep,
  type NeutralSpan,
} from '../spans.js';
import { requireSteps } from '../chat-messages.js';
import { markedOutcome, sessionOf } from '../span-outcome.js';

const NAME = 'otel';

const LLM_OPERATIONS = new Set(['chat', 'text_completion', 'generate_content', 'completion']);

/** Text and tool calls of GenAI messages (`[{role, parts: [...]}]`) or legacy `{role, content}`. */
function readMessages(value: unknown): { role: string; text: string; toolCalls: ToolCall[] }[] {
  const parsed = parseJsonOr(value);
  const list = Array.isArray(parsed) ? parsed : parsed === undefined ? [] : [parsed];
  return list.filter(isObject).map((message) => {
    const role = typeof message.role === 'string' ? message.role : 'assistant';
    const toolCalls: ToolCall[] = [];
    const texts: string[] = [];
    if (Array.isArray(message.parts)) {
      for (const part of message.parts.filter(isObject)) {
        if (part.type === 'tool_call') {
          toolCalls.push({
            ...(typeof part.id === 'string' ? { id: part.id } : {}),
            name: String(part.name ?? 'unknown'),
            arguments: argumentsText(part.arguments),
          });
        } else if (part.type === 'tool_call_response') {
          texts.push(textOf(part.response ?? part.result));
        } else {
          texts.push(textOf(part.content ?? part.text));
        }
      }
    } else {
      texts.push(textOf(message.content));
    }
    const text = texts.filter(Boolean).join('\n') || callsText(toolCalls);
    return { role, text, toolCalls };
  });
}

/** Output messages from attributes, or from `gen_ai.choice` / legacy completion events. */
function outputMessages(span: OtlpSpan) {
  const fromAttributes = readMessages(span.attributes['gen_ai.output.messages']);
  if (fromAttributes.length > 0) return fromAttributes;
  const fromEvents = span.events
    .filter((event) => event.name === 'gen_ai.choice' || event.name === 'gen_ai.content.completion')
    .flatMap((event) =>
      readMessages(
        event.attributes.message ??
          event.attributes['gen_ai.completion'] ??
          event.attributes.content,
      ),
    );
  return fromEvents;
}

/** A model call's token log probabilities, where the span holds some (see the header). */
function spanLogprobs(span: OtlpSpan): StepLogprobs | undefined {
  const attribute = readLogprobs(span.attributes['gen_ai.response.logprobs']);
  if (attribute) return attribute;
  const logged = (value: unknown) => (isObject(value) ? value.logprobs : undefined);
  const outputs = parseJsonOr(span.attributes['gen_ai.output.messages']);
  const parts = [
    ...span.events
      .filter((event) => event.name === 'gen_ai.choice')
      .map((event) => event.attributes.logprobs ?? logged(parseJsonOr(event.attributes.message))),
    ...(Array.isArray(outputs) ? outputs.map(logged) : []),
  ].filter((part) => part !== undefined);
  return readLogprobsOfParts(parts);
}

function inputMessages(span: OtlpSpan) {
  const fromAttributes = readMessages(span.attributes['gen_ai.input.messages']);
  if (fromAttributes.length > 0) return fromAttributes;
  return span.events
    .filter(
      (event) => event.name === 'gen_ai.user.message' || event.name === 'gen_ai.content.prompt',
    )
    .flatMap((event) =>
      readMessages(
        event.attributes.content !== undefined
          ? { role: 'user', content: event.attributes.content }
          : event.attributes['gen_ai.prompt'],
      ),
    );
}

function neutral(span: OtlpSpan): NeutralSpan {
  const operation = String(span.attributes['gen_ai.operation.name'] ?? '');
  const out = neutralOfOtlp(span);
  setModelUsage(
    out,
    span.attributes['gen_ai.response.model'] ?? span.attributes['gen_ai.request.model'],
    span.attributes['gen_ai.usage.input_tokens'],
    span.attributes['gen_ai.usage.output_tokens'],
  );
  const outputs = outputMessages(span);
  if (operation === 'invoke_agent') {
    out.kind = 'agent';
    // The conventions name the span `invoke_agent {gen_ai.agent.name}`.
    out.name = String(
      span.attributes['gen_ai.agent.name'] ??
        (span.name.replace(/^invoke_agent\s*/, '') || 'agent'),
    );
    out.content = outputs.map((message) => message.text).join('\n');
  } else if (LLM_OPERATIONS.has(operation)) {
    out.kind = 'llm';
    // Outside any agent span, a model call is no agent's: never its model's or span's name.
    out.name = String(span.attributes['gen_ai.agent.name'] ?? NO_AGENT);
    out.content = outputs.map((message) => message.text).join('\n');
    out.toolCalls = outputs.flatMap((message) => message.toolCalls);
    const logprobs = spanLogprobs(span);
    if (logprobs) out.logprobs = logprobs;
  } else if (operation === 'execute_tool') {
    out.kind = 'tool';
    out.name = String(
      span.attributes['gen_ai.tool.name'] ?? span.name.replace(/^execute_tool\s*/, ''),
    );
    const args = argumentsText(span.attributes['gen_ai.tool.call.arguments']);
    const result = textOf(parseJsonOr(span.attributes['gen_ai.tool.call.result']));
    out.content = [args ? `${out.name}(${args})` : '', result].filter(Boolean).join('\n');
    const id = span.attributes['gen_ai.tool.call.id'];
    out.call = { ...(typeof id === 'string' ? { id } : {}), name: out.name, arguments: args };
    out.toolResults = [
      {
        ...(typeof id === 'string' ? { id } : {}),
        name: out.name,
        content: result,
        ...(span.error ? { isError: true } : {}),
      },
    ];
  }
  return out;
}

/**
 * An OTLP export with a `gen_ai.` name in it: a key or string that starts with one, or holds one
 * quoted (JSON text in an attribute), as its JSON text would show `"gen_ai.`.
 */
const hasGenAi = (value: unknown) =>
  isOtlp(value) &&
  someString(
    value.resourceSpans,
    (text) => text.startsWith('gen_ai.') || text.includes('"gen_ai.'),
  );

export const otelFormat: TraceFormat = {
  name: NAME,
  description: 'OpenTelemetry GenAI spans in OTLP/JSON (invoke_agent, chat, execute_tool)',
  detect(input) {
    return input.kind === 'json' && hasGenAi(input.value);
  },
  parse(input, context) {
    if (input.kind !== 'json')
      throw new TraceFormatError(context.file, 'expected an OTLP/JSON document', { format: NAME });
    const spans = decodeOtlp(input.value, { file: context.file, format: NAME });
    const firstInput = spans
      .filter((span) => LLM_OPERATIONS.has(String(span.attributes['gen_ai.operation.name'])))
      .flatMap(inputMessages)
      .find((message) => message.role === 'user');
    const fromSpans = stepsFromSpans(spans.map(neutral));
    const steps = withQuestionStep(firstInput?.text, fromSpans);
    requireSteps(steps, context.file, NAME, 'resourceSpans');
    const service = spans[0]?.resource['service.name'];
    const conversation = spans
      .map((span) => span.attributes['gen_ai.conversation.id'])
      .find((value) => typeof value === 'string');
    const marked = markedOutcome(spans);
    const session = sessionOf(spans);
    return [
      buildTrace({
        id: spans[0]?.traceId || context.id,
        format: NAME,
        source: context.file,
        ...(firstInput?.text ? { question: firstInput.text } : {}),
        outcome:
          marked ??
          (spans.some((span) => span.error && !span.parentSpanId) ? 'failure' : 'unknown'),
        steps,
        metadata: {
          ...noAgentNote(fromSpans),
          ...(service ? { service } : {}),
          ...(conversation ? { conversationId: conversation } : {}),
          ...(marked ? { outcomeMarked: true } : {}),
          ...(session ? { session } : {}),
          ...withTask(taskFromSpans(spans)),
        },
      }),
    ];
  },
};

/** The metadata entry of a task the spans name. */
const withTask = (task: string | undefined) => (task ? { task } : {});
