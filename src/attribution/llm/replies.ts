/**
 * Reading model replies. The protocol (docs/PROTOCOL.md) asks for JSON objects; many local models
 * ignore schemas, so the paper's text formats are accepted too ("Agent Name: X / Step Number: N",
 * "1. Yes", "earlier half"). Anything else is unreadable: the caller retries once, then reports the
 * reply as unparsed. Nothing here guesses.
 */
import { z } from 'zod';
import { matchAgentName } from '../../trace/agents.js';
import { mastCode } from '../../trace/mast.js';
import type { Trace } from '../../trace/model.js';
import { trimStartOf } from '../../trace/text-limits.js';

/** JSON shapes of the three replies (also sent as structured-output schemas). */
export const attributionReplySchema = z.object({
  agent: z.string(),
  step: z.number().int(),
  reason: z.string(),
  modes: z.array(z.string()),
});
export const verdictReplySchema = z.object({ error: z.boolean(), reason: z.string() });
export const halfReplySchema = z.object({ half: z.enum(['earlier', 'later']), reason: z.string() });

/**
 * What a reply's JSON is read with: the same fields, but forgiving where models are (a step
 * written as a digit string, a missing or non-text reason). A reply that fails these is read as
 * text instead.
 */
const reason = z.string().catch('');
const readAttribution = z.object({
  agent: z.string(),
  step: z.union([z.number(), z.string().trim().regex(/^\d+$/).transform(Number)]),
  reason,
  modes: z.unknown().optional(),
  faults: z.unknown().optional(),
});

/** A MAST code at the start of a written mode: `2.6`, `FM-2.6`, `2.6 Reasoning-action mismatch`. */
const MODE_CODE = /^\s*(?:FM[-_ ]?)?(\d\.\d)\b/i;

/**
 * The MAST codes a reply names, once each in the order given: a list of codes, or Aegis-style
 * `{"agent": ..., "modes": [...]}` pairs (under `modes` or `faults`). Unknown codes are dropped.
 */
export function modesOfReply(modes: unknown, faults?: unknown): string[] {
  const codes: string[] = [];
  const add = (value: unknown) => {
    if (typeof value === 'string') {
      const code = mastCode(MODE_CODE.exec(value)?.[1] ?? '');
      if (code && !codes.includes(code)) codes.push(code);
    } else if (Array.isArray(value)) value.forEach(add);
    else if (typeof value === 'object' && value !== null) {
      const pair = value as Record<string, unknown>;
      add(pair.modes ?? pair.mode ?? pair.fault_modes);
    }
  };
  add(modes);
  add(faults);
  return codes;
}
const readVerdict = z.object({ error: z.boolean(), reason });
const readHalf = z.object({
  half: z
    .string()
    .transform((half) => half.trim().toLowerCase())
    .pipe(z.enum(['earlier', 'later'])),
  reason,
});

/**
 * The balanced `{...}` starting at `start` (braces inside JSON strings ignored), if any within the
 * `budget` of characters left to read (`budget.left` is spent by what is read).
 */
function balancedObject(text: string, start: number, budget: { left: number }): string | undefined {
  let depth = 0;
  let inString = false;
  const end = Math.min(text.length, start + budget.left);
  for (let index = start; index < end; index += 1) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{') depth += 1;
    else if (char === '}' && (depth -= 1) === 0) {
      budget.left -= index + 1 - start;
      return text.slice(start, index + 1);
    }
  }
  budget.left -= end - start;
  return undefined;
}

/** Most characters read looking for balanced objects in one reply (many times a long reply). */
const SCAN_BUDGET = 2_000_000;

/**
 * The first JSON object in a reply: a fenced block, else the first balanced `{...}` that parses
 * as an object (so braces in the prose before it do not get in the way).
 */
export function extractJsonObject(text: string): Record<string, unknown> | undefined {
  const inFence = objectOf(fencedBlock(text) ?? '');
  if (inFence) return inFence;
  // Each opening brace is tried in turn (code quoted before the object has many), so a reply of
  // many unclosed braces (a model stuck repeating itself) would take quadratic time: the reading
  // stops after SCAN_BUDGET characters.
  const budget = { left: SCAN_BUDGET };
  for (let start = text.indexOf('{'); start !== -1; start = text.indexOf('{', start + 1)) {
    const candidate = balancedObject(text, start, budget);
    const object = candidate === undefined ? undefined : objectOf(candidate);
    if (object) return object;
    if (budget.left <= 0) break;
  }
  return undefined;
}

/**
 * The first fenced block's text (without a `json` tag), found by position: a lazy pattern would
 * rescan the rest of the reply from every fence that is never closed.
 */
