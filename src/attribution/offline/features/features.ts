/**
 * Per-step features of a canonical trace: a run-level pass (run-facts.ts) and then, for each step,
 * every feature family (feature-families.ts), laid out in the column order of feature-names.ts.
 * Every feature is a number that is defined for any importer's output, so the model degrades
 * gracefully where a format carries less. The model never sees ids, file names or the question
 * text itself, only derived quantities.
 */
import { postsTask, relaysEarlier } from '../../../trace/agents.js';
import type { Trace } from '../../../trace/model.js';
import { fillStepFeatures, type FeatureValues } from './feature-families.js';
import { FEATURE_NAMES } from './feature-names.js';
import { figuresOf, runFactsOf, type RunFacts, type RunFigures } from './run-facts.js';
import { hasCode } from './text-signals.js';
import { unsharedShares, type UnsharedShares } from './unshared.js';

/** The feature matrix of a trace: one row per step, columns in FEATURE_NAMES order. */
export function computeFeatures(trace: Trace): number[][] {
  return rowsOf(trace, runFactsOf(trace));
}

/** What the scorers read of a trace: step rows, the candidate mask, and what only each agent writes. */
export interface StepInputs {
  rows: number[][];
  mask: boolean[];
  unshared: Map<string, UnsharedShares>;
}

/**
 * The feature rows, the candidate mask and the agents' unshared shares, from one run-level pass,
 * with the run's figures as that pass read them (a reason's quotes read them).
 */
export function featuresAndMask(trace: Trace): StepInputs & { figures: RunFigures } {
  const run = runFactsOf(trace);
  return {
    rows: rowsOf(trace, run),
    mask: candidateMask(trace, run),
    unshared: unsharedShares(trace, run),
    figures: figuresOf(run),
  };
}

function rowsOf(trace: Trace, run: RunFacts): number[][] {
  const values = emptyValues();
  return trace.steps.map((step, index) => {
    const fact = run.facts[index]!;
    fillStepFeatures(
      {
        index,
        step,
        steps: trace.steps,
        fact,
        state: run.states[index]!,
        run,
        code: hasCode(fact.text),
      },
      values,
    );
    // The values record holds exactly the features, in FEATURE_NAMES order (emptyValues).
    return Object.values(values);
  });
}

const ZERO_VALUES = Object.fromEntries(FEATURE_NAMES.map((name) => [name, 0])) as FeatureValues;

/** A values record with every feature at 0, so every family writes into one fixed shape. */
function emptyValues(): FeatureValues {
  return { ...ZERO_VALUES };
}

/** Fewest new words that make a later turn of the person a contribution of its own. */
const OWN_WORDS = 5;
/**
 * Steps that may be blamed. Never the person who gave the task (nor an agent whose opening step
 * only posts it, alone or inside a framework's template: trace/agents.ts postsTask), never a
 * framework's own message (a `system` step: a task assignment, a system prompt, a handler's
 * exception report, AG2's `chat_manager` introducing the team), and never a turn of the person's
 * that only relays what others said (a framework's template, such as a debate moderator's "these
 * are the other agents' opinions"). A later turn that brings content of its own
 * (OWN_WORDS new words, or a new figure) is a participant's (a simulated user or customer) and may
 * be blamed like any agent's: roles follow the run's structure, not the word `user`. Falls back to
 * all steps when none qualify.
 */
function candidateMask(trace: Trace, run: RunFacts = runFactsOf(trace)): boolean[] {
  let spoken = false;
  const mask = trace.steps.map((step, index) => {
    if (step.role === 'system') return false;
    if (step.role !== 'human') {
      // Whoever opens the run with the task alone, or with a template around it, gave it,
      // whatever its role (an agent that starts a group chat by posting the question).
      if (!spoken && (givesTask(run, index) || postsTask(step, trace.question))) return false;
      spoken = true;
      return true;
    }
    // The person's turns before any agent spoke are the task; later ones count if they add content
    // of their own rather than relay what others said: words of their own, or a figure that
    // nothing earlier gives (a customer's zip code or order id, which may be the wrong one).
    // (Rare: checked only for those turns.)
    return (
      spoken &&
      (run.states[index]!.novelNumbers > 0 || newWords(run, index) >= OWN_WORDS) &&
      !relaysEarlier(trace.steps, index)
    );
  });
  return mask.some(Boolean) ? mask : trace.steps.map(() => true);
}

/** Share of the task's words a step must hold to restate it. */
const TASK_COVERAGE = 0.8;

/**
 * True when an opening step only gives the task: it holds the task (most of its words) and brings
 * fewer than OWN_WORDS words and no number of its own.
 */
function givesTask(run: RunFacts, index: number): boolean {
  const { words, numbers } = run.facts[index]!;
  if (run.questionWords.size < OWN_WORDS) return false;
  for (const number of numbers) if (!run.questionNumbers.has(number)) return false;
  let held = 0;
  for (const word of run.questionWords) if (words.has(word)) held += 1;
  return held >= TASK_COVERAGE * run.questionWords.size && newWords(run, index) < OWN_WORDS;
}

/** How far back a turn's words are looked for (bounds the cost on very long runs). */
const NOVELTY_WINDOW = 200;

/** Words of a step that neither the task nor a recent earlier step used. */
function newWords(run: RunFacts, index: number): number {
  const earlier = run.facts.slice(Math.max(0, index - NOVELTY_WINDOW), index);
  let count = 0;
  for (const word of run.facts[index]!.words)
    if (!run.questionWords.has(word) && !earlier.some((fact) => fact.words.has(word))) count += 1;
  return count;
}
