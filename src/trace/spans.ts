/**
 * Span trees to steps. Tracing formats (OTel GenAI, OpenInference, OpenAI Agents SDK, LangSmith,
 * Langfuse) all describe a run as nested spans; each importer maps its spans onto this neutral
 * shape and this module orders them and decides which span becomes which step.
 */
import type { DraftStep } from './build-trace.js';
import type { SpanInfo, StepLogprobs, ToolCall, ToolResult } from './model.js';
import type { OtlpSpan } from './otlp.js';
import { spanTree, walkSpanTree } from './span-tree.js';
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

/** The speaker of a model call, or of a failure, that no agent span encloses: no agent is named. */
export const NO_AGENT = '(no agent)';

/**
 * An OTLP span as a neutral span of no kind yet, under `name`: its id, parent, times and error;
 * each OTLP reader then sets what its convention says (kind, name, content, model).
 */
export function neutralOfOtlp(span: OtlpSpan, name: string = NO_AGENT): NeutralSpan {
  const out: NeutralSpan = {
    id: span.spanId,
    start: span.start,
    end: span.end,
    kind: 'other',
    name,
    content: '',
  };
  const timestamp = isoOfNanos(span.start);
  if (timestamp) out.timestamp = timestamp;
  if (span.parentSpanId) out.parentId = span.parentSpanId;
  if (span.error) out.error = span.error;
  return out;
}

/**
 * `{ note }` saying so when every agent step of a run is a model call outside any agent span (a
 * harness's own calls): the run names no agent, and its steps are listed under NO_AGENT rather
 * than under a model's name.
 */
export function noAgentNote(steps: readonly DraftStep[]): { note?: string } {
  const agentSteps = steps.filter((step) => step.role === 'agent');
  return agentSteps.length > 0 && agentSteps.every((step) => step.speaker === NO_AGENT)
    ? {
        note: `no agent span: every model call is outside any agent (a harness's calls), listed as "${NO_AGENT}"`,
      }
    : {};
}

/** Adds a container's error to the step of the child that raised it, unless it says it already. */
function withContainerError(step: DraftStep, error: string): void {
  if (step.error === error || step.content.includes(error)) return;
  step.content = [step.content, `[error] ${error}`].filter((part) => part.length > 0).join('\n');
  step.error ??= error;
}

/** The agent enclosing each span, and the agent spans some model call inside of speaks for. */
function agentsAbove(byId: ReadonlyMap<string, NeutralSpan>) {
  /** The agent spans above a span, nearest first (a parent cycle is read once). */
  const ancestors = function* (span: NeutralSpan) {
    const seen = new Set<string>();
    let current = span.parentId ? byId.get(span.parentId) : undefined;
    while (current && !seen.has(current.id)) {
      seen.add(current.id);
      if (current.kind === 'agent') yield current;
      current = current.parentId ? byId.get(current.parentId) : undefined;
    }
  };
  const agentsWithModelCalls = new Set<string>();
  for (const span of byId.values())
    if (span.kind === 'llm')
      for (const agent of ancestors(span)) agentsWithModelCalls.add(agent.id);
  const enclosingAgent = (span: NeutralSpan): string | undefined => {
    for (const agent of ancestors(span)) return agent.name;
    return undefined;
  };
  return { enclosingAgent, agentsWithModelCalls };
}

/**
 * Turns spans into steps in causal order, walking the span tree (span-tree.ts): siblings in start
 * order, each span id once. Model calls speak for their enclosing agent, tool spans are tool
 * steps, handoffs are the handing agent's step. A container (an agent's run, a framework's step or
 * chain span) is structure: what it says itself (an agent span's output where no model call inside
 * it spoke) comes after its children, and its error goes with the child that raised it (the last
 * step inside it, when that step failed) or, when none did, after its children. A tool span whose
 * agent has not spoken since another agent did (its model call is not exported: the OpenAI Agents
 * SDK's Responses API records no content) is preceded by that agent's step making the call, so the
 * call is the caller's turn and a failing tool output follows the agent that made the call.
 */
