/**
 * Per-step text facts, computed once per step and reused by its own and its neighbours' features:
 * the scanned text (the content, and the tool calls the content does not show), its words and
 * numbers, whether it is a failing or empty tool output, a progress review, and what the agent says
 * (phrases.ts).
 */
import type { Step } from '../../../trace/model.js';
import { stepText } from '../../../trace/step-text.js';
import { NO_PHRASES, findPhrases, type PhraseHits } from './phrases.js';
import { EMPTY_OUTPUT, ERROR_OUTPUT, numbersIn } from './text-signals.js';
import { readWords, type WordSet } from './tokens.js';

/** A planner's progress review: Magentic-One's ledger and similar JSON self-assessments. */
const NO_PROGRESS = /"is_progress_being_made"\s*:\s*\{[^}]*"answer"\s*:\s*false/i;
const IN_LOOP = /"is_in_loop"\s*:\s*\{[^}]*"answer"\s*:\s*true/i;
/** Either ledger key, looked for in one scan. */
const LEDGER_KEY = /is_progress_being_made|is_in_loop/;

/** What the features read of one step. */
export interface StepFacts {
  /** The scanned content, and the same lower-cased. */
  text: string;
  lower: string;
  /** Hashes of its words (tokens.ts). */
  words: WordSet;
  numbers: Set<string>;
  isErrorOutput: boolean;
  isEmptyOutput: boolean;
  isActor: boolean;
  /** A progress review (a planner's ledger), and whether it judges the run stalled or looping. */
  isReview: boolean;
  reviewStalled: boolean;
  reviewLoop: boolean;
  /** Phrase signals; only read in actor steps, where they describe what the agent did. */
  phrases: Readonly<PhraseHits>;
}

/** Longest content read per step: signals sit at the head and tail; this bounds cost on huge steps. */
const MAX_SCAN = 2_400;

function scanText(content: string): string {
  if (content.length <= MAX_SCAN) return content;
  return `${content.slice(0, MAX_SCAN / 2)}\n${content.slice(-MAX_SCAN / 2)}`;
}

/** Word sets feed similarity and overlap only; their head and tail are enough and keep them cheap. */
const WORD_WINDOW = { head: 1_200, tail: 300 };

/** The facts of one step. */
export function factsOf(step: Step): StepFacts {
  const text = scanText(stepText(step));
  const lower = text.toLowerCase();
  const toolLike = step.role === 'tool' || (step.toolResults?.length ?? 0) > 0;
  const actor = step.role === 'agent';
  const { words, tokens } = readWords(lower, { tokens: actor, wordWindow: WORD_WINDOW });
  const phrases = tokens ? findPhrases(tokens) : NO_PHRASES;
  // The ledger patterns are only tried where one of their keys occurs (most steps have none).
  const ledger = actor && LEDGER_KEY.test(lower);
  return {
    text,
    lower,
    words,
    numbers: numbersIn(text),
    isErrorOutput:
      (toolLike && ERROR_OUTPUT.test(text)) ||
      Boolean(step.error) ||
      (step.toolResults ?? []).some((result) => result.isError),
    isEmptyOutput: toolLike && EMPTY_OUTPUT.test(text.trim()),
    isActor: actor,
    isReview: ledger && text.includes('is_progress_being_made'),
    reviewStalled:
      actor &&
      (phrases.stalled ||
        (ledger && lower.includes('is_progress_being_made') && NO_PROGRESS.test(text))),
    reviewLoop: ledger && lower.includes('is_in_loop') && IN_LOOP.test(text),
    phrases,
  };
}
