/**
 * Calibration of the offline model's stated confidences: Platt mappings, σ(a · logit(p) + b),
 * fitted on held-out predictions of the training runs. For runs that look familiar, the agent
 * confidence is mapped as fitted on runs predicted by models that never saw their question; for
 * runs that look unfamiliar, both confidences come from each system's runs predicted by a model
 * trained on the other systems (raw scores are far too sure there): the agent confidence is the
 * held-out systems' mean hit rate. The mappings are stored in the model file.
 */
import { namesResponsible, responsibleAgents } from '../../../trace/agents.js';
import type { Trace } from '../../../trace/model.js';
import { subsetOf } from '../../../trace/subset.js';
import { attributeWithSignals, CANDIDATE_COUNT } from '../attribute/attributor.js';
import { IDENTITY, type ConfidenceCalibration, type Platt } from '../scores/calibration.js';
import { fitPlatt } from './platt.js';
import { assignFolds, foldsOf } from './folds.js';
import { isLabelled } from '../features/inputs.js';
import type { OfflineModel } from '../model/model-file.js';
import { MEASURED_UNSEEN, unseenStatement } from './unseen-statement.js';
import { fitStatement } from './statement-fit.js';

/** Held-out raw confidences and whether each prediction was right. */
export type Judged = {
  /** `single`: the run has one responsible agent (injected faults often have several). */
  agent: {
    confidence: number;
    correct: boolean;
    single: boolean;
    /** Whether the predicting model found the run familiar, and the run's system. */
    familiar: boolean;
    system: string;
    /** Whether the agent scorer had a clear favourite (decode/clear-favourite.ts). */
    clear: boolean;
    /** What the run showed (decode/statement-signals.ts). */
    signals: number[];
  }[];
  /** `rank`: where the labelled step is among the candidates (0 the named step; -1 not listed). */
  step: {
    confidence: number;
    correct: boolean;
    rank: number;
    system: string;
    clear: boolean;
    signals: number[];
  }[];
};

/** Adds the predictions of `model` on `tested` (held out from it) to `into`. */
export function judge(tested: readonly Trace[], model: OfflineModel, into: Judged): void {
  for (const trace of tested) {
    const { attribution: result, signals } = attributeWithSignals(trace, model);
    if (result.agentConfidence !== undefined)
      into.agent.push({
        confidence: result.agentConfidence,
        correct: namesResponsible(result.agent, trace.labels),
        single: responsibleAgents(trace).length === 1,
        familiar: result.familiar !== false,
        system: subsetOf(trace),
        clear: result.clearFavourite === true,
        signals: signals?.agent ?? [],
      });
    if (result.confidence !== undefined && trace.labels?.step !== undefined)
      into.step.push({
        confidence: result.confidence,
        correct: result.step === trace.labels.step,
        rank: (result.candidates ?? []).findIndex((entry) => entry.step === trace.labels?.step),
        system: subsetOf(trace),
        clear: result.clearFavourite === true,
        signals: signals?.step ?? [],
      });
  }
}

/** The judged runs with one responsible agent, when there are any; else all. */
export function singleCause(judged: Judged['agent']): Judged['agent'] {
  const single = judged.filter((item) => item.single);
  return single.length > 0 ? single : judged;
}

/**
 * How often the labelled step was the named one, the first other candidate and the second: rates
 * that never rise with rank, so the candidates still read in order. Undefined with fewer than ten
 * judged runs.
 */
function rateByRank(judged: Judged['step']): number[] | undefined {
  if (judged.length < 10) return undefined;
  const rates: number[] = [];
  for (let rank = 0; rank < CANDIDATE_COUNT; rank += 1) {
    const rate = judged.filter((item) => item.rank === rank).length / judged.length;
    rates.push(Number(Math.min(rate, rates.at(-1) ?? 1).toPrecision(6)));
  }
  return rates;
}

/** Fewest judged runs of a held-out system for its hit rate to count in the stated rate and spread. */
const MIN_SYSTEM_RUNS = 10;

const rounded = (value: number) => Number(value.toPrecision(6));

/**
 * The agent confidence of unfamiliar runs: how often the named agent was one of the responsible
 * ones on a system left out of training, averaged over the held-out systems (each system counts
 * once, whatever its number of runs), as a constant mapping (slope 0), and the lowest and highest
 * of those systems' own hit rates. Every held-out run counts, found unfamiliar or not (each is a
 * run of a system its model never saw), and so does every run with several responsible agents
 * (naming any of them is right, as evaluation counts it). Only systems with at least ten judged
 * runs count; with none, the pooled rate and no spread; undefined without judged runs.
 *
 * On unseen systems a higher score was not right more often, and neither a mapping of the score
 * nor one of what else a run shows (its number of agents, how concentrated the step
 * probabilities are) missed the held-out systems by less than this constant did
 * (docs/MODEL.md, scripts/unseen-calibration.ts).
 */
