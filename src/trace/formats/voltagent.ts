/**
 * VoltAgent's own OpenTelemetry spans (`@voltagent/core` 2.10, `VoltAgentObservability`), in
 * OTLP/JSON. VoltAgent writes its own convention:
 *
 * - an agent's run is a span with `entity.type` = `agent` and no `span.type`: its `input`, its
 *   final reply in `output`. The agent is `entity.name`; a sub-agent's span (named
 *   `subagent:<name>`, under the supervisor's `delegate_task` tool span) carries
 *   `voltagent.is_subagent` and its own name in `subagent.name`, `entity.name` being its
 *   supervisor's, as on every span inside it.
 * - `span.type` = `llm` (`llm:generateText`, `llm:streamText`): one span for an agent's whole
 *   model loop (the AI SDK's steps), with `llm.model`, `llm.messages` and usage but no reply.
 * - `span.type` = `tool` (`tool.execution:<name>`): `tool.name`, `tool.call.id`, the arguments in
 *   `input` and the result in `output`.
 *
 * So a model call is read from what VoltAgent reports of it: each round of tool calls (tool spans
 * of the loop that ran together, overlapping in time) is one call's step, before its tools; the
 * agent's `output`, after the last round, is the last call's reply. Each such step keeps the id of
 * the `llm` span it was reported in. `delegate_task`'s result (`[{agentName, response, usage}]`)
 * reads as each agent's response. Memory and other spans are structure; a span of the app's own
 * (a root span around the run) too. The task is the outermost agent's `input`; the session is its
 * `conversation.id`.
 */
import { TraceFormatError } from '../../errors.js';
import type { DraftStep } from '../build-trace.js';
import { argumentsText, isObject, parseJsonOr, textOf, type TraceFormat } from '../format.js';
import type { ToolCall } from '../model.js';
import { decodeOtlp, hasSpanAttribute, type OtlpSpan } from '../otlp.js';
import { requireSpanSteps, spanRunTrace } from '../span-run.js';
import {
  isoOfNanos,
  neutralOfOtlp,
  setModelUsage,
  stepsFromSpans,
  withQuestionStep,
  type NeutralSpan,
} from '../spans.js';
import { callsText } from '../step-text.js';

const NAME = 'voltagent';

/** Keys VoltAgent writes on an agent's span (`voltagent.operation_id`, `voltagent.is_subagent`). */
const OWN_PREFIX = 'voltagent.';

/** Between the `llm` span's id and a model call's number, in the ids of the calls read from it. */
const CALL_MARK = '#call-';

const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : '');

const isAgentSpan = (span: OtlpSpan) =>
  span.attributes['entity.type'] === 'agent' && span.attributes['span.type'] === undefined;
const isSubagent = (span: OtlpSpan) => span.attributes['voltagent.is_subagent'] === true;
const typeOf = (span: OtlpSpan) => span.attributes['span.type'];

/** The agent a span belongs to: a sub-agent's own name, else the entity's. */
function agentOf(span: OtlpSpan): string {
  const attributes = span.attributes;
  const name = isSubagent(span)
    ? text(attributes['subagent.name']) || text(attributes['subagent.id'])
    : '';
  return name || text(attributes['entity.name']) || text(attributes['entity.id']) || 'agent';
}

/** A message list's first user text (`content` as text or parts, or UI messages' `parts`). */
function firstUserText(value: unknown): string {
  const messages = parseJsonOr(value);
  if (!Array.isArray(messages)) return text(value);
  const user = messages.find((message) => isObject(message) && message.role === 'user');
  if (!isObject(user)) return '';
  const parts = user.content ?? user.parts;
  return text(
    textOf(Array.isArray(parts) ? parts.filter((part) => isObject(part) && 'text' in part) : parts),
  );
}

/** A tool's result as text; `delegate_task`'s as each agent's response. */
function resultText(value: unknown): string {
  const parsed = parseJsonOr(value);
  if (
    Array.isArray(parsed) &&
    parsed.length > 0 &&
    parsed.every((item) => isObject(item) && typeof item.agentName === 'string')
  )
    return (parsed as Record<string, unknown>[])
      .map((item) => `${String(item.agentName)}: ${textOf(item.response ?? item.error)}`)
      .join('\n');
  return textOf(parsed);
}

const base = (span: OtlpSpan): NeutralSpan => neutralOfOtlp(span, agentOf(span));

const callOf = (span: OtlpSpan): ToolCall => {
  const id = text(span.attributes['tool.call.id']);
  return {
    ...(id ? { id } : {}),
    name: text(span.attributes['tool.name']) || 'tool',
    arguments: argumentsText(parseJsonOr(span.attributes.input)),
  };
};

function toolSpan(span: OtlpSpan): NeutralSpan {
  const out = base(span);
  const call = callOf(span);
  const result = resultText(span.attributes.output);
  out.kind = 'tool';
  out.name = call.name;
  out.content = [call.arguments ? callsText([call]) : '', result].filter(Boolean).join('\n');
  out.toolResults = [
    {
      ...(call.id ? { id: call.id } : {}),
      name: call.name,
      content: result,
      ...(span.error ? { isError: true } : {}),
    },
  ];
  return out;
}

/** Tool spans in start order, in rounds: a round's tools ran together (overlapping in time). */
function rounds(tools: OtlpSpan[]): OtlpSpan[][] {
  const out: OtlpSpan[][] = [];
  let end = -1n;
  for (const tool of [...tools].sort((left, right) => (left.start < right.start ? -1 : 1))) {
    if (out.length === 0 || tool.start > end) out.push([]);
    out.at(-1)!.push(tool);
    if (tool.end > end) end = tool.end;
  }
  return out;
}

