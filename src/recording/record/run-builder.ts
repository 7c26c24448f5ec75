/**
 * One recorded run, growing call by call, and the canonical Trace it reads as. Steps are kept in
 * the order calls arrived: the tool outputs a call's history brings for the first time (tool
 * steps, spoken by the tool), then the call's reply (the agent's step), filled in when the reply
 * has come. A trace built mid-run holds the finished steps only.
 */
import { createHash } from 'node:crypto';
import { buildTrace, type DraftStep } from '../../trace/build-trace.js';
import type { Trace, TraceOutcome } from '../../trace/model.js';
import { callsText } from '../../trace/step-text.js';
import { AgentBook } from './agent-book.js';
import type { AgentSource } from './identify.js';
import {
  RECORDED_FORMAT,
  RECORDING_VERSION,
  recordingOf,
  requestFingerprint,
  type RecordedCall,
  type RecordedResponse,
  type ReplayOrigin,
} from './recording.js';
import type { ReplyView, RequestView, WireName } from '../wire/types.js';

/** A step of the run: a tool output, or a model call (with its step once answered). */
type Entry =
  { kind: 'tool'; step: DraftStep } | { kind: 'call'; call: RecordedCall; step?: DraftStep };

/** What the proxy knows of a call when it arrives. */
export interface CallStart {
  agent: string;
  agentSource: AgentSource;
  api: WireName;
  request: RequestView;
  startedAt?: Date;
}

/** How a call ended. */
export interface CallEnd {
  response?: RecordedResponse;
  /** The reply as read from the body, when it could be read. */
  reply?: ReplyView;
  /** Transport failures and unreadable bodies. */
  error?: string;
  /** Why no reply came, where none did. */
  noReply?: RecordedCall['noReply'];
  durationMs: number;
  answeredBy?: RecordedCall['answeredBy'];
}

/** A call in flight: finish it with `RunBuilder.finish`. */
export interface CallHandle {
  readonly call: RecordedCall;
}

/** Settings of a run. */
export interface RunOptions {
  /** Where calls are forwarded (scheme, host and path only: no credentials). */
  upstream?: string;
  replay?: ReplayOrigin;
  /** The task the run is a run of (`metadata.task`, src/trace/task.ts): `faultline rerun --task`. */
  task?: string;
}

