/**
 * Where failing runs first part from the passing ones: for each failing run, its earliest team
 * step whose unit no passing run holds and at least two failing runs share (a unit of one run is
 * noise); units ranked by how many failing runs start going wrong at them. A unit downstream of an
 * error (a wrong total after a wrong price) is as suspicious as the error by its counts, but it is
 * never a run's first departure, so this view names each kind of error once. Without passing runs
 * there is nothing to part from, and the list is empty.
 */
import { onTeam } from '../../trace/agents.js';
import type { UnitTally } from './tally.js';
import type { Abstraction } from './units.js';

/** A unit at which failing runs first depart, and in how many. */
export interface Origin {
  unit: string;
  agent: string;
  /** Failing runs whose first departure it is. */
  runs: number;
  /** Failing runs holding it at all. */
  failingRuns: number;
}

/** The units at which failing runs first depart from the passing ones, most runs first. */
export function departures(abstraction: Abstraction, tally: UnitTally): Origin[] {
  if (tally.totalPassing === 0) return [];
  const suspect = (unit: number) =>
    tally.counts[unit]!.passing.length === 0 && tally.counts[unit]!.failing.length >= 2;
  const firsts = new Map<number, number>();
  for (const run of abstraction.runs) {
    if (run.trace.outcome !== 'failure') continue;
    const first = run.steps.find(
      (unit, index) => unit !== undefined && onTeam(run.trace.steps[index]!) && suspect(unit),
    );
    if (first !== undefined) firsts.set(first, (firsts.get(first) ?? 0) + 1);
  }
  return [...firsts]
    .map(([unit, runs]) => ({
      unit: abstraction.units[unit]!.key,
      agent: abstraction.units[unit]!.agent,
      runs,
      failingRuns: tally.counts[unit]!.failing.length,
    }))
    .sort((left, right) => right.runs - left.runs || right.failingRuns - left.failingRuns);
}
