/**
 * The `spectrum` method: names the agent and step of a failed run from the other runs of its task
 * (`AttributeOptions.runs`): the step of the failed run that carries the most suspicious unit
 * (rank.ts). The run attributed counts as failing whatever its file says, since it is attributed.
 */
import { UserError } from '../../errors.js';
import type { Trace } from '../../trace/model.js';
import { NO_USAGE, type Attribution, type AttributionMethod } from '../method.js';
import { analyseSpectrum, countsText, type SpectrumOptions } from './rank.js';
import { summariseSpectrum } from './summary.js';
import { abstractRuns, cutFrom, type Abstraction, type UnitOptions } from './units.js';

/** The registry name. */
export const SPECTRUM = 'spectrum';

/** The message for a call without other runs of the task. */
export const NEEDS_RUNS =
  'the spectrum method compares the failed run with other runs of the same task: give them with --runs FOLDER, or --task ID for the runs of a task in the store (faultline rerun records them)';

/**
 * Whether two traces are one run: the same object, or the same id from the same file, or the same
 * id where one has no file (a run stored by the proxy and read from its file: `attribute RUN --task`).
 */
function sameRun(left: Trace, right: Trace): boolean {
  if (left === right) return true;
  if (left.id !== right.id) return false;
  return left.source === right.source || left.source === undefined || right.source === undefined;
}

/**
 * The run list the analysis reads: the runs in their order, the run itself among them marked as
 * failing (after them when it is not one of them). When no other run says how it ended, they are
 * counted as failing, as FAMAS counts the repeats of a failed task that its checker did not pass
 * (`assumed` says so). Each run keeps its steps (the same array), so that units cut once from
 * the runs serve every failed run of the task (`unitsOnce`).
 */
export function runsWith(
  trace: Trace,
  runs: readonly Trace[],
): { runs: Trace[]; failed: Trace; assumed: boolean } {
  const failed: Trace = trace.outcome === 'failure' ? trace : { ...trace, outcome: 'failure' };
  const itself = runs.map((run) => sameRun(run, trace));
  const others = runs.filter((_, index) => !itself[index]);
  const assumed = others.length > 0 && others.every((run) => run.outcome === 'unknown');
  // The run itself where it first stands (any copy of it after that left out), else at the end.
  const at = itself.indexOf(true);
  const list = runs.flatMap((run, index): Trace[] => {
    if (index === at) return [failed];
    if (itself[index]) return [];
    return [assumed ? { ...run, outcome: 'failure' } : run];
  });
  return { runs: at === -1 ? [...list, failed] : list, failed, assumed };
}

/**
 * Units cut once per run list given (`AttributeOptions.runs`), for the failed runs of a task
 * attributed in turn (`attribute FOLDER` gives each the same list): the list `runsWith` made
 * differs from the given one only in outcomes, so its units are the same. A list whose steps are
 * not those cut (the run added, not being among them; or read apart from them, as `attribute
 * FILES --runs DIR` reads it) is cut anew.
 */
export function unitsOnce(
  settings: UnitOptions = {},
): (given: readonly Trace[], runs: readonly Trace[]) => Abstraction {
  const cut = new WeakMap<readonly Trace[], Abstraction>();
  return (given, runs) => {
    const cached = cut.get(given);
    if (cached && cutFrom(cached, runs)) return cached;
    const abstraction = abstractRuns(runs, settings);
    if (!cached && cutFrom(abstraction, given)) cut.set(given, abstraction);
    return abstraction;
  };
}

/** Creates the `spectrum` method with the given analysis settings. */
export function createSpectrumMethod(
  settings: Omit<SpectrumOptions, 'failed' | 'abstraction'> = {},
): AttributionMethod {
  const unitsOf = unitsOnce(settings);
  return {
    name: SPECTRUM,
    description:
      'spectrum analysis (FAMAS): the units of the run that recur in failing runs of its task and not in passing ones',
    async attribute(trace, options = {}) {
      if (!options.runs || options.runs.length === 0) throw new UserError(NEEDS_RUNS);
      const { runs, failed, assumed } = runsWith(trace, options.runs);
      const abstraction = unitsOf(options.runs, runs);
      const result = analyseSpectrum(runs, { ...settings, failed, abstraction });
      if (assumed)
        result.notes.unshift(
          'no other run of the task says how it ended: all were counted as failing',
        );
      const spectrum = summariseSpectrum(result);
      const top = result.failed.steps[0];
      if (!top || !result.verdict)
        return {
          agent: null,
          step: null,
          reason: `No step to blame: ${result.notes.join('; ')}.`,
          method: SPECTRUM,
          spectrum,
          usage: { ...NO_USAGE },
        } satisfies Attribution;
      const caveat = result.conclusive ? '' : ` Caveat: ${result.notes.join('; ')}.`;
      return {
        agent: top.agent,
        step: top.step,
        reason: `Step ${top.step} (${top.agent}) carries the unit "${top.unit}", ${countsText(top, result.runs)} (${result.formula} ${top.score.toFixed(3)}).${caveat}`,
        method: SPECTRUM,
        // A step whose units no failing run sets apart (score 0) is no candidate.
        candidates: result.failed.steps
          .slice(1, 6)
          .filter((step) => step.score > 0)
          .map((step) => ({ step: step.step, agent: step.agent, score: step.score })),
        candidateScale: 'score',
        spectrum,
        ...(result.conclusive ? {} : { warnings: result.notes }),
        usage: { ...NO_USAGE },
      } satisfies Attribution;
    },
  };
}

/** The `spectrum` method with FAMAS's defaults. */
export const spectrumMethod = createSpectrumMethod();
