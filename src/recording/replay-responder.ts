/**
 * How a replay answers calls: each agent's calls are matched in order to its recorded calls. A
 * call whose recorded twin came before the blamed step gets the recorded reply (the same bytes
 * when it streams as it did), the blamed step's call gets the fix, and every later call goes to
 * the upstream. Before the fix has been given, a call that asks something else than its recorded
 * twin, or that the recording does not have, means the run diverged: it is refused, and the replay
 * reports where.
 */
import type { Trace } from '../trace/model.js';
import { callsText } from '../trace/step-text.js';
import type { Fix } from './fix.js';
import type { Answer, ProxiedCall, Responder } from './proxy.js';
import type { RecordedCall, Recording } from './recording.js';

/** Where a replay left the recording. */
export interface Divergence {
  agent: string;
  agentCall: number;
  message: string;
}

/** Counts of how calls were answered. */
export interface ReplayCounts {
  recording: number;
  fix: number;
  upstream: number;
}

/** Settings of the responder. */
export interface ResponderOptions {
  recording: Recording;
  trace: Trace;
  step: number;
  fix: Fix;
  /** Match calls by order alone, without comparing what they ask. */
  lenient?: boolean;
}

const ordinal = (index: number) => {
  const number = index + 1;
  const suffix =
    number % 100 >= 11 && number % 100 <= 13
      ? 'th'
      : (['th', 'st', 'nd', 'rd'][number % 10] ?? 'th');
  return `${number}${suffix}`;
};

/** Answers a replay's calls from the recording and the fix. */
export class ReplayResponder implements Responder {
  private readonly byAgent = new Map<string, RecordedCall[]>();
  /** The first divergence, if the run left the recording before the fix. */
  divergence: Divergence | undefined;
  fixGiven = false;
  readonly counts: ReplayCounts = { recording: 0, fix: 0, upstream: 0 };
  /** The recorded call the fix replaces. */
  readonly target: RecordedCall;

  constructor(private readonly options: ResponderOptions) {
    for (const call of options.recording.calls) {
      const list = this.byAgent.get(call.agent) ?? [];
      list[call.agentCall] = call;
      this.byAgent.set(call.agent, list);
    }
    const target = options.recording.calls.find((call) => call.step === options.step);
    if (!target) throw new Error(`step ${options.step} is not a recorded model call`);
    this.target = target;
  }

  answer(call: ProxiedCall): Answer | undefined {
    const twin = this.byAgent.get(call.agent)?.[call.agentCall];
    if (!twin || twin.step === undefined || twin.step > this.options.step) {
      if (!twin && !this.fixGiven)
        return this.diverged(
          call,
          `${call.agent} made a ${ordinal(call.agentCall)} call, which the recording does not have before step ${this.options.step} (it has ${this.byAgent.get(call.agent)?.length ?? 0} call${(this.byAgent.get(call.agent)?.length ?? 0) === 1 ? '' : 's'} of ${call.agent}${this.byAgent.has(call.agent) ? '' : '; is the agent named the same way as when recording?'})`,
        );
      this.counts.upstream += 1;
      return undefined;
    }
    if (!this.options.lenient && twin.request.hash !== call.fingerprint.hash)
      return this.diverged(
        call,
        `${call.agent}'s ${ordinal(call.agentCall)} call (step ${twin.step}) asked something else than when recorded: the recording's last message was "${twin.request.last}", now it is "${call.fingerprint.last}"`,
      );
    if (twin.step === this.options.step) {
      this.fixGiven = true;
      this.counts.fix += 1;
      const reply = { text: this.options.fix.text, toolCalls: this.options.fix.toolCalls ?? [] };
      const written = call.api.writeReply(reply, {
        stream: call.request.stream,
        model: twin.model ?? call.request.model ?? 'faultline-fix',
        ...(call.request.includeUsage ? { includeUsage: true } : {}),
      });
      return {
        kind: 'fix',
        status: 200,
        headers: { 'content-type': written.contentType },
        body: written.body,
        reply,
      };
    }
    this.counts.recording += 1;
    return this.recorded(call, twin);
  }

  /** The recorded reply of a call: as sent when it can be, else written from its step. */
  private recorded(call: ProxiedCall, twin: RecordedCall): Answer {
    const response = twin.response;
    if (!response && twin.noReply === 'dropped')
      return { kind: 'drop', message: twin.error ?? 'the upstream dropped the connection' };
    if (!response)
      return {
        kind: 'refuse',
        status: 502,
        message: twin.error ?? 'the recorded call got no reply',
      };
    const sameShape =
      !response.truncated &&
      twin.api === call.api.name &&
      (twin.streamed === call.request.stream || response.status >= 400);
    if (sameShape) {
      let reply = { text: '', toolCalls: [] as NonNullable<Fix['toolCalls']> };
      try {
        const read = call.api.readReply(
          response.body,
          (response.headers['content-type'] ?? '').includes('event-stream'),
        );
        reply = { text: read.text, toolCalls: read.toolCalls };
      } catch {
        // An unreadable recorded body is still sent as it was recorded.
      }
      return {
        kind: 'recording',
        status: response.status,
        headers: response.headers,
        body: response.body,
        reply,
      };
    }
    // The client streams where it did not (or the body was too long to keep): the same reply,
    // written in the shape asked for.
    const step = this.options.trace.steps[twin.step!]!;
    const toolCalls = step.toolCalls ?? [];
    // A step that only called tools shows the calls as its content; the reply carries them as calls.
    const onlyCalls = toolCalls.length > 0 && step.content === callsText(toolCalls);
    const reply = { text: onlyCalls ? '' : step.content, toolCalls };
    const written = call.api.writeReply(reply, {
      stream: call.request.stream,
      model: twin.model ?? call.request.model ?? 'faultline-replay',
      ...(call.request.includeUsage ? { includeUsage: true } : {}),
    });
    return {
      kind: 'recording',
      status: 200,
      headers: { 'content-type': written.contentType },
      body: written.body,
      reply,
    };
  }

  private diverged(call: ProxiedCall, message: string): Answer {
    this.divergence ??= { agent: call.agent, agentCall: call.agentCall, message };
    return {
      kind: 'refuse',
      // 400: clients do not retry it (they retry 409), so the run stops where it left the recording.
      status: 400,
      message: `faultline replay: the run diverged from the recording: ${message}`,
    };
  }
}
