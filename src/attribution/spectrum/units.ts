/**
 * Spectrum analysis, stage one: every step of every run becomes an (agent, action, state) unit,
 * offline, and units are matched across runs although their wording differs (FAMAS's abstraction,
 * docs/SPECTRUM.md). The action is the tool the step called or what its message does (plan,
 * delegate, code, run, error, answer, verify, report…); the state is the step's content with
 * numbers, ids, paths and links masked, reduced to its key terms (those that set it apart from the
 * task's other steps, by tf-idf over every run read). Steps of one agent and action whose key terms
 * overlap enough (Jaccard) are one unit, clustered greedily in run order.
 */
import type { Step, StepRole, Trace } from '../../trace/model.js';
import { actionOf } from './actions.js';
import { callShape, isNumberTerm, termsOf, type StepText } from './terms.js';

/** One unit: who acts, how, and on what (its key terms, as first seen). */
export interface Unit {
  /** Stable within one analysis: `agent · action · terms`. */
  key: string;
  agent: string;
  /** The role of its first occurrence's step (a task's own message is `human`). */
  role: StepRole;
  action: string;
  /** Key terms of the unit's first occurrence. */
  terms: string[];
}

/** A run cut into units: `steps[i]` is the unit index of step i (undefined for unread steps). */
export interface RunUnits {
  trace: Trace;
  /** The unit (index into `units`) each step carries, by step position. */
  steps: (number | undefined)[];
}

/** Every run read, cut into units that are shared across runs. */
export interface Abstraction {
  units: Unit[];
  runs: RunUnits[];
}

/** Settings of the abstraction. */
export interface UnitOptions {
  /** Key terms kept per step (default 8). */
  terms?: number;
  /** Least key-term Jaccard overlap for two steps to be one unit (default 0.5). */
  similarity?: number;
}

const DEFAULT_TERMS = 8;
const DEFAULT_SIMILARITY = 0.5;

/** Jaccard overlap of a set of distinct terms and a list of distinct terms. */
export function jaccard(left: ReadonlySet<string>, right: readonly string[]): number {
  if (left.size === 0 && right.length === 0) return 1;
  let shared = 0;
  for (const term of right) if (left.has(term)) shared += 1;
  return shared / (left.size + right.length - shared);
}

/** The steps that become units: every step a participant took (the task and prompts are not). */
const readStep = (step: Step) =>
  step.role !== 'system' && step.content.length + (step.toolCalls?.length ?? 0) > 0;

/** What a step's state is read from: its content and its tool calls, each call's shape kept. */
function stepText(step: Step): StepText {
  const calls = step.toolCalls ?? [];
  return {
    text: [step.content, ...calls.map((call) => `${call.name} ${call.arguments}`)].join('\n'),
    forced: calls.map((call) => callShape(call.name, call.arguments)),
  };
}

/**
 * Cuts every run into units shared across runs. Deterministic: the same runs in the same order
 * give the same units.
 */
export function abstractRuns(traces: readonly Trace[], options: UnitOptions = {}): Abstraction {
  const keep = options.terms ?? DEFAULT_TERMS;
  const similarity = options.similarity ?? DEFAULT_SIMILARITY;
  const stepTerms = termsOf(
    traces.map((trace) => trace.steps.map((step) => (readStep(step) ? stepText(step) : undefined))),
    keep,
  );
  const units: Unit[] = [];
  // The clusters of one agent and action: their leaders' terms, to compare a new step with.
  const buckets = new Map<string, number[]>();
  const leaders: { terms: Set<string>; numbers: string }[] = [];
  const runs = traces.map((trace, runIndex): RunUnits => {
    const steps = trace.steps.map((step, stepIndex) => {
      const terms = stepTerms[runIndex]![stepIndex];
      if (terms === undefined) return undefined;
      const action = actionOf(step);
      const bucketKey = `${step.agent}\u0000${action}`;
      const bucket = buckets.get(bucketKey) ?? [];
      let best: number | undefined;
      let bestOverlap = similarity;
      const numbers = terms.filter(isNumberTerm).join(' ');
      for (const candidate of bucket) {
        // Steps that state different recurring figures are different states (15.00 is not 12.50).
        const leader = leaders[candidate]!;
        if (leader.numbers !== numbers) continue;
        const overlap = jaccard(leader.terms, terms);
        if (overlap >= bestOverlap) {
          best = candidate;
          bestOverlap = overlap;
        }
      }
      if (best !== undefined) return best;
      leaders.push({ terms: new Set(terms), numbers });
      units.push({
        key: `${step.agent} · ${action} · ${terms.slice(0, 4).join(' ') || '-'}`,
        agent: step.agent,
        role: step.role,
        action,
        terms,
      });
      bucket.push(units.length - 1);
      buckets.set(bucketKey, bucket);
      return units.length - 1;
    });
    return { trace, steps };
  });
  // Two units may share a key (the same first terms, different rest): number the later ones.
  const seen = new Map<string, number>();
  for (const unit of units) {
    const count = seen.get(unit.key) ?? 0;
    seen.set(unit.key, count + 1);
    if (count > 0) unit.key = `${unit.key} #${count + 1}`;
  }
  return { units, runs };
}

/**
 * An abstraction's units bound to runs that differ from those it cut only in their outcomes (each
 * with the same steps, in the same order), so that their outcomes are the ones counted.
 */
export function boundTo(abstraction: Abstraction, traces: readonly Trace[]): Abstraction {
  if (!cutFrom(abstraction, traces))
    throw new Error('spectrum: units reused for runs other than those they were cut from');
  return {
    units: abstraction.units,
    runs: abstraction.runs.map((run, index) => ({ trace: traces[index]!, steps: run.steps })),
  };
}

/** Whether an abstraction was cut from these runs' steps (the same arrays), in this order. */
export function cutFrom(abstraction: Abstraction, traces: readonly Trace[]): boolean {
  return (
    traces.length === abstraction.runs.length &&
    traces.every((trace, index) => trace.steps === abstraction.runs[index]!.trace.steps)
  );
}
