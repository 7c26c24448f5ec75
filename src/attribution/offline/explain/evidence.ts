/**
 * Turns a scored step into a reason a person can check: the strongest signals that raised its
 * score, in words, with the line of the step (or of what follows it: the failing output, the
 * next agent turn) that shows them (quotes.ts finds the lines).
 */
import type { Step, Trace } from '../../../trace/model.js';
import { stepText } from '../../../trace/step-text.js';
import type { Evidence } from '../../method.js';
import { FEATURE_NAMES, type FeatureName } from '../features/feature-names.js';
import {
  anyLine,
  matching,
  notRuntimeRecord,
  Quoter,
  saying,
  shorten,
  statesFigure,
  statesFinalFigure,
  statesNewFigure,
  type LineTest,
} from './quotes.js';
import type { RunFigures } from '../features/run-facts.js';
import type { LinearScorer } from '../scores/scoring.js';
import { ERROR_OUTPUT } from '../features/text-signals.js';

/** A code fence that opens a line: a code block, not a mention of one (a roster's "```python"). */
const CODE_FENCE = /(?:^|\n)[ \t]*```/;

/** A step's content and its feature values, by name. */
interface StepView {
  content: string;
  value: (feature: FeatureName) => number;
  /** Whether a line that may be quoted states a figure, and one new to the run (newFigures). */
  showsFigure: () => boolean;
  showsNewFigure: () => boolean;
}

/**
 * Where a signal about what follows a step is read, as its feature reads it: the output right
 * after the step (or the one after that, past a step that is not an agent's turn), or the next
 * agent turn. The steps to quote from, in order.
 */
type QuoteFrom = 'next-output' | 'next-turn';
function followingSteps(trace: Trace, index: number, from: QuoteFrom): Step[] {
  const { steps } = trace;
  if (from === 'next-turn') {
    const turn = steps.slice(index + 1).find((step) => step.role === 'agent');
    return turn ? [turn] : [];
  }
  const next = steps[index + 1];
  if (!next) return [];
  const after = steps[index + 2];
  return next.role !== 'agent' && after ? [next, after] : [next];
}

/**
 * How each signal reads in a reason, which line pattern to quote for it (in the step, or with
 * `quoteFrom` in what follows it as its feature reads it; several patterns are tried in order,
 * the first that some line shows wins; with `recorded`, where no line matches, the error the
 * source recorded for that step), and (`holds`) what the step must show for the words to be true
 * where the feature is read more loosely.
 */
const PHRASES: Partial<
  Record<
    FeatureName,
    {
      text: string;
      quote?: LineTest | readonly LineTest[];
      quoteFrom?: QuoteFrom;
      recorded?: boolean;
      holds?: (step: StepView) => boolean;
    }
  >
> = {
  next_error: {
    text: 'the tool output right after it fails',
    quote: matching(ERROR_OUTPUT),
    quoteFrom: 'next-output',
    recorded: true,
  },
  next_empty: { text: 'the tool output right after it is empty' },
  next_correction: {
    text: 'the next agent turn corrects it',
    quote: saying('correction'),
    quoteFrom: 'next-turn',
  },
  hedging: {
    text: 'it assumes or makes up data instead of obtaining it',
    quote: saying('hedging'),
  },
  inability: { text: 'it gives up on part of the task', quote: saying('inability') },
  conclusion: { text: 'it asserts a conclusion', quote: saying('conclusion') },
  agreement: { text: 'it approves earlier work', quote: saying('agreement') },
  // A browsing agent's step is its own tool's action and result ("I clicked ... Here is ...").
  // Figures are quoted where the step brings them, not where it restates the task's or others'.
  claim_without_tool: {
    text: 'it states figures without running a tool',
    quote: [statesNewFigure, statesFigure],
    holds: ({ value, showsFigure }) =>
      value('web_action') === 0 && value('has_tool_calls') === 0 && showsFigure(),
  },
  // Counted in a runtime's warning (a model name's date) or a path, they are not said to be new.
  introduces_final_numbers: {
    text: 'it introduces figures that end up in the final answer',
    quote: [statesFinalFigure, statesNewFigure],
    holds: ({ showsNewFigure }) => showsNewFigure(),
  },
  novel_numbers_log: {
    text: 'it introduces new figures',
    quote: statesNewFigure,
    holds: ({ showsNewFigure }) => showsNewFigure(),
  },
  first_actor: { text: 'it is the first agent action, which sets the plan the run follows' },
  agent_first_turn: { text: "it is this agent's first turn" },
  first_after_first_error: { text: 'it is the first response to the first failure' },
  // The feature counts any fence; a Magentic-One plan's roster mentions "```python code blocks".
  has_code: {
    text: 'it writes the code the run depends on',
    holds: ({ content }) => CODE_FENCE.test(content),
  },
  has_tool_calls: { text: 'it calls a tool' },
  web_action: { text: 'it is a navigation action', quote: saying('webAction') },
  similar_to_own_previous: { text: 'it repeats its own previous turn' },
  similar_to_any_previous: { text: 'it repeats earlier content' },
  speaker_directive: { text: 'it is an instruction to another agent' },
  speaker_thought: { text: "it is the orchestrator's own reasoning" },
  planning: { text: 'it lays out a plan', quote: saying('planning') },
  own_error_output: { text: 'it reports an error', quote: matching(ERROR_OUTPUT) },
  recorded_error: { text: 'the log records an error here', recorded: true },
  errors_after_share: { text: 'failures follow it' },
  next_review_no_progress: { text: 'the next progress review finds no progress' },
  next_review_loop: { text: 'the next progress review finds the run in a loop' },
  cause_of_first_stall: { text: 'it is the last action before the run first stalls' },
};

