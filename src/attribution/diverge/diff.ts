/**
 * The trajectory diff: a failed run against a passing run of the same task. Both runs are read
 * for substance (substance.ts), aligned step by step (align.ts), each aligned pair compared
 * (compare.ts), and the first pair that differs in substance, or a step one run has and the
 * other lacks, is the divergence.
 */
import { UserError } from '../../errors.js';
import type { Trace } from '../../trace/model.js';
import { squash } from '../../trace/step-text.js';
import { align, signatureOf, type AlignStep } from './align.js';
import { compareSteps, quoteLine } from './compare.js';
import { substanceOf, type StepSubstance } from './substance.js';
import type { AlignedPair, Divergence, PairStatus, TraceDiff } from './types.js';

/** Options of `diffTraces`. */
export interface DiffOptions {
  /** How the runs are named in messages (default: their source file, else their id). */
  failedName?: string;
  passedName?: string;
  /** Pairs scored in full before the alignment keeps to a band (align.ts). */
  maxCells?: number;
}

/** Below this share of the shorter task's words found in the other, the tasks differ. */
const SAME_TASK = 0.5;
/** Characters of a task shown in the refusal. */
const TASK_SHOWN = 60;

const taskWords = (text: string) => new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);

/** What a run was asked: its task, else its first step. */
function taskOf(trace: Trace): string {
  return trace.question ?? trace.steps[0]?.content ?? '';
}

/**
 * Refuses runs of different tasks: the share of the shorter task's words that the other has
 * (so a template wrapped around the same task still matches) below SAME_TASK.
 */
export function checkSameTask(failed: Trace, passed: Trace, names: [string, string]): void {
  // Both tasks when both runs have one; else what each was first asked.
  const [left, right] =
    failed.question !== undefined && passed.question !== undefined
      ? [failed.question, passed.question]
      : [taskOf(failed), taskOf(passed)];
  if (squash(left) === squash(right)) return;
  const a = taskWords(left);
  const b = taskWords(right);
  if (a.size === 0 || b.size === 0) return;
  let shared = 0;
  for (const word of a) if (b.has(word)) shared += 1;
  if (shared / Math.min(a.size, b.size) >= SAME_TASK) return;
  const shown = (text: string) => {
    const line = text.replace(/\s+/g, ' ').trim();
    return JSON.stringify(line.length > TASK_SHOWN ? `${line.slice(0, TASK_SHOWN - 1)}…` : line);
  };
  throw new UserError(
    `${names[0]} and ${names[1]} are runs of different tasks (${shown(left)} and ${shown(right)}); compare a failed run with a passing run of the same task`,
  );
}

/** Small integers for agents and roles, shared by both runs. */
function alignSteps(substances: readonly StepSubstance[], ids: Map<string, number>): AlignStep[] {
  const idOf = (key: string) => {
    let id = ids.get(key);
    if (id === undefined) {
      id = ids.size;
      ids.set(key, id);
    }
    return id;
  };
  return substances.map((step) => ({
    agent: idOf(`agent:${step.agent}`),
    role: idOf(`role:${step.role}`),
    text: `${step.text}\u0000${step.calls.join('\u0000')}`,
    signature: signatureOf(step.words),
  }));
}

/** True when a step says nothing at all (no words, no call): its absence is no divergence. */
const empty = (step: StepSubstance) => step.words.length === 0 && step.calls.length === 0;

/** A failed step the passing run has no counterpart of (saying so when it repeats an earlier one). */
function insertedDivergence(
  failed: Trace,
  failedSteps: readonly StepSubstance[],
  left: number,
): Divergence {
  const step = failedSteps[left]!;
  const repeated = failedSteps
    .slice(0, left)
    .findLast((earlier) => earlier.text === step.text && earlier.agent === step.agent);
  return {
    failedStep: failed.steps[left]!.index,
    passedStep: null,
    kind: 'inserted',
    agent: failed.steps[left]!.agent,
    aspects: [],
    detail: repeated
      ? `a step the passing run does not have: it repeats step ${repeated.index}`
      : 'a step the passing run does not have',
    failed: quoteLine(step.lines[0] ?? ''),
    passed: '',
  };
}

/** One run's side of a pair: the trace, its steps' substance, and the step's position. */
interface Side {
  trace: Trace;
  steps: readonly StepSubstance[];
  at: number;
}

