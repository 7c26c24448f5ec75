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
import { markedOutcome, sessionOf } from '../span-outcome.js';
import { agentNames } from './openinference-agents.js';
import {
  generationsOutput,
  graphNodeAgents,
  isControlFlow,
  toolOutputText,
} from './openinference-langchain.js';
import { flatSpans, indexed, SPAN_KIND, type FlatSpan } from './openinference-spans.js';

const NAME = 'openinference';

function outputOf(attributes: Record<string, unknown>): { text: string; toolCalls: ToolCall[] } {
  const messages = [...indexed(attributes, 'llm.output_messages').values()];
  const toolCalls: ToolCall[] = [];
  const texts: string[] = [];
  for (const message of messages) {
    if (typeof message['message.content'] === 'string' && message['message.content'])
      texts.push(message['message.content']);
    // The Responses API's parts (openai-agents): `message.contents.{j}.message_content.text`.
    for (const part of indexed(message, 'message.contents').values())
      if (typeof part['message_content.text'] === 'string' && part['message_content.text'])
        texts.push(part['message_content.text']);
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
  // What the output messages hold is the reply: never the raw response in `output.value`. Where
  // they hold nothing (LangChain streaming the Responses API), LangChain's generations are read.
  if (texts.length === 0 && toolCalls.length === 0) {
    const generations = generationsOutput(attributes['output.value']);
    if (generations)
      return {
        toolCalls: generations.toolCalls,
        text: generations.text || callsText(generations.toolCalls),
      };
  }
  const fallback = messages.length > 0 ? '' : textOf(attributes['output.value']);
  const text = texts.join('\n') || fallback || callsText(toolCalls);
  return { text, toolCalls };
}

/**
 * A span as step-building reads it. `agents` names the AGENT spans (openinference-agents.ts); a
 * model call outside any agent, and a chain's failure outside any, are NO_AGENT's, never the
 * model's or the span's name.
 */
function neutral(span: FlatSpan, agents: ReadonlyMap<string, string>): NeutralSpan {
  // A LangGraph graph node's span is its agent, although its kind is CHAIN.
  const node = agents.get(span.spanId);
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
  // LangGraph's handoffs raise ParentCommand: recorded as an error, but no failure.
  if (span.error && !isControlFlow(span.error)) out.error = span.error;
  if (kind === 'AGENT' || node !== undefined) {
    out.kind = 'agent';
    out.name = node ?? 'agent';
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
    const result = toolOutputText(span.attributes['output.value']);
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
  // A message list (openai-agents' input items, a LangGraph state's `messages`): the first user's.
  const list = isObject(input) && Array.isArray(input.messages) ? input.messages : input;
  if (Array.isArray(list)) {
    const user = list.find((item) => isObject(item) && item.role === 'user');
    if (isObject(user)) return textOf(user.content);
  }
  return textOf(attributes['input.value']);
}

/**
 * The span the run's task is read from: the first outermost span, or where that is a span of the
 * app's own (no OpenInference kind: a root the app wraps the run in), the first OpenInference
 * span directly under such spans.
 */
function taskSpan(
  spans: readonly FlatSpan[],
  byId: ReadonlyMap<string, FlatSpan>,
): FlatSpan | undefined {
  const isOpenInference = (span: FlatSpan | undefined) => span?.attributes[SPAN_KIND] !== undefined;
  const root = spans.find((span) => !span.parentId || !byId.has(span.parentId));
  if (!root || isOpenInference(root)) return root;
  const tops = spans.filter(
    (span) => isOpenInference(span) && !isOpenInference(byId.get(span.parentId ?? '')),
  );
  return (
    tops.reduce<FlatSpan | undefined>(
      (first, span) => (!first || span.start < first.start ? span : first),
      undefined,
    ) ?? root
  );
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
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    const roots = spans.filter((span) => !span.parentId || !byId.has(span.parentId));
    const root = roots[0];
    const task = taskSpan(spans, byId);
    const question = task ? taskOf(task.attributes) : '';
    const agents = new Map([...agentNames(spans), ...graphNodeAgents(spans)]);
    const marked = markedOutcome(spans);
    const session = sessionOf(spans);
    const fromSpans = stepsFromSpans(spans.map((span) => neutral(span, agents)));
    const steps = withQuestionStep(question, fromSpans);
    requireSteps(steps, context.file, NAME, 'spans');
    const note = noAgentNote(fromSpans);
    const declaredTask = taskFromSpans(spans);
    return [
      buildTrace({
        id: root?.traceId || context.id,
        format: NAME,
        source: context.file,
        ...(question ? { question } : {}),
        // The outcome the app marked, else a run whose outermost span failed ended on that failure.
        outcome:
          marked ??
          (roots.some((span) => span.error && !isControlFlow(span.error)) ? 'failure' : 'unknown'),
        steps,
        metadata: {
          ...note,
          ...(marked ? { outcomeMarked: true } : {}),
          ...(session ? { session } : {}),
          ...(declaredTask ? { task: declaredTask } : {}),
        },
      }),
    ];
  },
};
