/**
 * A run's outcome as the app marks it on its spans, for apps whose framework sets no ERROR status
 * for a wrong answer: the attribute `faultline.outcome` (`failed` or `passed`) on any span of the
 * run, or an event named `faultline.outcome` carrying it (`outcome` or `faultline.outcome`). The
 * last mark in time wins. Read by every span importer, so a run read offline from a file gets the
 * outcome it got live. Also the run's session id (`sessionOf`), by which an app that never learns
 * its trace id marks the outcome over the API (`POST /api/runs/outcome {"session": …}`).
 */
import type { Trace } from './model.js';

/** The attribute (and event name) an app marks its run's outcome with. */
export const OUTCOME_ATTRIBUTE = 'faultline.outcome';

const FAILED = new Set(['failed', 'failure', 'fail', 'error']);
const PASSED = new Set(['passed', 'success', 'pass', 'ok']);

/** A marked value as an outcome, when it is one. */
function outcomeOf(value: unknown): Trace['outcome'] | undefined {
  if (typeof value !== 'string') return undefined;
  const word = value.trim().toLowerCase();
  return FAILED.has(word) ? 'failure' : PASSED.has(word) ? 'success' : undefined;
}

/** What a span importer knows of a span: its attributes, its events, when it started. */
export interface MarkedSpan {
  start: bigint;
  attributes: Record<string, unknown>;
  events?: readonly { name: string; time: bigint; attributes: Record<string, unknown> }[];
}

/** The outcome the spans mark (the latest mark), or undefined when none does. */
export function markedOutcome(spans: readonly MarkedSpan[]): Trace['outcome'] | undefined {
  let latest: { time: bigint; outcome: Trace['outcome'] } | undefined;
  const consider = (time: bigint, value: unknown) => {
    const outcome = outcomeOf(value);
    if (outcome && (!latest || time >= latest.time)) latest = { time, outcome };
  };
  for (const span of spans) {
    consider(span.start, span.attributes[OUTCOME_ATTRIBUTE]);
    for (const event of span.events ?? [])
      if (event.name === OUTCOME_ATTRIBUTE)
        consider(event.time, event.attributes.outcome ?? event.attributes[OUTCOME_ATTRIBUTE]);
  }
  return latest?.outcome;
}

/** Attributes a run's session id is read from, in order: OpenInference, GenAI, the AI SDK's. */
const SESSION_ATTRIBUTES = [
  'session.id',
  'gen_ai.conversation.id',
  'ai.telemetry.metadata.sessionId',
  'ai.telemetry.metadata.session.id',
] as const;

/** The session id the first span that names one gives, if any. */
export function sessionOf(spans: readonly MarkedSpan[]): string | undefined {
  for (const span of spans)
    for (const key of SESSION_ATTRIBUTES) {
      const value = span.attributes[key];
      if (typeof value === 'string' && value.trim()) return value.trim();
    }
  return undefined;
}