/**
 * A passing step the failed run has no counterpart of, placed at the failed step that stands
 * where it would be (`failed.at`).
 */
function missingDivergence(failed: Side, passed: Side): Divergence {
  const step = passed.steps[passed.at]!;
  const passedStep = passed.trace.steps[passed.at]!;
  return {
    failedStep: failed.trace.steps[failed.at]!.index,
    passedStep: passedStep.index,
    kind: 'missing',
    agent: failed.trace.steps[failed.at]!.agent,
    aspects: step.calls.length > 0 ? ['tool calls'] : [],
    detail: `the passing run's step ${passedStep.index} (${passedStep.agent}) has no counterpart here${step.calls.length > 0 ? `: its tool call ${step.calls[0]} is not made` : ''}`,
    failed: quoteLine(failed.steps[failed.at]!.lines[0] ?? ''),
    passed: quoteLine(step.lines[0] ?? ''),
  };
}

/** Diffs a failed run against a passing run of the same task. */
export function diffTraces(failed: Trace, passed: Trace, options: DiffOptions = {}): TraceDiff {
  const failedName = options.failedName ?? failed.source ?? failed.id;
  const passedName = options.passedName ?? passed.source ?? passed.id;
  checkSameTask(failed, passed, [failedName, passedName]);
  const failedSteps = failed.steps.map(substanceOf);
  const passedSteps = passed.steps.map(substanceOf);
  const ids = new Map<string, number>();
  const alignment = align(
    alignSteps(failedSteps, ids),
    alignSteps(passedSteps, ids),
    options.maxCells,
  );

  const pairs: AlignedPair[] = [];
  const counts: Record<PairStatus, number> = {
    same: 0,
    reworded: 0,
    changed: 0,
    inserted: 0,
    missing: 0,
  };
  let divergence: Divergence | null = null;
  let divergencePair: number | null = null;
  // The failed step that stands where a missing step would be: the next failed step to come.
  const nextFailed = (from: number) => {
    for (let at = from; at < alignment.pairs.length; at += 1) {
      const index = alignment.pairs[at]![0];
      if (index !== null) return index;
    }
    return failed.steps.length - 1;
  };

  alignment.pairs.forEach(([left, right], at) => {
    if (left !== null && right !== null) {
      const failedStep = failedSteps[left]!;
      const passedStep = passedSteps[right]!;
      const difference = compareSteps(failedStep, passedStep);
      const status: PairStatus =
        difference.aspects.length > 0
          ? 'changed'
          : failedStep.text === passedStep.text
            ? 'same'
            : 'reworded';
      counts[status] += 1;
      pairs.push({
        failed: failed.steps[left]!.index,
        passed: passed.steps[right]!.index,
        status,
        ...(status === 'changed' ? { aspects: difference.aspects } : {}),
      });
      if (status === 'changed' && !divergence) {
        divergencePair = pairs.length - 1;
        divergence = {
          failedStep: failed.steps[left]!.index,
          passedStep: passed.steps[right]!.index,
          kind: 'changed',
          agent: failed.steps[left]!.agent,
          aspects: difference.aspects,
          detail: difference.detail,
          failed: difference.failed,
          passed: difference.passed,
        };
      }
      return;
    }
    if (left !== null) {
      counts.inserted += 1;
      pairs.push({ failed: failed.steps[left]!.index, passed: null, status: 'inserted' });
      if (divergence || empty(failedSteps[left]!)) return;
      divergence = insertedDivergence(failed, failedSteps, left);
      divergencePair = pairs.length - 1;
      return;
    }
    counts.missing += 1;
    pairs.push({ failed: null, passed: passed.steps[right!]!.index, status: 'missing' });
    if (divergence || empty(passedSteps[right!]!) || failed.steps.length === 0) return;
    divergence = missingDivergence(
      { trace: failed, steps: failedSteps, at: nextFailed(at) },
      { trace: passed, steps: passedSteps, at: right! },
    );
    divergencePair = pairs.length - 1;
  });

  return {
    failed: { id: failed.id, name: failedName, steps: failed.steps.length },
    passed: { id: passed.id, name: passedName, steps: passed.steps.length },
    divergence,
    divergencePair,
    pairs,
    counts,
    banded: alignment.banded,
  };
}
