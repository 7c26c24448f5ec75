/**
 * Spectrum analysis over the runs of one task (FAMAS, docs/SPECTRUM.md): cuts the runs into
 * units (units.ts), scores each unit from its counts in failing and passing runs (formulas.ts),
 * ranks the units and the agents, and for one failed run names its steps that carry the top units,
 * each with its counts ("in 9 of 10 failing runs and 1 of 8 passing"). It says when the runs do
 * not vary enough to conclude. A pure function of the runs: no model, no file, no clock.
 */
import { UserError } from '../../errors.js';
import { blamableSteps } from '../../trace/agents.js';
import type { Trace } from '../../trace/model.js';
import {
  activationFactor,
  DEFAULT_FORMULA,
  DEFAULT_LAMBDA,
  formulaNamed,
  repeatFactor,
  repeatWeight,
  shareFactor,
} from './formulas.js';
import { abstractRuns, boundTo, type Abstraction, type UnitOptions } from './units.js';
import { departures } from './origins.js';
import type { RankedUnit, SpectrumResult, SuspiciousStep } from './types.js';
import { tallyUnits, type UnitTally } from './tally.js';

export type { RankedUnit, SpectrumResult, SuspiciousStep } from './types.js';

/** Settings of a spectrum analysis. */
export interface SpectrumOptions extends UnitOptions {
  /** The failed run to name steps in (one of the runs); by default the last failing one. */
  failed?: Trace;
  /** Formula name (default `kulczynski2`, FAMAS's). */
  formula?: string;
  /** Repeat discount λ (default 0.9). */
  lambda?: number;
  /** Apply FAMAS's repeat, activation and share factors (default true). */
  factors?: boolean;
  /**
   * Units already cut from these runs' steps, in this order (runs that differ only in outcome:
   * method.ts's `unitsOnce`); bound to the runs given, whose outcomes count.
   */
  abstraction?: Abstraction;
}

/** "in 9 of 10 failing runs and 1 of 8 passing", the counts a step is shown with. */
export function countsText(
  unit: { failingRuns: number; passingRuns: number },
  runs: SpectrumResult['runs'],
): string {
  return `in ${unit.failingRuns} of ${runs.failing} failing runs and ${unit.passingRuns} of ${runs.passing} passing`;
}

/** The failed run to study: the one given, else the last failing run read. */
function studiedRun(traces: readonly Trace[], failed: Trace | undefined): Trace {
  if (failed) {
    if (!traces.includes(failed))
      throw new UserError('the failed run must be one of the runs read');
    return failed;
  }
  const last = [...traces].reverse().find((trace) => trace.outcome === 'failure');
  if (!last)
    throw new UserError(
      `none of the ${traces.length} runs failed; spectrum analysis needs at least one failed run (mark outcomes with faultline outcome, or --failed-runs)`,
    );
  return last;
}

/** The steps of a run that may be blamed: the team's, not tools' outputs (all of them if none). */
function candidateSteps(trace: Trace): number[] {
  const blamable = blamableSteps(trace).filter((index) => trace.steps[index]!.role !== 'tool');
  return blamable.length > 0 ? blamable : blamableSteps(trace);
}

/** Scores every unit from the tallies. */
function scoreUnits(tally: UnitTally, options: SpectrumOptions): number[] {
  const formula = formulaNamed(options.formula ?? DEFAULT_FORMULA);
  const lambda = options.lambda ?? DEFAULT_LAMBDA;
  const factors = options.factors ?? true;
  return tally.units.map((unit, index) => {
    const counts = tally.counts[index]!;
    const weigh = (runs: number[]) =>
      runs.reduce((sum, occurrences) => sum + repeatWeight(occurrences, factors ? lambda : 1), 0);
    const base = formula({
      failing: weigh(counts.failing),
      passing: weigh(counts.passing),
      totalFailing: tally.totalFailing,
      totalPassing: tally.totalPassing,
    });
    // With passing runs, a unit no more frequent among failing runs than among passing ones does
    // not set failures apart, whatever the formula says (Ochiai and Kulczynski2 rate a unit of
    // every run highly when most runs fail).
    if (
      tally.totalPassing > 0 &&
      counts.passing.length / tally.totalPassing >= counts.failing.length / tally.totalFailing
    )
      return 0;
    if (!factors) return base;
    const agent = tally.agents.get(unit.agent)!;
    return (
      base * activationFactor(counts.runs, agent.runs) * shareFactor(counts.total, agent.total)
    );
  });
}

