/**
 * Where failing runs first part from the passing ones: for each failing run, its earliest team
 * step whose unit no passing run holds and at least two failing runs share (a unit of one run is
 * noise); units ranked by how many failing runs start going wrong at them. A unit downstream of an
 * error (a wrong total after a wrong price) is as suspicious as the error by its counts, but it is
 * never a run's first departure, so this view names each kind of error once. Without passing runs
 * there is nothing to part from, and the list is empty.
 */
import type { UnitTally } from './tally.js';
import type { Origin } from './types.js';
import type { Abstraction } from './units.js';

export type { Origin } from './types.js';

/** A step an agent of the team took (not the task, nor a tool's output). */
const actedByTeam = (role: string) => role === 'agent';

/** The units at which failing runs first depart from the passing ones, most runs first. */
export function departures(abstraction: Abstraction, tally: UnitTally): Origin[] {
  if (tally.totalPassing === 0) return [];
  const suspect = (unit: number) =>
    tally.counts[unit]!.passing.length === 0 && tally.counts[unit]!.failing.length >= 2;
  const firsts = new Map<number, number[]>();
  for (const run of abstraction.runs) {
    if (run.trace.outcome !== 'failure') continue;
    const index = run.steps.findIndex(
      (unit, position) =>
        unit !== undefined && actedByTeam(run.trace.steps[position]!.role) && suspect(unit),
    );
    if (index === -1) continue;
    const unit = run.steps[index]!;
    firsts.set(unit, [...(firsts.get(unit) ?? []), index]);
  }
  return [...firsts]
    .map(([unit, steps]) => ({
      unit: abstraction.units[unit]!.key,
      agent: abstraction.units[unit]!.agent,
      runs: steps.length,
      failingRuns: tally.counts[unit]!.failing.length,
      step: mostCommon(steps),
    }))
    .sort((left, right) => right.runs - left.runs || right.failingRuns - left.failingRuns);
}

/** The most common of some numbers, the smallest on a tie. */
function mostCommon(values: readonly number[]): number {
  const counts = new Map<number, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].sort((left, right) => right[1] - left[1] || left[0] - right[0])[0]![0];
}
