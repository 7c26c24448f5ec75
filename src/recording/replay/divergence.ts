/**
 * What differs between a replayed call and its recorded twin, in words: the instructions, which
 * message, or how many messages, with the first differing words of each side. The recording keeps
 * a hash of each part (record/recording.ts); the recorded text comes from its first characters of the
 * instructions and from the run's steps, where a message's text is one of them.
 */
import type { Trace } from '../../trace/model.js';
import { stepText } from '../../trace/step-text.js';
import type { ProxiedCall } from '../proxy/types.js';
import {
  INSTRUCTIONS_KEPT,
  itemText,
  shortHash,
  type RecordedCall,
  type RequestFingerprint,
} from '../record/recording.js';

/** Words shown from the first difference on. */
const WORDS = 12;
const CHARACTERS = 100;

/** Where two texts first differ (the shorter one's length when one starts the other). */
function firstDifference(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index += 1) if (a[index] !== b[index]) return index;
  return length;
}

/** The words of a text from the one holding `index` on, quoted, with … where it is cut. */
export function wordsFrom(text: string, index: number): string {
  if (index >= text.length) return text ? '(nothing more)' : '(nothing)';
  let start = index;
  while (start > 0 && !/\s/.test(text[start - 1]!)) start -= 1;
  const rest = text.slice(start).replace(/\s+/g, ' ').trim();
  if (!rest) return '(nothing more)';
  let shown = rest.split(' ').slice(0, WORDS).join(' ');
  if (shown.length > CHARACTERS) shown = shown.slice(0, CHARACTERS);
  return `"${start > 0 ? '…' : ''}${shown}${shown.length < rest.length ? '…' : ''}"`;
}

/** The recording's side and the replay's side from their first difference. */
function bothFrom(recorded: string, now: string): string {
  const index = firstDifference(recorded, now);
  return `the recording has ${wordsFrom(recorded, index)}, now ${wordsFrom(now, index)}`;
}

/** The run's texts by their short hash: what a recorded message's hash can be read back as. */
function textsOf(trace: Trace): Map<string, string> {
  const texts = new Map<string, string>();
  for (const text of [
    trace.question ?? '',
    ...trace.steps.flatMap((step) => [step.content, stepText(step)]),
  ])
    if (text) texts.set(shortHash(text), text);
  return texts;
}

/** How the instructions differ, or undefined when they do not. */
function instructionsDiffer(recorded: RequestFingerprint, call: ProxiedCall): string | undefined {
  if (!recorded.system || recorded.system === call.fingerprint.system) return undefined;
  const kept = recorded.instructions ?? '';
  const now = call.request.system;
  if (kept.length >= INSTRUCTIONS_KEPT && now.startsWith(kept))
    return `its instructions differ after their first ${INSTRUCTIONS_KEPT} characters (the recording keeps no more of them)`;
  return `its instructions differ: ${bothFrom(kept, now)}`;
}

/** How the messages differ, or undefined when the recording holds no hashes of them. */
function messagesDiffer(
  recorded: RequestFingerprint,
  call: ProxiedCall,
  trace: Trace,
): string | undefined {
  const before = recorded.items;
  const after = call.fingerprint.items;
  if (!before || !after) return undefined;
  const items = call.request.items;
  const differing = before.findIndex(
    (hash, index) => index < after.length && hash !== after[index],
  );
  if (differing >= 0) {
    const item = items[differing]!;
    const text = textsOf(trace).get(before[differing]!);
    const where = `its message ${differing + 1} of ${items.length} (${item.role})`;
    return text === undefined
      ? `${where} differs: now ${wordsFrom(itemText(item), 0)} (the recording keeps only a hash of its text)`
      : `${where} differs: ${bothFrom(text, itemText(item))}`;
  }
  if (before.length < after.length) {
    const extra = items[before.length]!;
    return `it sends ${items.length} messages where the recording has ${before.length}; the first new one (${extra.role}): ${wordsFrom(itemText(extra), 0)}`;
  }
  if (before.length > after.length)
    return `it sends ${items.length} messages where the recording has ${before.length}: the last ${before.length - after.length} are missing`;
  return undefined;
}

/** What a call asks differently from its recorded twin, as a clause. */
export function describeDifference(twin: RecordedCall, call: ProxiedCall, trace: Trace): string {
  const recorded = twin.request;
  return (
    instructionsDiffer(recorded, call) ??
    messagesDiffer(recorded, call, trace) ??
    // An older recording without the parts' hashes, or a difference in speakers' names or calls.
    `the recording's last message was "${recorded.last}", now it is "${call.fingerprint.last}"${recorded.last === call.fingerprint.last ? ' (the same text: a speaker name, a tool call or an earlier message differs)' : ''}`
  );
}
