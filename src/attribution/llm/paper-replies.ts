/**
 * Replies to the Who&When paper's prompts, read two ways. The paper's reading is the reference
 * code's (ag2ai/Agents_Failure_Attribution, commit f4d2b6d, MIT, Copyright (c) 2025 Ming Yin):
 * All-at-Once as `evaluate.py` reads its printed reply, a Step-by-Step verdict as `Lib/utils.py`
 * tests it (the reply starts with "1. yes"), a Binary Search choice as `Lib/utils.py` tests it
 * ("upper half" anywhere wins, then "lower half"; else the reference flips a coin). The tolerant
 * reading is faultline's (replies.ts: JSON, Markdown bold, "Yes" without its number), and for the
 * halves the paper's own words beside faultline's; it never guesses. Both readings are kept: the
 * paper's gives the result, the tolerant one its `lenient` field (docs/PROTOCOL.md).
 */
import type { Trace } from '../../trace/model.js';
import { extractJsonObject, parseAttributionReply, parseVerdictReply } from './replies.js';

/**
 * All-at-Once as evaluate.py reads it: `Agent Name:` then a word (letters, digits, `_`: so
 * "Orchestrator (thought)" reads "Orchestrator"), and `Step Number:` then digits, any case. Both
 * must be there. The agent is kept as written (evaluate.py compares it as a string); the step is
 * the number written, checked against the trace by the caller.
 */
export function readPaperAttribution(
  text: string,
): { agent: string; step: number; reason: string } | undefined {
  const agent = /Agent Name:\s*([\p{L}\p{N}_]+)/iu.exec(text)?.[1];
  const step = /Step Number:\s*(\d+)/i.exec(text)?.[1];
  if (agent === undefined || step === undefined) return undefined;
  const reason = /Reason for Mistake:\s*([\s\S]*)/i.exec(text)?.[1]?.trim() ?? '';
  return { agent, step: Number(step), reason };
}

/** All-at-Once read tolerantly: faultline's reading of agent and step (replies.ts). */
export function readTolerantAttribution(
  text: string,
  trace: Trace,
): { agent: string; step: number; reason: string } | undefined {
  const reply = parseAttributionReply(text, trace);
  return reply && { agent: reply.agent, step: reply.step, reason: reply.reason };
}

/**
 * A Step-by-Step verdict as the reference tests it: "1. yes" or "1. no" at the start, any case;
 * anything else is unexpected (the reference goes on to the next step, as after a no). The reason
 * is what follows the first "Reason:", or the whole reply.
 */
export function readPaperVerdict(text: string): {
  verdict: 'yes' | 'no' | 'unexpected';
  reason: string;
} {
  const opening = text.toLowerCase().trim();
  const verdict = opening.startsWith('1. yes')
    ? 'yes'
    : opening.startsWith('1. no')
      ? 'no'
      : 'unexpected';
  const at = text.indexOf('Reason:');
  return { verdict, reason: (at === -1 ? text : text.slice(at + 'Reason:'.length)).trim() };
}

/** A Step-by-Step verdict read tolerantly (replies.ts): yes, no, or unreadable. */
export function readTolerantVerdict(text: string): { error: boolean; reason: string } | undefined {
  return parseVerdictReply(text);
}

/** The two halves of a Binary Search segment: `upper` is the earlier steps. */
export type PaperHalf = 'upper' | 'lower';

/** A Binary Search choice as the reference tests it; undefined where it would flip a coin. */
export function readPaperHalf(text: string): PaperHalf | undefined {
  const lower = text.toLowerCase();
  if (lower.includes('upper half')) return 'upper';
  if (lower.includes('lower half')) return 'lower';
  return undefined;
}

const EARLIER = /\b(?:upper|earlier|first)\s+half\b/i;
const LATER = /\b(?:lower|later|second)\s+half\b/i;

/**
 * A Binary Search choice read tolerantly: exactly one half named, in the prompt's words or
 * faultline's (`upper`/`earlier`/`first`, `lower`/`later`/`second`), Markdown emphasis ignored, or
 * a JSON `half`. A reply naming both halves or neither is unreadable: no coin.
 */
export function readTolerantHalf(text: string): PaperHalf | undefined {
  const half = extractJsonObject(text)?.half;
  if (typeof half === 'string') {
    const named = half.trim().toLowerCase();
    if (named === 'upper' || named === 'earlier') return 'upper';
    if (named === 'lower' || named === 'later') return 'lower';
  }
  const plain = text.replace(/[*_`]+/g, '');
  const earlier = EARLIER.test(plain);
  if (earlier === LATER.test(plain)) return undefined;
  return earlier ? 'upper' : 'lower';
}