export function stepsFromSpans(spans: readonly NeutralSpan[]): DraftStep[] {
  const tree = spanTree(spans);
  const { enclosingAgent, agentsWithModelCalls } = agentsAbove(tree.byId);
  const steps: DraftStep[] = [];
  // Who spoke last among the agents (tool steps aside).
  let lastAgent: string | undefined;
  const push = (step: DraftStep) => {
    steps.push(step);
    if (step.role === 'agent') lastAgent = step.speaker;
  };
  // Where each container's steps begin.
  const firstStep = new Map<NeutralSpan, number>();
  const baseOf = (span: NeutralSpan, error: string | undefined) => {
    const base: Partial<DraftStep> = { span: spanInfo(span) };
    if (span.timestamp) base.timestamp = span.timestamp;
    if (error) base.error = error;
    if (span.toolCalls?.length) base.toolCalls = span.toolCalls;
    if (span.toolResults?.length) base.toolResults = span.toolResults;
    if (span.logprobs) base.logprobs = span.logprobs;
    return base;
  };
  const contentOf = (text: string, error: string | undefined) =>
    [text, error ? `[error] ${error}` : ''].filter((part) => part.length > 0).join('\n');

  const enter = (span: NeutralSpan) => {
    firstStep.set(span, steps.length);
    const base = baseOf(span, span.error);
    const content = contentOf(span.content, span.error);
    if (span.kind === 'llm')
      push({ ...base, speaker: enclosingAgent(span) ?? span.name, role: 'agent', content });
    else if (span.kind === 'handoff')
      push({
        ...base,
        speaker: span.name,
        role: 'agent',
        content: content || `handoff to ${span.target ?? 'another agent'}`,
      });
    else if (span.kind === 'tool') {
      const caller = span.call && enclosingAgent(span);
      if (span.call && caller !== undefined && caller !== lastAgent)
        push({
          ...(span.timestamp ? { timestamp: span.timestamp } : {}),
          speaker: caller,
          role: 'agent',
          content: callsText([span.call]),
          toolCalls: [span.call],
        });
    }
  };

  const leave = (span: NeutralSpan) => {
    if (span.kind === 'tool') {
      push({
        ...baseOf(span, span.error),
        speaker: span.name,
        role: 'tool',
        content: contentOf(span.content, span.error),
      });
      return;
    }
    if (span.kind !== 'agent' && span.kind !== 'other') return;
    // A container's error goes with the child that raised it: the last step inside, if it failed.
    const last = steps.length > (firstStep.get(span) ?? steps.length) ? steps.at(-1) : undefined;
    const raisedBy = span.error && last?.error ? last : undefined;
    if (raisedBy) withContainerError(raisedBy, span.error!);
    const error = raisedBy ? undefined : span.error;
    const said = span.kind === 'agent' && !agentsWithModelCalls.has(span.id) ? span.content : '';
    if (!said && !error) return;
    const step = baseOf(span, error);
    // After its children, the container's step is as late as its end, where that is known.
    if (firstStep.get(span) !== steps.length) {
      const end = span.end !== undefined ? isoOfNanos(span.end) : undefined;
      if (end) step.timestamp = end;
      else delete step.timestamp;
    }
    push({
      ...step,
      speaker: span.kind === 'agent' ? span.name : (enclosingAgent(span) ?? span.name),
      // An agent's words or failure are its turn; a failure no step of a chain raised, the run's.
      role: span.kind === 'agent' ? 'agent' : 'system',
      content: contentOf(said, error),
    });
  };

  walkSpanTree(tree, { enter, leave });
  return steps;
}

/** Puts the task as a first human step, as Who&When does, when the source states it. */
export function withQuestionStep(question: string | undefined, steps: DraftStep[]): DraftStep[] {
  if (!question) return steps;
  if (steps[0]?.role === 'human' && steps[0].content === question) return steps;
  return [{ speaker: 'human', role: 'human', content: question }, ...steps];
}
