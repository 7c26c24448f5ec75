/**
 * The Vercel AI SDK's own OpenTelemetry spans (`experimental_telemetry: { isEnabled: true,
 * functionId }`, AI SDK 6), in OTLP/JSON. Each call of a model (`ai.generateText.doGenerate`,
 * `ai.streamText.doStream`, `…Object.doGenerate/doStream`, named by `ai.operationId`) is a step:
 * its reply from `ai.response.text` (or `ai.response.object`) and `ai.response.toolCalls`; each
 * `ai.toolCall` span a tool step (`ai.toolCall.name/args/result`). The outer `ai.generateText` /
 * `ai.streamText` span is the agent: named by `ai.telemetry.metadata.agent` where the app sets
 * one, else by the `functionId`; one without either is structure only, its calls `(no agent)`'s.
 * Spans of the app's own (a root span around the run) are structure, never steps. The task is the
 * first user message of the first model call's `ai.prompt.messages`. The spans also carry a few
 * GenAI attributes (`gen_ai.system`), so this format is detected before `otel`.
 */
import { TraceFormatError } from '../../errors.js';
import { argumentsText, isObject, parseJsonOr, textOf, type TraceFormat } from '../format.js';
import type { ToolCall } from '../model.js';
import { decodeOtlp, hasSpanAttribute, type OtlpSpan } from '../otlp.js';
import { sessionOf } from '../span-outcome.js';
import { requireSpanSteps, spanRunTrace } from '../span-run.js';
import {
  neutralOfOtlp,
  NO_AGENT,
  setModelUsage,
  stepsFromSpans,
  withQuestionStep,
  type NeutralSpan,
} from '../spans.js';
import { callsText } from '../step-text.js';

const NAME = 'ai-sdk';

/** The attribute every AI SDK span carries. */
const OPERATION_ID = 'ai.operationId';

/** Operations that are one call of a model. */
const MODEL_CALLS = new Set([
  'ai.generateText.doGenerate',
  'ai.streamText.doStream',
  'ai.generateObject.doGenerate',
  'ai.streamObject.doStream',
]);

/** Operations that are one agent's turn: the calls and tool runs of one generate/stream call. */
const TURNS = new Set(['ai.generateText', 'ai.streamText', 'ai.generateObject', 'ai.streamObject']);

/** Metadata keys an app may name its agent by (`experimental_telemetry.metadata`). */
const AGENT_METADATA = ['ai.telemetry.metadata.agent', 'ai.telemetry.metadata.agentName'];

const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value : undefined);

/** The agent a span's attributes name: the app's metadata, else the function id. */
function agentOf(attributes: Record<string, unknown>): string | undefined {
  for (const key of AGENT_METADATA) {
    const name = text(attributes[key]);
    if (name) return name.trim();
  }
  return text(attributes['ai.telemetry.functionId'])?.trim();
}

/** `ai.response.toolCalls`: `[{toolCallId, toolName, input}]` (`args` before AI SDK 5). */
function toolCallsOf(value: unknown): ToolCall[] {
  const parsed = parseJsonOr(value);
  if (!Array.isArray(parsed)) return [];
  return parsed.filter(isObject).map((call) => ({
    ...(typeof call.toolCallId === 'string' ? { id: call.toolCallId } : {}),
    name: String(call.toolName ?? 'unknown'),
    arguments: argumentsText(call.input ?? call.args),
  }));
}

/** The first user message's text in `ai.prompt.messages` (content a string or text parts). */
function firstUserText(value: unknown): string | undefined {
  const messages = parseJsonOr(value);
  if (!Array.isArray(messages)) return undefined;
  const user = messages.find((message) => isObject(message) && message.role === 'user');
  if (!isObject(user)) return undefined;
  const content = Array.isArray(user.content)
    ? user.content.filter((part) => isObject(part) && part.type === 'text')
    : user.content;
  return text(textOf(content));
}

function neutral(span: OtlpSpan): NeutralSpan {
  const attributes = span.attributes;
  const operation = String(attributes[OPERATION_ID] ?? '');
  const out = neutralOfOtlp(span);
  const agent = agentOf(attributes);
  if (MODEL_CALLS.has(operation)) {
    out.kind = 'llm';
    out.name = agent ?? NO_AGENT;
    out.toolCalls = toolCallsOf(attributes['ai.response.toolCalls']);
    const reply = attributes['ai.response.text'] ?? attributes['ai.response.object'];
    out.content = textOf(reply) || callsText(out.toolCalls);
    setModelUsage(
      out,
      attributes['ai.response.model'] ?? attributes['ai.model.id'],
      attributes['ai.usage.inputTokens'] ?? attributes['ai.usage.promptTokens'],
      attributes['ai.usage.outputTokens'] ?? attributes['ai.usage.completionTokens'],
    );
  } else if (operation === 'ai.toolCall') {
    out.kind = 'tool';
    out.name = String(attributes['ai.toolCall.name'] ?? 'tool');
    const args = argumentsText(attributes['ai.toolCall.args']);
    const result = textOf(parseJsonOr(attributes['ai.toolCall.result']));
    out.content = [args ? `${out.name}(${args})` : '', result].filter(Boolean).join('\n');
    const id = text(attributes['ai.toolCall.id']);
    out.call = { ...(id ? { id } : {}), name: out.name, arguments: args };
    out.toolResults = [
      {
        ...(id ? { id } : {}),
        name: out.name,
        content: result,
        ...(span.error ? { isError: true } : {}),
      },
    ];
  } else if (TURNS.has(operation) && agent) {
    out.kind = 'agent';
    out.name = agent;
    out.content = textOf(attributes['ai.response.text']);
  }
  return out;
}

export const aiSdkFormat: TraceFormat = {
  name: NAME,
  description:
    'Vercel AI SDK telemetry spans in OTLP/JSON (ai.generateText.doGenerate, ai.toolCall)',
  detect(input) {
    // Spans carrying `ai.operationId` (the AI SDK's telemetry).
    return input.kind === 'json' && hasSpanAttribute(input.value, (key) => key === OPERATION_ID);
  },
  parse(input, context) {
    if (input.kind !== 'json')
      throw new TraceFormatError(context.file, 'expected an OTLP/JSON document', { format: NAME });
    const spans = decodeOtlp(input.value, { file: context.file, format: NAME });
    const question = spans
      .filter((span) => MODEL_CALLS.has(String(span.attributes[OPERATION_ID])))
      .sort((left, right) => (left.start < right.start ? -1 : left.start > right.start ? 1 : 0))
      .map((span) => firstUserText(span.attributes['ai.prompt.messages']))
      .find((found) => found !== undefined);
    const fromSpans = stepsFromSpans(spans.map(neutral));
    const steps = withQuestionStep(question, fromSpans);
    requireSpanSteps(steps, spans, context, NAME);
    // The run's first function id: how an app that knows no trace id names its run to the API.
    const functionId = spans
      .filter((span) => TURNS.has(String(span.attributes[OPERATION_ID])))
      .reduce<OtlpSpan | undefined>(
        (first, span) => (!first || span.start < first.start ? span : first),
        undefined,
      )?.attributes['ai.telemetry.functionId'];
    const run = {
      format: NAME,
      spans,
      question,
      steps,
      fromSpans,
      metadata: { session: sessionOf(spans), functionId },
    };
    return [spanRunTrace(run, context)];
  },
};
