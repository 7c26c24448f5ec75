/**
 * The `combined` method: one verdict from all the evidence a failed run has when other runs of its
 * task are known (`AttributeOptions.runs`). Each step of the failed run gets a weighted sum of
 * - the offline model's probability that it is the decisive step (its named step and candidates);
 * - its spectrum score over the runs, scaled so that the run's most suspicious step has 1
 *   (rank.ts), weighed less when the spectrum says the runs do not vary enough;
 * - 1 for the step where the run first parts from a passing run, when some run passed (diverge).
 * The verdict names the step of highest sum and says which evidence it rests on: the sources that
 * put that step first. A step `verify --label` proved (the run's label carries its proof) outranks
 * them all: the verdict names it, stated as proved (`Attribution.verified`), and says where the
 * other sources agree.
 */
import type { Trace } from '../../trace/model.js';
import { diffTraces } from '../diverge/diff.js';
import { NO_USAGE, type Attribution, type AttributionMethod, type ReplayProof } from '../method.js';
import { createOfflineMethod } from '../offline/attribute/attributor.js';
import { analyseSpectrum, countsText } from './rank.js';
import { NEEDS_RUNS, runsWith, unitsOnce } from './method.js';
import { summariseSpectrum } from './summary.js';
import { UserError } from '../../errors.js';

/** The registry name. */
export const COMBINED = 'combined';

/** Weights of the evidence (docs/SPECTRUM.md). */
const WEIGHTS = { offline: 0.35, spectrum: 0.5, weakSpectrum: 0.2, divergence: 0.15 };

/** Per-step scores of the offline verdict: its step's confidence and its candidates'. */
function offlineScores(result: Attribution): Map<number, number> {
  const scores = new Map<number, number>();
  if (result.step !== null) scores.set(result.step, result.confidence ?? 1);
  for (const candidate of result.candidates ?? [])
    if (!scores.has(candidate.step)) scores.set(candidate.step, candidate.score);
  return scores;
}

/** The step where the run parts from the first passing sibling, if one passed and they part. */
function divergenceStep(trace: Trace, runs: readonly Trace[]): number | undefined {
  const passing = runs.find((run) => run.outcome === 'success');
  if (!passing) return undefined;
  try {
    return diffTraces(trace, passing).divergence?.failedStep;
  } catch (error) {
    // Runs the comparison refuses (another task, say) give no divergence evidence.
    if (error instanceof UserError) return undefined;
    throw error;
  }
}

/** The step `verify --label` proved on this run, when its label carries the proof. */
function provedStep(trace: Trace): ReplayProof | undefined {
  const label = trace.labels;
  if (!label?.proof || label.step === undefined || label.agent === undefined) return undefined;
  if (!trace.steps.some((step) => step.index === label.step)) return undefined;
  return { step: label.step, agent: label.agent, ...label.proof };
}

/** Creates the `combined` method over a model file (the shipped one by default). */
export function createCombinedMethod(modelPath?: string): AttributionMethod {
  const offline = createOfflineMethod(modelPath);
  const unitsOf = unitsOnce();
  return {
    name: COMBINED,
    description:
      'one verdict from the offline model, the spectrum of the other runs of the task and, where one passed, where the run parts from it',
    async attribute(trace, options = {}) {
      if (!options.runs || options.runs.length === 0) throw new UserError(NEEDS_RUNS);
      const { runs, failed } = runsWith(trace, options.runs);
      const model = await offline.attribute(trace, options);
      const spectrum = analyseSpectrum(runs, { failed, abstraction: unitsOf(options.runs, runs) });
      const top = spectrum.failed.steps[0]?.score ?? 0;
      const spectrumWeight = spectrum.conclusive ? WEIGHTS.spectrum : WEIGHTS.weakSpectrum;
      const parted = divergenceStep(
        trace,
        runs.filter((run) => run !== failed),
      );
      const modelScores = offlineScores(model);
      const totals = spectrum.failed.steps.map((step) => {
        const parts = {
          offline: WEIGHTS.offline * (modelScores.get(step.step) ?? 0),
          spectrum: top > 0 ? (spectrumWeight * step.score) / top : 0,
          divergence: parted === step.step ? WEIGHTS.divergence : 0,
        };
        return { ...step, parts, total: parts.offline + parts.spectrum + parts.divergence };
      });
      totals.sort((left, right) => right.total - left.total || left.step - right.step);
      const proof = provedStep(trace);
      const best = proof
        ? (totals.find((step) => step.step === proof.step) ?? {
            step: proof.step,
            agent: proof.agent,
            unit: '',
            score: 0,
            failingRuns: 0,
            passingRuns: 0,
            parts: { offline: 0, spectrum: 0, divergence: 0 },
            total: 0,
          })
        : totals[0];
      if (!best) return { ...model, method: COMBINED, spectrum: summariseSpectrum(spectrum) };
      const basis = [
        ...(proof
          ? [
              `verify proved it: with it fixed, the run passed its check (replayed run ${proof.run}, ${proof.replays} replays)`,
            ]
          : []),
        ...(model.step === best.step ? ['the offline model names it'] : []),
        ...(spectrum.failed.steps[0]?.step === best.step
          ? [`the spectrum puts it first (${countsText(best, spectrum.runs)})`]
          : best.parts.spectrum > 0
            ? [`the spectrum rates it (${countsText(best, spectrum.runs)})`]
            : []),
        ...(parted === best.step ? ['the run first parts from a passing run there'] : []),
      ];
      const caveats = spectrum.conclusive ? [] : spectrum.notes;
      return {
        agent: best.agent,
        step: best.step,
        reason: `Step ${best.step} (${best.agent}): ${basis.join('; ') || 'no source puts it first; it leads on the sum'}.${caveats.length > 0 ? ` Caveat: ${caveats.join('; ')}.` : ''} Offline: ${model.agent ?? 'none'} at step ${model.step ?? '-'}; spectrum: ${spectrum.verdict ? `${spectrum.verdict.agent} at step ${spectrum.verdict.step}` : 'none'}${parted === undefined ? '' : `; divergence at step ${parted}`}.`,
        ...(model.evidence ? { evidence: model.evidence } : {}),
        method: COMBINED,
        ...(proof ? { verified: proof } : {}),
        candidates: totals
          // A step no source rates is no candidate.
          .filter((step) => step !== best && step.total > 0)
          .slice(0, 5)
          .map((step) => ({ step: step.step, agent: step.agent, score: step.total })),
        candidateScale: 'score',
        spectrum: summariseSpectrum(spectrum),
        ...(caveats.length > 0 ? { warnings: caveats } : {}),
        usage: { ...NO_USAGE },
      } satisfies Attribution;
    },
  };
}
