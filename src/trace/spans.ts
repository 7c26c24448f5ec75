/**
 * Span trees to steps. Tracing formats (OTel GenAI, OpenInference, OpenAI Agents SDK, LangSmith,
 * Langfuse) all describe a run as nested spans; each importer maps its spans onto this neutral
 * shape and this module orders them and decides which span becomes which step.
 */
import type { DraftStep } from './build-trace.js';
import type { SpanInfo, StepLogprobs, ToolCall, ToolResult } from './model.js';
import { callsText } from './step-text.js';

/** A span reduced to what step-building needs. */
export interface NeutralSpan {
  id: string;
  parentId?: string;
  /** Sort key: start time in nanoseconds (sortKeyOfTime), 0 when unknown. */
  start: bigint;
  /** ISO start time for the step, when known. */
  timestamp?: string;
  kind: 'agent' | 'llm' | 'tool' | 'handoff' | 'other';
  /** Agent name for agent spans, tool name for tool spans, free text otherwise. */
  name: string;
  /** The span's output as text. */
  content: string;
  toolCalls?: ToolCall[];
  toolResults?: ToolResult[];
  /**
   * For tool spans: the call (name and arguments), set where the tool span sits inside the agent
   * that called it (not LangGraph's, whose tool runs sit inside a ToolNode chain).
   */
  call?: ToolCall;
  error?: string;
  /** For handoffs: the receiving agent. */
  target?: string;
  /** End time in the unit of `start`, when known (for the step's duration). */
  end?: bigint;
  /** The model of a model call. */
  model?: string;
  inputTokens?: number;
  outputTokens?: number;
  /** Token log probabilities of a model call's output, where the source logged them. */
  logprobs?: StepLogprobs;
}

/** The step's span facts: id, parent, duration (start and end are nanoseconds), model, tokens. */
function spanInfo(span: NeutralSpan): SpanInfo {
  const info: SpanInfo = { id: span.id };
  if (span.parentId) info.parentId = span.parentId;
  if (span.end !== undefined && span.start > 0n && span.end >= span.start)
    info.durationMs = Number((span.end - span.start) / 1000n) / 1000;
  if (span.model) info.model = span.model;
  if (span.inputTokens !== undefined) info.inputTokens = span.inputTokens;
  if (span.outputTokens !== undefined) info.outputTokens = span.outputTokens;
  return info;
}

const tokenCount = (value: unknown): number | undefined => {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) && number >= 0 ? number : undefined;
};