/**
 * The error the source recorded for a step (a span's status, a failing tool result), shortened
 * like a quoted line: quoted where no line of the step names the failure the way a tool's own
 * output does (an OpenAI Agents span's "Error running tool: ...", Langfuse's "HTTP 429 ...").
 */
function recordedError(step: Step): string | undefined {
  const error = step.error ?? step.toolResults?.find((result) => result.isError)?.content;
  // Its first line that says something, found without splitting all of it (a tool's whole output).
  for (let start = 0; error !== undefined && start < error.length;) {
    const end = error.indexOf('\n', start);
    const line = error.slice(start, end === -1 ? error.length : end).trim();
    if (line.length > 0) return shorten(line);
    start = end === -1 ? error.length : end + 1;
  }
  return undefined;
}

/** Why a step is blamed: the reason, and the lines it quotes. */
export interface StepExplanation {
  reason: string;
  evidence: Evidence[];
}

/**
 * A reason for blaming `stepIndex`, from its features' contributions to the score; `lead`, when
 * given, is the signal that chose the step (first-failing-step.ts) and is named first. `figures`
 * are the run's as the features read them, where the caller has them (else computed when needed).
 */
export function explainStep(
  trace: Trace,
  stepIndex: number,
  row: readonly number[],
  scorer: LinearScorer,
  lead?: FeatureName,
  figures?: RunFigures,
): StepExplanation {
  const step = trace.steps[stepIndex]!;
  const content = stepText(step);
  const quoter = new Quoter(trace, figures);
  const view: StepView = {
    content,
    value: (feature) => row[FEATURE_NAMES.indexOf(feature)] ?? 0,
    showsFigure: () => quoter.shows(step, statesFigure),
    showsNewFigure: () => quoter.shows(step, statesNewFigure),
  };
  // The three strongest signals whose words hold for the step (checked strongest first, and only
  // until three are found: a check may read the step's lines).
  const contributions = FEATURE_NAMES.map((name, column) => ({
    feature: name,
    value: row[column]!,
    contribution:
      scorer.weights[column]! * ((row[column]! - scorer.mean[column]!) / scorer.scale[column]!),
  }))
    .filter(
      (entry) =>
        PHRASES[entry.feature] !== undefined &&
        entry.value !== 0 &&
        (entry.feature === lead || entry.contribution > 0),
    )
    .sort(
      (left, right) =>
        Number(right.feature === lead) - Number(left.feature === lead) ||
        right.contribution - left.contribution,
    );
  const named: typeof contributions = [];
  for (const entry of contributions) {
    if (named.length === 3) break;
    if (PHRASES[entry.feature]!.holds?.(view) ?? true) named.push(entry);
  }

  const parts: string[] = [];
  const evidence: Evidence[] = [];
  for (const entry of named) {
    const phrase = PHRASES[entry.feature]!;
    parts.push(phrase.text);
    const sources = phrase.quoteFrom ? followingSteps(trace, stepIndex, phrase.quoteFrom) : [step];
    for (const source of sources) {
      const quote =
        (phrase.quote ? quoter.quote(source, phrase.quote) : undefined) ??
        (phrase.recorded ? recordedError(source) : undefined);
      if (!quote) continue;
      if (!evidence.some((existing) => existing.quote.includes(quote)))
        evidence.push({ step: source.index, quote });
      break;
    }
  }
  const because =
    parts.length > 0
      ? parts.join('; ')
      : 'its position and role make it the most likely decisive step';
  const fallbackQuote =
    evidence.length === 0 ? quoter.quote(step, [notRuntimeRecord, anyLine]) : undefined;
  if (fallbackQuote) evidence.push({ step: step.index, quote: fallbackQuote });
  return {
    reason: `${step.agent} at step ${stepIndex}: ${because}.${quoting(trace, stepIndex, evidence)}`,
    evidence,
  };
}

/**
 * The evidence as a reason ends with it: ` Evidence: "..." / step 5 (tool): "..."` (a line of
 * another step than the named one says which); empty without evidence.
 */
export function quoting(trace: Trace, named: number, evidence: readonly Evidence[]): string {
  const quoted = evidence.map(({ step, quote }) =>
    step === named ? `"${quote}"` : `step ${step} (${trace.steps[step]!.agent}): "${quote}"`,
  );
  return quoted.length > 0 ? ` Evidence: ${quoted.join(' / ')}` : '';
}
