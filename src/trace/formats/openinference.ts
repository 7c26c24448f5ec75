/**
 * OpenInference spans (Arize Phoenix, smolagents and LlamaIndex instrumentation): in OTLP/JSON,
 * or as Phoenix's REST `GET /v1/projects/{p}/spans` answer. Kinds come from
 * `openinference.span.kind`; LLM messages are flattened as `llm.output_messages.{i}.message.*`.
 */
import { taskFromSpans } from '../task.js';
import { buildTrace } from '../build-trace.js';
import { argumentsText, isObject, parseJsonOr, textOf, type TraceFormat } from '../format.js';
import { callsText } from '../step-text.js';
import type { ToolCall } from '../model.js';
import { isOtlp, someString } from '../otlp.js';
import type { RawInput } from '../read-input.js';
import {
  isoOfNanos,
  NO_AGENT,
  noAgentNote,
  stepsFromSpans,
  setModelUsage,
  withQuestionStep,
  type NeutralSpan,
} from '../spans.js';
import { requireSteps } from '../chat-messages.js';
import { agentNames } from './openinference-agents.js';
import { flatSpans, indexed, SPAN_KIND, type FlatSpan } from './openinference-spans.js';

const NAME = 'openinference';

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

/**
 * A span as step-building reads it. `agents` names the AGENT spans (openinference-agents.ts); a
 * model call outside any agent, and a chain's failure outside any, are NO_AGENT's, never the
 * model's or the span's name.
 */
function neutral(span: FlatSpan, agents: ReadonlyMap<string, string>): NeutralSpan {
  const kind = String(span.attributes[SPAN_KIND] ?? '').toUpperCase();
  const out: NeutralSpan = {
    id: span.spanId,
    start: span.start,
    end: span.end,
    kind: 'other',
    name: NO_AGENT,
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
    out.name = agents.get(span.spanId) ?? 'agent';
  } else if (kind === 'LLM') {
    const output = outputOf(span.attributes);
    Object.assign(out, {
      kind: 'llm',
      name:
        typeof span.attributes['agent.name'] === 'string'
          ? span.attributes['agent.name']
          : NO_AGENT,
      content: output.text,
      toolCalls: output.toolCalls,
    });
  } else if (kind === 'TOOL') {
    out.kind = 'tool';
    out.name = String(span.attributes['tool.name'] ?? span.name);
    const args = toolArguments(span.attributes['input.value']);
    const result = textOf(span.attributes['output.value']);
    out.content = [args ? `${out.name}(${args})` : '', result].filter(Boolean).join('\n');
    const id = span.attributes['tool_call.id'];
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
 * A tool span's arguments. smolagents writes the bound arguments of `Tool.__call__` as JSON,
 * `{"args": [], "sanitize_inputs_outputs": true, "kwargs": {...}}`: the call's arguments are the
 * `kwargs` (with `args` where positional ones were passed).
 */
function toolArguments(value: unknown): string {
  const parsed = parseJsonOr(value);
  if (isObject(parsed) && isObject(parsed.kwargs) && 'sanitize_inputs_outputs' in parsed) {
    const positional = Array.isArray(parsed.args) ? parsed.args : [];
    return argumentsText(
      positional.length > 0 ? { args: positional, kwargs: parsed.kwargs } : parsed.kwargs,
    );
  }
  return textOf(value);
}

/**
 * The run's task: smolagents' `smolagents.task`, a root model call's last user message, else the root's `input.value`, the `task` of the
 * arguments smolagents writes there as JSON (`{"task": ..., "stream": false, ...}`) or its text.
 */
function taskOf(attributes: Record<string, unknown>): string {
  const task = attributes['smolagents.task'];
  if (typeof task === 'string' && task.trim()) return task;
  // A run that is a model call: what the user asked it last.
  const asked = [...indexed(attributes, 'llm.input_messages').values()]
    .filter((message) => message['message.role'] === 'user')
    .at(-1)?.['message.content'];
  if (typeof asked === 'string' && asked.trim()) return asked;
  const input = parseJsonOr(attributes['input.value']);
  if (isObject(input) && typeof input.task === 'string') return input.task;
  return textOf(attributes['input.value']);
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
    const roots = spans.filter((span) => !span.parentId || !ids.has(span.parentId));
    const root = roots[0];
    const question = root ? taskOf(root.attributes) : '';
    const agents = agentNames(spans);
    const fromSpans = stepsFromSpans(spans.map((span) => neutral(span, agents)));
    const steps = withQuestionStep(question, fromSpans);
    requireSteps(steps, context.file, NAME, 'spans');
    const note = noAgentNote(fromSpans);
    const task = taskFromSpans(spans);
    return [
      buildTrace({
        id: root?.traceId || context.id,
        format: NAME,
        source: context.file,
        ...(question ? { question } : {}),
        // A run whose outermost span failed ended on that failure.
        outcome: roots.some((span) => span.error) ? 'failure' : 'unknown',
        steps,
        ...(note.note || task ? { metadata: { ...note, ...(task ? { task } : {}) } } : {}),
      }),
    ];
  },
};
