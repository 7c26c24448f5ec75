/**
 * The counts spectrum formulas read, from runs cut into units: per unit, its occurrences in each
 * failing and each passing run that holds it; for FAMAS's activation and share factors, the
 * failing runs holding it and its occurrences there, and per agent the failing runs it acts in and
 * its units there. FAMAS's runs are nearly all failing; counting the factors over failing runs
 * only keeps a unit that every run has, passing ones too, from outscoring one that only failing
 * runs have (docs/SPECTRUM.md). Runs of unknown outcome count for nothing.
 */
import type { Abstraction, Unit } from './units.js';

/** One unit's counts. */
export interface UnitCounts {
  /** Occurrences in each failing run that holds the unit. */
  failing: number[];
  /** Occurrences in each passing run that holds the unit. */
  passing: number[];
  /** Failing runs holding the unit. */
  runs: number;
  /** Occurrences over the failing runs. */
  total: number;
}

/** The tallies of one abstraction. */
export interface UnitTally {
  units: Unit[];
  counts: UnitCounts[];
  /** Per agent: failing runs in which it has a unit, and its units over them. */
  agents: Map<string, { runs: number; total: number }>;
  totalFailing: number;
  totalPassing: number;
}

/** Counts every unit's occurrences per run. */
export function tallyUnits(abstraction: Abstraction): UnitTally {
  const counts: UnitCounts[] = abstraction.units.map(() => ({
    failing: [],
    passing: [],
    runs: 0,
    total: 0,
  }));
  const agents = new Map<string, { runs: number; total: number }>();
  let totalFailing = 0;
  let totalPassing = 0;
  for (const run of abstraction.runs) {
    const outcome = run.trace.outcome;
    if (outcome === 'failure') totalFailing += 1;
    if (outcome === 'success') totalPassing += 1;
    const inRun = new Map<number, number>();
    for (const unit of run.steps)
      if (unit !== undefined) inRun.set(unit, (inRun.get(unit) ?? 0) + 1);
    const agentsInRun = new Set<string>();
    for (const [unit, occurrences] of inRun) {
      const entry = counts[unit]!;
      if (outcome === 'success') entry.passing.push(occurrences);
      if (outcome !== 'failure') continue;
      entry.failing.push(occurrences);
      entry.runs += 1;
      entry.total += occurrences;
      const agent = abstraction.units[unit]!.agent;
      const agentEntry = agents.get(agent) ?? { runs: 0, total: 0 };
      agentEntry.total += occurrences;
      if (!agentsInRun.has(agent)) agentEntry.runs += 1;
      agentsInRun.add(agent);
      agents.set(agent, agentEntry);
    }
  }
  return { units: abstraction.units, counts, agents, totalFailing, totalPassing };
}