/** Sets a span's model and token counts from the source's fields, those that hold values. */
export function setModelUsage(
  span: NeutralSpan,
  model: unknown,
  inputTokens: unknown,
  outputTokens: unknown,
): void {
  if (typeof model === 'string' && model) span.model = model;
  const input = tokenCount(inputTokens);
  const output = tokenCount(outputTokens);
  if (input !== undefined) span.inputTokens = input;
  if (output !== undefined) span.outputTokens = output;
}
/** Parses an ISO time (or epoch seconds) into a sortable nanosecond BigInt; 0 when unknown. */
export function sortKeyOfTime(value: unknown): bigint {
  if (typeof value === 'number' && Number.isFinite(value))
    return BigInt(Math.round(value * 1e6)) * 1000n;
  if (typeof value !== 'string' || value.length === 0) return 0n;
  if (/^\d+$/.test(value)) return BigInt(value);
  const iso = /[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`;
  const millis = Date.parse(iso);
  if (Number.isNaN(millis)) return 0n;
  const fraction = /\.(\d+)/.exec(value)?.[1] ?? '';
  const micros = Number((fraction + '000000').slice(3, 6));
  return BigInt(millis) * 1_000_000n + BigInt(micros) * 1000n;
}

/** ISO string of a nanosecond epoch, for steps (undefined when unknown or out of range). */
export function isoOfNanos(nanos: bigint): string | undefined {
  if (nanos <= 0n) return undefined;
  return isoOfMillis(Number(nanos / 1_000_000n));
}

/**
 * ISO string of a millisecond epoch; undefined beyond the dates JavaScript can write (a time is
 * only shown, so a corrupt one is dropped rather than failing the run).
 */
export function isoOfMillis(millis: number): string | undefined {
  const date = new Date(millis);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/**
 * Orders spans by start time and turns them into steps: model calls speak for their enclosing
 * agent, tool spans are tool steps, handoffs are the handing agent's step, and an agent span
 * yields a step of its own only when no model call inside it already spoke. A tool span whose
 * agent has not spoken since another agent did (its model call is not exported: the OpenAI Agents
 * SDK's Responses API records no content) is preceded by that agent's step making the call, so
 * the call is the caller's turn and a failing tool output follows the agent that made the call,
 * not the one that spoke before it.
 */
export function stepsFromSpans(spans: readonly NeutralSpan[]): DraftStep[] {
  const byId = new Map(spans.map((span) => [span.id, span]));
  const enclosingAgent = (span: NeutralSpan): string | undefined => {
    const seen = new Set<string>();
    let current = span.parentId ? byId.get(span.parentId) : undefined;
    while (current && !seen.has(current.id)) {
      if (current.kind === 'agent') return current.name;
      seen.add(current.id);
      current = current.parentId ? byId.get(current.parentId) : undefined;
    }
    return undefined;
  };
  const agentsWithModelCalls = new Set<string>();
  for (const span of spans) {
    if (span.kind !== 'llm') continue;
    let current = span.parentId ? byId.get(span.parentId) : undefined;
    const seen = new Set<string>();
    while (current && !seen.has(current.id)) {
      seen.add(current.id);
      if (current.kind === 'agent') agentsWithModelCalls.add(current.id);
      current = current.parentId ? byId.get(current.parentId) : undefined;
    }
  }

  const ordered = spans
    .map((span, order) => ({ span, order }))
    .sort((left, right) =>
      left.span.start < right.span.start
        ? -1
        : left.span.start > right.span.start
          ? 1
          : left.order - right.order,
    );

  const steps: DraftStep[] = [];
  // Who spoke last among the agents (tool steps aside).
  let lastAgent: string | undefined;
  for (const { span } of ordered) {
    const base: Partial<DraftStep> = { span: spanInfo(span) };
    if (span.timestamp) base.timestamp = span.timestamp;
    if (span.error) base.error = span.error;
    if (span.toolCalls?.length) base.toolCalls = span.toolCalls;
    if (span.toolResults?.length) base.toolResults = span.toolResults;
    if (span.logprobs) base.logprobs = span.logprobs;
    const errorLine = span.error ? `[error] ${span.error}` : '';
    const content = [span.content, errorLine].filter((part) => part.length > 0).join('\n');
    switch (span.kind) {
      case 'llm':
        steps.push({ ...base, speaker: enclosingAgent(span) ?? span.name, role: 'agent', content });
        break;
      case 'tool': {
        const caller = span.call && enclosingAgent(span);
        if (span.call && caller !== undefined && caller !== lastAgent)
          steps.push({
            ...(span.timestamp ? { timestamp: span.timestamp } : {}),
            speaker: caller,
            role: 'agent',
            content: callsText([span.call]),
            toolCalls: [span.call],
          });
        steps.push({ ...base, speaker: span.name, role: 'tool', content });
        break;
      }
      case 'handoff':
        steps.push({
          ...base,
          speaker: span.name,
          role: 'agent',
          content: content || `handoff to ${span.target ?? 'another agent'}`,
        });
        break;
      case 'agent':
        if (!agentsWithModelCalls.has(span.id) && (content.length > 0 || span.error)) {
          steps.push({ ...base, speaker: span.name, role: 'agent', content });
        }
        break;
      case 'other':
        if (span.error)
          steps.push({
            ...base,
            speaker: enclosingAgent(span) ?? span.name,
            role: 'system',
            content,
          });
        break;
    }
    const last = steps.at(-1);
    if (last?.role === 'agent') lastAgent = last.speaker;
  }
  return steps;
}

/** Puts the task as a first human step, as Who&When does, when the source states it. */
export function withQuestionStep(question: string | undefined, steps: DraftStep[]): DraftStep[] {
  if (!question) return steps;
  if (steps[0]?.role === 'human' && steps[0].content === question) return steps;
  return [{ speaker: 'human', role: 'human', content: question }, ...steps];
}
