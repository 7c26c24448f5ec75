/**
 * How a replay answers calls: each agent's calls are matched in order to its recorded calls. A
 * call whose recorded twin came before the blamed step gets the recorded reply (the same bytes
 * when it streams as it did), the blamed step's call gets the fix, and every later call goes to
 * the upstream. Before the fix has been given, a call that asks something else than its recorded
 * twin, or that the recording does not have, means the run diverged: it is refused, and the replay
 * reports where and what differs (divergence.ts).
 *
 * Lenient matching compares no requests, and matches an agent named by a fingerprint of its
 * instructions (which changes from run to run when they hold the time or an id) by its role
 * instead: the n-th call of an agent whose instructions, numbers and ids masked, are the same
 * (in an older recording without that key: the n-th call of any fingerprint-named agent).
 */
import type { Trace } from '../../trace/model.js';
import { callsText } from '../../trace/step-text.js';
import type { Fix } from './fix.js';
import type { Answer, ProxiedCall, Responder } from '../proxy/proxy.js';
import type { RecordedCall, Recording } from '../record/recording.js';
import { describeDifference } from './divergence.js';

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
  /**
   * Match calls by order alone, without comparing what they ask; agents named by a fingerprint
   * by their role and order.
   */
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
  /** Lenient: fingerprint-named agents' recorded calls by role key, and the replay's count of each. */
  private readonly byRole = new Map<string, RecordedCall[]>();
  private readonly roleCalls = new Map<string, number>();
  /** Whether the recording keys fingerprint-named calls by role (older recordings do not). */
  private readonly roleKeyed: boolean;
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
    const fingerprinted = options.recording.calls.filter(
      (call) => call.agentSource === 'fingerprint',
    );
    this.roleKeyed = fingerprinted.every((call) => call.request.role !== undefined);
    for (const call of fingerprinted) {
      const key = this.roleKeyed ? call.request.role! : 'fingerprint';
      this.byRole.set(key, [...(this.byRole.get(key) ?? []), call]);
    }
    const target = options.recording.calls.find((call) => call.step === options.step);
    if (!target) throw new Error(`step ${options.step} is not a recorded model call`);
    this.target = target;
  }

  answer(call: ProxiedCall): Answer | undefined {
    const { twin, missing } = this.twinOf(call);
    if (!twin || twin.step === undefined || twin.step > this.options.step) {
      if (!twin && !this.fixGiven) return this.diverged(call, missing);
      this.counts.upstream += 1;
      return undefined;
    }
    if (!this.options.lenient && twin.request.hash !== call.fingerprint.hash)
      return this.diverged(
        call,
        `${call.agent}'s ${ordinal(call.agentCall)} call (step ${twin.step}) asked something else than when recorded: ${describeDifference(twin, call, this.options.trace)}`,
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

  /** The recorded call a call matches, or what the recording lacks when none does. */
  private twinOf(call: ProxiedCall): { twin: RecordedCall | undefined; missing: string } {
    const before = `before step ${this.options.step}`;
    if (this.options.lenient && call.agentSource === 'fingerprint') {
      const key = this.roleKeyed ? (call.fingerprint.role ?? '') : 'fingerprint';
      const index = this.roleCalls.get(key) ?? 0;
      this.roleCalls.set(key, index + 1);
      const recorded = this.byRole.get(key) ?? [];
      return {
        twin: recorded[index],
        missing: `${call.agent} (named by a fingerprint of its instructions) made the ${ordinal(index)} call of its role, which the recording does not have ${before} (it has ${recorded.length} call${recorded.length === 1 ? '' : 's'} of an agent with these instructions, numbers and ids aside)`,
      };
    }
    const recorded = this.byAgent.get(call.agent);
    const count = recorded?.length ?? 0;
    const hint = recorded
      ? ''
      : call.agentSource === 'fingerprint' && !this.options.lenient
        ? '; the name is a fingerprint of its instructions: if they hold the time or an id, --lenient matches the agent by its role and order'
        : '; is the agent named the same way as when recording?';
    return {
      twin: recorded?.[call.agentCall],
      missing: `${call.agent} made a ${ordinal(call.agentCall)} call, which the recording does not have ${before} (it has ${count} call${count === 1 ? '' : 's'} of ${call.agent}${hint})`,
    };
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