export function unseenSystemsAgent(
  judged: Judged['agent'],
): { agent: Platt; agentRange?: [number, number] } | undefined {
  if (judged.length === 0) return undefined;
  const rate = (items: Judged['agent']) =>
    items.filter((item) => item.correct).length / items.length;
  const rates = [...new Set(judged.map((item) => item.system))]
    .map((system) => judged.filter((item) => item.system === system))
    .filter((items) => items.length >= MIN_SYSTEM_RUNS)
    .map(rate);
  const mean =
    rates.length > 0 ? rates.reduce((sum, value) => sum + value, 0) / rates.length : rate(judged);
  const stated = Math.min(0.99, Math.max(0.01, mean));
  return {
    agent: { a: 0, b: rounded(Math.log(stated / (1 - stated))) },
    ...(rates.length >= 2
      ? { agentRange: [rounded(Math.min(...rates)), rounded(Math.max(...rates))] }
      : {}),
  };
}

/**
 * The calibration of a model trained on `traces` by `train` (the scorers alone, with the same
 * settings and weights as the model calibrated): held-out predictions from five question-grouped
 * folds (familiar) and from leaving each system out (unfamiliar; identity when there is one system).
 */
export function calibrationFor(
  traces: readonly Trace[],
  train: (runs: readonly Trace[]) => OfflineModel,
): ConfidenceCalibration {
  const usable = traces.filter(isLabelled);
  const familiar: Judged = { agent: [], step: [] };
  // Five question-grouped folds; step predictions are judged too, though only the agent mapping
  // of familiar runs is kept (below).
  const count = Math.min(5, usable.length);
  if (count >= 2)
    for (const fold of foldsOf(usable, assignFolds(usable, count, 0), count))
      judge(fold.held, train(fold.training), familiar);
  const unfamiliar: Judged = { agent: [], step: [] };
  // Systems in the order they first appear (the judged predictions are fitted in that order).
  const systems = [...new Set(usable.map(subsetOf))];
  if (systems.length >= 2)
    for (const fold of foldsOf(
      usable,
      usable.map((trace) => systems.indexOf(subsetOf(trace))),
      systems.length,
    ))
      judge(fold.held, train(fold.training), unfamiliar);
  const unseen = unseenSystemsAgent(unfamiliar.agent);
  const agentStatement = unseenStatement(unfamiliar.agent, MEASURED_UNSEEN.agent);
  const stepStatement = unseenStatement(unfamiliar.step, MEASURED_UNSEEN.step);
  const agentFit = fitStatement(unfamiliar.agent.filter((item) => item.signals.length > 0));
  const stepFit = fitStatement(unfamiliar.step.filter((item) => item.signals.length > 0));
  // The other candidates are stated at their rank's rate, never above the named step's least.
  const stepByRank = rateByRank(unfamiliar.step)?.map((rate, rank) =>
    rank > 0 && stepStatement ? Math.min(rate, stepStatement.byEvidence[0]) : rate,
  );
  return {
    // A familiar run's agent confidence states the chance that the named agent is *the*
    // responsible one: where some runs have a single responsible agent, only those are fitted on.
    // Naming any of several is right far more often, and runs of injected faults (often two or
    // three faulty agents of four or five) would make every statement too sure.
    // Familiar runs keep their raw step scores: fitted on the inner folds' smaller models, a step
    // mapping understated the final model's accuracy in nested cross-validation
    // (docs/EXPERIMENTS.md).
    familiar: { agent: fitPlatt(singleCause(familiar.agent)), step: { ...IDENTITY } },
    // On unseen systems, higher step scores were not right more often (a step mapping of slope
    // 0): each candidate is stated at how often its rank was right. Nor were higher agent scores:
    // the named agent is stated at the held-out systems' mean hit rate (all their runs, naming
    // any of several responsible agents counting as right), with their spread.
    // Both are then stated at the low end of what held-out systems support, moved by the one
    // signal that held on each of them (unseen-statement.ts), with the systems' range.
    unfamiliar: {
      ...(unseen ?? { agent: fitPlatt(singleCause(unfamiliar.agent)) }),
      step: fitPlatt(unfamiliar.step),
      ...(stepByRank ? { stepByRank } : {}),
      ...(agentStatement
        ? { agentRange: agentStatement.range, agentByEvidence: agentStatement.byEvidence }
        : {}),
      ...(stepStatement
        ? { stepRange: stepStatement.range, stepByEvidence: stepStatement.byEvidence }
        : {}),
      // What a run shows states it where the fit could be made (statement-fit.ts, issue 53).
      ...(agentFit ? { agentFit } : {}),
      ...(stepFit ? { stepFit } : {}),
    },
  };
}
