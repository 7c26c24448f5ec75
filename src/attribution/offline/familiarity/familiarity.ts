/**
 * Whether a trace looks like the runs the model was trained on. Two views, either of which can
 * make it unfamiliar: most of its agents' names share no word with the training runs' (a new team),
 * or its profile (the mean of its step features: roles, name families, what agents say, errors,
 * repetition, length) sits far from every training trace's in a few features (a new structure),
 * unless its team is one a training system has run with (an unusual run of a known team). The
 * model file keeps what these need; an unfamiliar trace's attribution says so.
 */
import { onTeam } from '../../../trace/agents.js';
import type { Trace } from '../../../trace/model.js';

/** Mean and spread of training traces' profiles, and the distance beyond which a run is unlike them. */
export interface ProfileModel {
  mean: number[];
  scale: number[];
  threshold: number;
  /**
   * The teams of these runs that ran at least two of them: each team's agent names, lower-cased and
   * sorted. A run of one of these teams is like these runs whatever its profile.
   */
  rosters?: string[][];
}

/** What the model file keeps to judge familiarity. */
export interface FamiliarityModel extends ProfileModel {
  /** Words used by the agent names of at least two training traces. */
  names: string[];
  /**
   * One profile per training system, when there are several: a run is familiar when it is like
   * one of them (pooled, a small system's runs sit far from a mean the large ones set). Absent:
   * the pooled profile above decides.
   */
  systems?: ProfileModel[];
}

/** Below this share of agents with a known name word, the team is new. */
const NAME_OVERLAP = 0.5;
/** Share of the training traces' profile distances below the threshold. */
const COVERAGE = 0.98;
/** A z-score is capped here, so a single odd feature weighs at most this much. */
const CAP = 6;
/** How many of the most unusual features a distance is read from. */
const TOP = 3;
/** Smallest spread of a profile feature: one constant in training still allows small changes. */
const MIN_SCALE = 0.05;

/** The words of agent names: `WebSurfer`, `web_surfer` and `Web Surfer 2` all give web, surfer. */
function nameWords(name: string): string[] {
  return name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter((word) => word.length > 1);
}

/** The names of a trace's team (not the person who gave the task, not the framework). */
function agentNames(trace: Trace): string[] {
  return trace.agents.filter(onTeam).map((agent) => agent.name);
}

/** A trace's team: its agents' names, lower-cased and sorted. */
function rosterOf(trace: Trace): string[] {
  return agentNames(trace)
    .map((name) => name.toLowerCase())
    .sort();
}

/** Fewest agents a team needs for its roster to identify a system (one `assistant` does not). */
const MIN_ROSTER = 2;
/** Fewest training runs a team must have run for its roster to be kept. */
const MIN_ROSTER_RUNS = 2;

/** The teams (rosterOf) that ran at least MIN_ROSTER_RUNS of the traces, in a stable order. */
function rostersOf(traces: readonly Trace[]): string[][] {
  const counts = new Map<string, { roster: string[]; runs: number }>();
  for (const trace of traces) {
    const roster = rosterOf(trace);
    if (roster.length < MIN_ROSTER) continue;
    const key = JSON.stringify(roster);
    const entry = counts.get(key);
    if (entry) entry.runs += 1;
    else counts.set(key, { roster, runs: 1 });
  }
  return [...counts.entries()]
    .filter(([, entry]) => entry.runs >= MIN_ROSTER_RUNS)
    .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0))
    .map(([, entry]) => entry.roster);
}

const sameRoster = (left: readonly string[], right: readonly string[]) =>
  left.length === right.length && left.every((name, index) => name === right[index]);

/**
 * Share of a trace's agents whose name shares a word with the training runs' agent names
 * (`Hawaii_RealEstate_Expert` is known through `expert`; `Node0` is new).
 */
function nameOverlap(names: readonly string[][], known: ReadonlySet<string>): number {
  if (names.length === 0) return 1;
  return names.filter((words) => words.some((word) => known.has(word))).length / names.length;
}

/** The profile of a trace: the mean of its step feature rows. */
function profileOf(rows: readonly number[][]): number[] {
  const width = rows[0]?.length ?? 0;
  const sums = new Float64Array(width);
  for (const row of rows)
    for (let column = 0; column < width; column += 1) sums[column]! += row[column]!;
  const count = Math.max(1, rows.length);
  return Array.from(sums, (sum) => sum / count);
}

/**
 * How far a profile is from the training profiles: the root-mean-square of its largest capped
 * z-scores (a run unlike the training data differs strongly in a few ways, not a little in all).
 */