/**
 * The model calls an `llm` span reports: one per round of the tools run in its time under the same
 * agent, then the reply (`reply`: the agent's output, for its last `llm` span) or its error.
 */
function modelCalls(llm: OtlpSpan, tools: OtlpSpan[], reply: string): NeutralSpan[] {
  const calls = rounds(tools).map((round, index) => {
    const toolCalls = round.map(callOf);
    const call = base(llm);
    delete call.error; // a failing loop fails at its end
    call.id = `${llm.spanId}${CALL_MARK}${index + 1}`;
    call.start = round[0]!.start - 1n;
    call.end = round[0]!.start;
    const timestamp = isoOfNanos(call.start);
    if (timestamp) call.timestamp = timestamp;
    call.kind = 'llm';
    call.toolCalls = toolCalls;
    call.content = callsText(toolCalls);
    return call;
  });
  if (!reply && !llm.error && calls.length > 0) return calls;
  const last = base(llm);
  last.kind = 'llm';
  last.content = reply;
  const after = tools.reduce((latest, tool) => (tool.end > latest ? tool.end : latest), 0n);
  if (after >= last.start) last.start = after + 1n;
  setModelUsage(
    last,
    llm.attributes['llm.model'],
    llm.attributes['llm.usage.prompt_tokens'],
    llm.attributes['llm.usage.completion_tokens'],
  );
  return [...calls, last];
}

/** The neutral spans of a run: each span as a step's source, an `llm` span as its model calls. */
function neutralSpans(spans: OtlpSpan[]): NeutralSpan[] {
  const byId = new Map(spans.map((span) => [span.spanId, span]));
  const llms = spans.filter((span) => typeOf(span) === 'llm');
  /** The `llm` span (of the same agent run) whose loop ran a tool span. */
  const loopOf = (tool: OtlpSpan) =>
    llms.find(
      (llm) =>
        (tool.parentSpanId === llm.parentSpanId || tool.parentSpanId === llm.spanId) &&
        tool.start >= llm.start &&
        (llm.end === 0n || tool.start <= llm.end),
    );
  const toolsOf = new Map<OtlpSpan, OtlpSpan[]>();
  for (const span of spans)
    if (typeOf(span) === 'tool') {
      const loop = loopOf(span);
      if (loop) toolsOf.set(loop, [...(toolsOf.get(loop) ?? []), span]);
    }
  /** The agent's reply goes with its last `llm` span. */
  const lastLlm = new Map<string, OtlpSpan>();
  for (const llm of llms) {
    const agent = llm.parentSpanId ?? '';
    const seen = lastLlm.get(agent);
    if (!seen || llm.start >= seen.start) lastLlm.set(agent, llm);
  }
  return spans.flatMap((span): NeutralSpan[] => {
    if (typeOf(span) === 'llm') {
      const agent = span.parentSpanId ? byId.get(span.parentSpanId) : undefined;
      const reply =
        agent && lastLlm.get(agent.spanId) === span ? textOf(agent.attributes.output) : '';
      return modelCalls(span, toolsOf.get(span) ?? [], reply);
    }
    if (typeOf(span) === 'tool') return [toolSpan(span)];
    const out = base(span);
    if (isAgentSpan(span)) {
      out.kind = 'agent';
      out.content = textOf(span.attributes.output);
    }
    return [out];
  });
}

/** Each model call's step keeps the id of the `llm` span VoltAgent reported it in. */
function withReportedSpanIds(steps: DraftStep[]): DraftStep[] {
  for (const step of steps)
    if (step.span?.id.includes(CALL_MARK))
      step.span = { ...step.span, id: step.span.id.slice(0, step.span.id.indexOf(CALL_MARK)) };
  return steps;
}

/** The outermost agent's span: the run's task and session are its. */
function outermostAgent(spans: OtlpSpan[]): OtlpSpan | undefined {
  return spans
    .filter((span) => isAgentSpan(span) && !isSubagent(span))
    .reduce<OtlpSpan | undefined>(
      (first, span) => (!first || span.start < first.start ? span : first),
      undefined,
    );
}

export const voltAgentFormat: TraceFormat = {
  name: NAME,
  description: "VoltAgent's own observability spans in OTLP/JSON (entity.*, span.type, llm.*)",
  detect(input) {
    return (
      input.kind === 'json' && hasSpanAttribute(input.value, (key) => key.startsWith(OWN_PREFIX))
    );
  },
  parse(input, context) {
    if (input.kind !== 'json')
      throw new TraceFormatError(context.file, 'expected an OTLP/JSON document', { format: NAME });
    const spans = decodeOtlp(input.value, { file: context.file, format: NAME });
    const outermost = outermostAgent(spans);
    const question = (outermost && firstUserText(outermost.attributes.input)) || undefined;
    const fromSpans = withReportedSpanIds(stepsFromSpans(neutralSpans(spans)));
    requireSpanSteps(fromSpans, spans, context, NAME);
    const steps = withQuestionStep(question, fromSpans);
    const session = outermost ? text(outermost.attributes['conversation.id']) : '';
    const run = { format: NAME, spans, question, steps, fromSpans, metadata: { session } };
    return [spanRunTrace(run, context)];
  },
};