function fencedBlock(text: string): string | undefined {
  const open = text.indexOf('```');
  const close = open < 0 ? -1 : text.indexOf('```', open + 3);
  if (close < 0) return undefined;
  const inner = text.slice(open + 3, close);
  return inner.slice(0, 4).toLowerCase() === 'json' ? inner.slice(4) : inner;
}

/** The JSON object a text holds, if it parses as one. */
function objectOf(candidate: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(candidate.trim());
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {
    // not an object
  }
  return undefined;
}

/** Agent, step and reason, validated against the trace: the step must exist. */
export function parseAttributionReply(
  text: string,
  trace: Trace,
): { agent: string; step: number; reason: string; modes?: string[] } | undefined {
  const json = readAttribution.safeParse(extractJsonObject(text));
  let agent: string | undefined;
  let step: number | undefined;
  let reason = '';
  let modes: string[] | undefined;
  if (json.success) {
    ({ agent, step, reason } = json.data);
    if (json.data.modes !== undefined || json.data.faults !== undefined)
      modes = modesOfReply(json.data.modes, json.data.faults);
  } else {
    // The paper's format: "Agent Name: X\nStep Number: N\nReason for Mistake: ...", also on one
    // line ("Agent: X, Step: N, Reason: ...") and with Markdown bold around labels or values.
    agent = /agent(?: name)?\s*(?:\*+\s*)?[:=]\s*(?:\*+\s*)?([^\n*]+)/i
      .exec(text)?.[1]
      ?.split(/[,;|]\s*(?:step|reason)\b/i, 1)[0]
      ?.trim();
    const stepText = /step(?: number)?\s*(?:\*+\s*)?[:=]\s*(?:\*+\s*)?(\d+)/i.exec(text)?.[1];
    step = stepText === undefined ? undefined : Number(stepText);
    reason =
      /reason(?: for (?:the )?mistake)?\s*(?:\*+\s*)?[:=]\s*(?:\*+\s*)?([\s\S]+)/i
        .exec(text)?.[1]
        ?.trim() ?? '';
    // "Modes: 2.6, FM-1.3" on its own line; the reason stops before it.
    const modeLine =
      /^[^\w\n\r\u2028\u2029]*(?:failure )?modes?[ \t]*(?:\*+[ \t]*)?[:=](.+)$/im.exec(text);
    if (modeLine) {
      modes = modesOfReply(trimStartOf(modeLine[1]!, ' \t*').split(/[,;]/));
      reason = reason
        .replace(/\n[^\w\n]*(?:failure )?modes?\s*(?:\*+\s*)?[:=][\s\S]*$/i, '')
        .trim();
    }
  }
  if (
    !agent ||
    step === undefined ||
    !Number.isInteger(step) ||
    step < 0 ||
    step >= trace.steps.length
  )
    return undefined;
  return {
    agent: matchAgentName(
      agent,
      trace.agents.map((info) => info.name),
    ),
    step,
    reason,
    ...(modes ? { modes } : {}),
  };
}

/** A step verdict: was this step the decisive error? */
export function parseVerdictReply(text: string): { error: boolean; reason: string } | undefined {
  const json = readVerdict.safeParse(extractJsonObject(text));
  if (json.success) return json.data;
  // "Yes. …", "1. Yes", "**1. Yes**", "**Yes**": the verdict opens the reply.
  // Leading spaces and stars are skipped in one pass, so that a pattern need not weigh them.
  const opening = trimStartOf(text, ' \t\r\n*');
  const match = /^(?:1\s*[.)][\s*]*)?(yes|no)\b\**/i.exec(opening);
  if (!match) return undefined;
  return {
    error: match[1]!.toLowerCase() === 'yes',
    reason: opening
      .slice(match[0].length)
      .replace(/^[\s.,:*-]+/, '')
      .trim(),
  };
}

/**
 * A binary-search choice: the earlier or the later half (also read: "first half", "second half").
 * "Upper" and "lower" are not read: they mean opposite halves to different readers (the Who&When
 * paper's "upper half" is the earlier one), so such a reply is retried rather than guessed. Both
 * halves or neither named: unreadable.
 */
export function parseHalfReply(
  text: string,
): { half: 'earlier' | 'later'; reason: string } | undefined {
  const json = readHalf.safeParse(extractJsonObject(text));
  if (json.success) return json.data;
  const earlier = /\b(?:earlier|first) half\b/i.test(text);
  const later = /\b(?:later|second) half\b/i.test(text);
  if (earlier === later) return undefined;
  return { half: earlier ? 'earlier' : 'later', reason: text.trim() };
}