function distanceOf(
  profile: readonly number[],
  model: Pick<ProfileModel, 'mean' | 'scale'>,
): number {
  // The TOP largest squares, largest first, kept in one pass (this runs once per training system).
  const top = new Array<number>(Math.min(TOP, profile.length)).fill(-1);
  profile.forEach((value, column) => {
    const z = (value - (model.mean[column] ?? 0)) / (model.scale[column] ?? 1);
    const square = Math.min(CAP, Math.abs(z)) ** 2;
    let at = top.length;
    while (at > 0 && square > top[at - 1]!) at -= 1;
    if (at === top.length) return;
    top.splice(at, 0, square);
    top.pop();
  });
  return Math.sqrt(top.reduce((sum, value) => sum + value, 0) / Math.max(1, top.length));
}

const round = (value: number) => Number(value.toPrecision(8));

/**
 * The profile model of some traces' profiles: their spread, the distance most stay within, and the
 * teams that ran them.
 */
function fitProfiles(profiles: readonly number[][], traces: readonly Trace[]): ProfileModel {
  const width = profiles[0]?.length ?? 0;
  const count = Math.max(1, profiles.length);
  const mean = new Array<number>(width).fill(0);
  for (const profile of profiles)
    profile.forEach((value, column) => (mean[column]! += value / count));
  const scale = mean.map((centre, column) => {
    const variance =
      profiles.reduce((sum, profile) => sum + (profile[column]! - centre) ** 2, 0) / count;
    return Math.max(Math.sqrt(variance), MIN_SCALE);
  });
  const distances = profiles
    .map((profile) => distanceOf(profile, { mean, scale }))
    .sort((left, right) => left - right);
  const threshold =
    distances[Math.min(distances.length - 1, Math.floor(COVERAGE * distances.length))] ?? 0;
  const rosters = rostersOf(traces);
  return {
    mean: mean.map(round),
    scale: scale.map(round),
    threshold: round(threshold),
    ...(rosters.length > 0 ? { rosters } : {}),
  };
}

/**
 * The familiarity model of the training traces and their step feature rows; `systemOf` names each
 * trace's system, for a profile per system when there are several.
 */
export function fitFamiliarity(
  traces: readonly Trace[],
  rows: readonly (readonly number[][])[],
  systemOf: (trace: Trace) => string,
): FamiliarityModel {
  const counts = new Map<string, number>();
  for (const trace of traces)
    for (const word of new Set(agentNames(trace).flatMap(nameWords)))
      counts.set(word, (counts.get(word) ?? 0) + 1);
  const profiles = rows.map(profileOf);
  const bySystem = new Map<string, { profiles: number[][]; traces: Trace[] }>();
  traces.forEach((trace, index) => {
    const system = systemOf(trace);
    const members = bySystem.get(system);
    if (members) {
      members.profiles.push(profiles[index]!);
      members.traces.push(trace);
    } else bySystem.set(system, { profiles: [profiles[index]!], traces: [trace] });
  });
  return {
    names: [...counts]
      .filter(([, seen]) => seen >= 2)
      .map(([word]) => word)
      .sort(),
    // The pooled profile decides only where there is one system; so do its rosters.
    ...fitProfiles(profiles, bySystem.size >= 2 ? [] : traces),
    ...(bySystem.size >= 2
      ? {
          systems: [...bySystem.values()].map((members) =>
            fitProfiles(members.profiles, members.traces),
          ),
        }
      : {}),
  };
}

/** What familiarity reads of a trace, read once however many models judge it. */
export interface TraceLook {
  /** The words of each agent's name. */
  names: string[][];
  /** Its team (rosterOf). */
  roster: string[];
  /** The mean of its step feature rows. */
  profile: number[];
}

/** The look of a trace with its step feature rows. */
export function lookOf(trace: Trace, rows: readonly number[][]): TraceLook {
  return {
    names: agentNames(trace).map(nameWords),
    roster: rosterOf(trace),
    profile: profileOf(rows),
  };
}

/** Whether a trace (its look, lookOf) is like the model's training runs. */
export function isFamiliar(
  look: TraceLook,
  model: FamiliarityModel,
  known: ReadonlySet<string> = new Set(model.names),
): boolean {
  if (nameOverlap(look.names, known) < NAME_OVERLAP) return false;
  return (model.systems ?? [model]).some(
    (system) =>
      (system.rosters ?? []).some((roster) => sameRoster(roster, look.roster)) ||
      distanceOf(look.profile, system) <= system.threshold,
  );
}