/** Key of a tool output: the call it answers, else its text. */
const toolKey = (callId: string | undefined, text: string) =>
  callId ? `id:${callId}` : `text:${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;

/** The error a call's step records, when something went wrong. */
function callError(end: CallEnd): string | undefined {
  const status = end.response?.status;
  if (status !== undefined && status >= 400) {
    const retry = end.response?.headers['retry-after'];
    const detail = end.reply?.error ?? end.response?.body.slice(0, 300);
    return `HTTP ${status}${retry ? ` (Retry-After: ${retry})` : ''}${detail ? `: ${detail}` : ''}`;
  }
  return end.error ?? end.reply?.error;
}

/** A run being recorded. */
export class RunBuilder {
  private readonly entries: Entry[] = [];
  private readonly seenTools = new Set<string>();
  /** Tool names by call id, from every call the run has seen. */
  private readonly toolNames = new Map<string, string>();
  private readonly agentCalls = new Map<string, number>();
  /** What the run has learnt of its agents: the proxy names each call with it. */
  readonly agents = new AgentBook();
  private calls = 0;
  private question: string | undefined;
  /** The run's task (the `x-faultline-task` header), else the one the options give. */
  task: string | undefined;
  private startedAt: string;
  /** The run's outcome, once someone says it. */
  outcome: TraceOutcome = 'unknown';
  /** Bumped on every change, so writers can tell whether there is anything new. */
  version = 0;

  constructor(
    readonly id: string,
    private readonly options: RunOptions = {},
  ) {
    this.startedAt = new Date().toISOString();
  }

  /** Continues a run from the trace recorded of it so far (a proxy restarted mid-run). */
  static resume(trace: Trace, options: RunOptions = {}): RunBuilder {
    const recording = recordingOf(trace);
    const task = typeof trace.metadata.task === 'string' ? trace.metadata.task : undefined;
    const builder = new RunBuilder(trace.id, {
      ...(task ? { task } : {}),
      ...options,
      ...(recording?.upstream && !options.upstream ? { upstream: recording.upstream } : {}),
    });
    if (recording) builder.startedAt = recording.startedAt;
    builder.question = trace.question;
    builder.outcome = trace.outcome;
    const callsByStep = new Map((recording?.calls ?? []).map((call) => [call.step, call]));
    for (const step of trace.steps) {
      const draft: DraftStep = {
        speaker: step.speaker,
        role: step.role,
        content: step.content,
        ...(step.toolCalls ? { toolCalls: step.toolCalls } : {}),
        ...(step.toolResults ? { toolResults: step.toolResults } : {}),
        ...(step.timestamp ? { timestamp: step.timestamp } : {}),
        ...(step.error ? { error: step.error } : {}),
        ...(step.span ? { span: step.span } : {}),
        ...(step.logprobs ? { logprobs: step.logprobs } : {}),
      };
      for (const call of step.toolCalls ?? [])
        if (call.id) builder.toolNames.set(call.id, call.name);
      const call = callsByStep.get(step.index);
      if (call) {
        builder.entries.push({ kind: 'call', call, step: draft });
        builder.agents.note(call.request.role, call.agent, call.agentSource);
        builder.agentCalls.set(
          call.agent,
          Math.max(builder.agentCalls.get(call.agent) ?? 0, call.agentCall + 1),
        );
        builder.calls = Math.max(builder.calls, call.call + 1);
      } else {
        builder.entries.push({ kind: 'tool', step: draft });
        for (const result of step.toolResults ?? [])
          builder.seenTools.add(toolKey(result.id, result.content));
      }
    }
    return builder;
  }

  /** Steps recorded so far (finished calls and tool outputs). */
  get steps(): number {
    return this.entries.filter((entry) => entry.kind === 'tool' || entry.step).length;
  }

  /** Calls still waiting for their reply. */
  get pending(): number {
    return this.entries.filter((entry) => entry.kind === 'call' && !entry.step).length;
  }

  /** Records a call as it arrives: the tool outputs it brings first, then its pending reply. */
  begin(start: CallStart): CallHandle {
    const startedAt = start.startedAt ?? new Date();
    const { request } = start;
    if (this.question === undefined) {
      const task = request.items.find((item) => item.role === 'user' && item.text.trim());
      if (task) this.question = task.text;
    }
    for (const item of request.items)
      for (const call of item.toolCalls ?? []) if (call.id) this.toolNames.set(call.id, call.name);
    for (const item of request.items) {
      if (item.role !== 'tool') continue;
      const callId = item.toolResult?.callId;
      const key = toolKey(callId, item.text);
      if (this.seenTools.has(key)) continue;
      this.seenTools.add(key);
      const name = item.toolResult?.name ?? (callId ? this.toolNames.get(callId) : undefined);
      const isError = item.toolResult?.isError === true;
      this.entries.push({
        kind: 'tool',
        step: {
          speaker: name ?? 'tool',
          role: 'tool',
          content: item.text,
          toolResults: [
            {
              ...(callId ? { id: callId } : {}),
              ...(name ? { name } : {}),
              content: item.text,
              ...(isError ? { isError: true } : {}),
            },
          ],
          timestamp: startedAt.toISOString(),
          ...(isError
            ? { error: item.text.split('\n')[0]!.slice(0, 300) || 'the tool failed' }
            : {}),
        },
      });
    }
    const agentCall = this.agentCalls.get(start.agent) ?? 0;
    this.agentCalls.set(start.agent, agentCall + 1);
    const call: RecordedCall = {
      call: this.calls,
      agent: start.agent,
      agentSource: start.agentSource,
      agentCall,
      api: start.api,
      streamed: request.stream,
      ...(request.model ? { model: request.model } : {}),
      startedAt: startedAt.toISOString(),
      request: requestFingerprint(request),
    };
    this.calls += 1;
    this.entries.push({ kind: 'call', call });
    this.version += 1;
    return { call };
  }

  /** Records how a call ended; its step joins the trace. */
  finish(handle: CallHandle, end: CallEnd): void {
    const entry = this.entries.find((item) => item.kind === 'call' && item.call === handle.call);
    if (!entry || entry.kind !== 'call') return;
    const { call } = entry;
    call.durationMs = Math.round(end.durationMs * 10) / 10;
    if (end.response) call.response = end.response;
    if (end.noReply) call.noReply = end.noReply;
    if (end.answeredBy) call.answeredBy = end.answeredBy;
    const error = callError(end);
    if (error) call.error = error;
    const reply = end.reply;
    for (const toolCall of reply?.toolCalls ?? [])
      if (toolCall.id) this.toolNames.set(toolCall.id, toolCall.name);
    const text = reply?.text ?? '';
    const toolCalls = reply?.toolCalls ?? [];
    const model = reply?.model ?? call.model;
    entry.step = {
      speaker: call.agent,
      role: 'agent',
      content: text.trim() ? text : callsText(toolCalls),
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
      timestamp: call.startedAt,
      ...(error ? { error } : {}),
      ...(reply?.logprobs ? { logprobs: reply.logprobs } : {}),
      span: {
        id: reply?.id ?? `${this.id}/call-${call.call}`,
        durationMs: call.durationMs,
        ...(model ? { model } : {}),
        ...(reply?.inputTokens !== undefined ? { inputTokens: reply.inputTokens } : {}),
        ...(reply?.outputTokens !== undefined ? { outputTokens: reply.outputTokens } : {}),
      },
    };
    this.version += 1;
  }

  /** The run as a canonical trace: finished steps in order, the calls in `metadata.recording`. */
  toTrace(): Trace {
    const steps: DraftStep[] = [];
    const calls: RecordedCall[] = [];
    for (const entry of this.entries) {
      if (!entry.step) continue;
      if (entry.kind === 'call') calls.push({ ...entry.call, step: steps.length });
      steps.push(entry.step);
    }
    return buildTrace({
      id: this.id,
      format: RECORDED_FORMAT,
      outcome: this.outcome,
      ...(this.question ? { question: this.question } : {}),
      steps,
      metadata: {
        ...((this.task ?? this.options.task) ? { task: this.task ?? this.options.task } : {}),
        recording: {
          version: RECORDING_VERSION,
          run: this.id,
          ...(this.options.upstream ? { upstream: this.options.upstream } : {}),
          startedAt: this.startedAt,
          calls,
          ...(this.options.replay ? { replay: this.options.replay } : {}),
        },
      },
    });
  }
}