/** Runs spectrum analysis over the runs of one task. */
export function analyseSpectrum(
  traces: readonly Trace[],
  options: SpectrumOptions = {},
): SpectrumResult {
  const failedRun = studiedRun(traces, options.failed);
  const abstraction = options.abstraction
    ? boundTo(options.abstraction, traces)
    : abstractRuns(traces, options);
  const tally = tallyUnits(abstraction);
  const scores = scoreUnits(tally, options);
  const lambda = options.lambda ?? DEFAULT_LAMBDA;
  const runs = {
    failing: tally.totalFailing,
    passing: tally.totalPassing,
    unknown: traces.length - tally.totalFailing - tally.totalPassing,
  };
  const position = firstPositions(abstraction);
  // Ties go to the unit that comes earlier in the runs: an error's consequences (a tool's output
  // of a wrong input, a total passed on) follow it and hold the same counts.
  const units: RankedUnit[] = abstraction.units
    .flatMap((unit, index) => (blamable(unit) ? [{ unit, index }] : []))
    .sort(
      (left, right) =>
        scores[right.index]! - scores[left.index]! ||
        position[left.index]! - position[right.index]!,
    )
    .map(({ unit, index }) => ({
      ...unit,
      failingRuns: tally.counts[index]!.failing.length,
      passingRuns: tally.counts[index]!.passing.length,
      score: scores[index]!,
    }));
  const studied = abstraction.runs[traces.indexOf(failedRun)]!;
  const occurrences = new Map<number, number>();
  for (const unit of studied.steps)
    if (unit !== undefined) occurrences.set(unit, (occurrences.get(unit) ?? 0) + 1);
  const factors = options.factors ?? true;
  const steps: SuspiciousStep[] = candidateSteps(failedRun)
    .filter((index) => studied.steps[index] !== undefined)
    .map((index) => {
      const unit = studied.steps[index]!;
      const counts = tally.counts[unit]!;
      return {
        step: index,
        agent: failedRun.steps[index]!.agent,
        unit: abstraction.units[unit]!.key,
        score: scores[unit]! * (factors ? repeatFactor(occurrences.get(unit)!, lambda) : 1),
        failingRuns: counts.failing.length,
        passingRuns: counts.passing.length,
      };
    })
    .sort((left, right) => right.score - left.score || left.step - right.step);
  const agents: { agent: string; score: number }[] = [];
  for (const step of steps)
    if (!agents.some((entry) => entry.agent === step.agent))
      agents.push({ agent: step.agent, score: step.score });
  const top = steps[0];
  const notes = notesOn(runs, agents, steps);
  return {
    formula: (options.formula ?? DEFAULT_FORMULA).toLowerCase(),
    runs,
    units,
    departures: departures(abstraction, tally),
    agents,
    failed: {
      id: failedRun.id,
      ...(failedRun.source ? { source: failedRun.source } : {}),
      steps,
    },
    verdict: top ? { agent: top.agent, step: top.step } : null,
    conclusive: notes.conclusive,
    notes: notes.lines,
  };
}

/** Units an agent of the team took: not the task, the framework's messages or a tool's output. */
const blamable = (unit: { role: string }) => unit.role === 'agent';

/** Each unit's mean step of first occurrence over the runs holding it. */
function firstPositions(abstraction: Abstraction): number[] {
  const sums = abstraction.units.map(() => ({ total: 0, runs: 0 }));
  for (const run of abstraction.runs) {
    const seen = new Set<number>();
    run.steps.forEach((unit, index) => {
      if (unit === undefined || seen.has(unit)) return;
      seen.add(unit);
      sums[unit]!.total += index;
      sums[unit]!.runs += 1;
    });
  }
  return sums.map(({ total, runs }) => (runs === 0 ? 0 : total / runs));
}

/** Why the answer may not hold: too few runs, no passing run, a tie between agents. */
function notesOn(
  runs: SpectrumResult['runs'],
  agents: { agent: string; score: number }[],
  steps: SuspiciousStep[],
): { conclusive: boolean; lines: string[] } {
  const lines: string[] = [];
  let conclusive = true;
  if (runs.failing + runs.passing < 2) {
    conclusive = false;
    lines.push('only one run with an outcome: nothing to compare it with; rerun the task');
  }
  if (runs.unknown > 0)
    lines.push(`${runs.unknown} run(s) without an outcome were left out of the counts`);
  if (runs.passing === 0 && runs.failing > 1)
    lines.push(
      'no run passed: units are ranked by how they recur across the failing runs, which is weaker evidence than a comparison with passing runs',
    );
  if (steps.length === 0) {
    conclusive = false;
    lines.push('the failed run has no step by an agent to blame');
  } else if (
    agents.length > 1 &&
    agents[1]!.score > 0 &&
    agents[1]!.score >= agents[0]!.score * (1 - 1e-9)
  ) {
    // With passing runs, a later step with the same counts as the named one is most often its
    // consequence (a total computed from a wrong price): the earlier step is named, and said so.
    const later = steps.find((step) => step.agent === agents[1]!.agent)!;
    if (runs.passing > 0 && later.step > steps[0]!.step && steps[0]!.score > 0)
      lines.push(
        `${agents[1]!.agent}'s step ${later.step} has the same counts; it comes later, so it is taken for a consequence`,
      );
    else {
      conclusive = false;
      lines.push(
        `the runs do not vary enough to conclude: ${agents[0]!.agent} and ${agents[1]!.agent} score the same`,
      );
    }
  } else if (
    steps.every((step) => step.failingRuns === runs.failing && step.passingRuns === runs.passing)
  ) {
    conclusive = false;
    lines.push('the runs do not vary enough to conclude: every step recurs in every run');
  }
  return { conclusive, lines };
}
