/**
 * The offline method, the pipeline's one reader of the model file: features (features/) → step and
 * agent probabilities (scores/) → the named step and agent under the run's decoding regime
 * (decode/) → a reason quoting the evidence (explain/), with the failure modes found (modes/) and
 * confidences stated through the calibration. No API key, no network, a few milliseconds a trace.
 */
import { fileURLToPath } from 'node:url';
import { onTeam } from '../../../trace/agents.js';
import type { Trace } from '../../../trace/model.js';
import {
  NO_USAGE,
  type Attribution,
  type AttributeOptions,
  type AttributionMethod,
  type Candidate,
} from '../../method.js';
import { decode } from '../decode/decode.js';
import { regimeOf } from '../decode/regimes.js';
import { hasClearFavourite } from '../decode/clear-favourite.js';
import { statementSignals, type StatementSignals } from '../decode/statement-signals.js';
import { explainDecision } from '../explain/reason.js';
import { readModelFile, type OfflineModel } from '../model/model-file.js';
import { modeFeatures } from '../modes/mode-features.js';
import {
  modeProbabilities,
  namedModes,
  predictAgentModes,
  roundedProbabilities,
  stepTiedMode,
  type ModeModel,
} from '../modes/mode-model.js';
import { applyPlatt, type ConfidenceCalibration, type Platt } from '../scores/calibration.js';
import { predict } from '../scores/predict.js';
import { statedFigure } from '../scores/statement.js';

export { predictOffline, type OfflinePrediction } from '../scores/predict.js';

/** Where the shipped model lives: `models/` at the package root, from src/ and dist/ alike. */
export const DEFAULT_MODEL_PATH = fileURLToPath(
  new URL('../../../../models/offline-model.json', import.meta.url),
);

const round = (value: number) => Number(value.toFixed(4));

/** How many candidate steps a result lists, the named one first. */
export const CANDIDATE_COUNT = 3;

/** The result for a run in which no agent or tool took a step. */
const noOneToBlame = (): Attribution => ({
  agent: null,
  step: null,
  reason:
    "No attribution: no agent or tool took a step in this run (it holds only the task or the framework's messages), so there is no one to blame.",
  evidence: [],
  method: 'offline',
  usage: { ...NO_USAGE },
});

/**
 * Only the agent a model names in a trace (no reason, modes or confidences): what adapting
 * compares models by, many times over the same runs. Null where no one is blamed.
 */
export function namedAgentWithModel(trace: Trace, model: OfflineModel): string | null {
  if (!trace.steps.some(onTeam)) return null;
  const prediction = predict(trace, model);
  const decision = decode(trace, prediction, regimeOf(trace, prediction.rows, model));
  return decision.agent;
}

/** Attributes one trace with a loaded model. Synchronous, no I/O. */
export function attributeWithModel(
  trace: Trace,
  model: OfflineModel,
  options: AttributeOptions = {},
): Attribution {
  return attributeWithSignals(trace, model, options).attribution;
}

/**
 * The attribution and what the run showed about how far it can be trusted (its statement signals,
 * decode/statement-signals.ts; absent where no one is blamed), which calibration fits on.
 */
export function attributeWithSignals(
  trace: Trace,
  model: OfflineModel,
  options: AttributeOptions = {},
): { attribution: Attribution; signals?: StatementSignals } {
  // A run with no step by an agent or a tool (only the task, or the framework's messages) has no
  // one to blame (blamableSteps is empty exactly then); naming the person who gave the task would
  // read as a verdict.
  if (!trace.steps.some(onTeam)) return { attribution: noOneToBlame() };
  const prediction = predict(trace, model, options);
  const regime = regimeOf(trace, prediction.rows, model);
  const decision = decode(trace, prediction, regime);
  const { familiar } = regime;
  // Raw scores become stated confidences through the model's calibration (train/calibrate.ts),
  // chosen by whether the run looks like the training runs.
  const mapping = model.calibration?.[familiar ? 'familiar' : 'unfamiliar'];
  const stated = (raw: number, platt: Platt | undefined) => (platt ? applyPlatt(raw, platt) : raw);
  const stepConfidence = (raw: number) => stated(raw, mapping?.step);
  const agentProbability = new Map(
    prediction.agents.map((entry) => [entry.agent, entry.probability]),
  );
  const { best, ranked, candidate, agent } = decision;
  const clear = hasClearFavourite(prediction.agents);
  const unseen = familiar ? undefined : model.calibration?.unfamiliar;
  const signals = statementSignals(prediction.agents, decision);
  // An unfamiliar run's named agent is stated at what held-out systems' runs showing the same
  // signals were right (train/statement-fit.ts), else at the low end of what they support moved
  // by a clear favourite (train/unseen-statement.ts); never below chance (one over the candidate
  // agents: a run with one agent names it at 1). Another agent is stated at the named agent's
  // figure times its probability's share of the named agent's.
  const namedAgent = Math.max(
    1 / signals.agents,
    unseen?.agentFit
      ? statedFigure(unseen.agentFit, signals.agent, signals.agents)
      : (unseen?.agentByEvidence?.[clear ? 1 : 0] ??
          stated(agentProbability.get(agent) ?? 0, mapping?.agent)),
  );
  const statedUnseen = unseen?.agentFit !== undefined || unseen?.agentByEvidence !== undefined;
  const agentConfidence = (name: string) => {
    if (name === agent) return namedAgent;
    const probability = agentProbability.get(name) ?? 0;
    if (!statedUnseen) return stated(probability, mapping?.agent);
    return namedAgent * Math.min(1, probability / (agentProbability.get(agent) || 1));
  };
  // In an unfamiliar run, the named step is stated likewise, and the other candidates at how often
  // their rank was right on held-out systems (never above the named step's least), where measured.
  // The named step is never stated below chance (one over the candidate steps).
  const byRank = unseen?.stepByRank;
  const namedStep = unseen?.stepFit
    ? statedFigure(unseen.stepFit, signals.step, signals.steps)
    : unseen?.stepByEvidence?.[clear ? 1 : 0];
  const candidateConfidence = (raw: number, rank: number) =>
    rank === 0
      ? Math.max(1 / signals.steps, namedStep ?? stepConfidence(raw))
      : byRank
        ? (byRank[rank] ?? 0)
        : stepConfidence(raw);
  const explanation = explainDecision(trace, prediction, decision, model.step, {
    step: stepConfidence,
    agent: agentConfidence,
  });
  // The named step first, then the most likely others that may be named (never the task).
  const others = ranked.filter((entry) => entry.step !== best.step && candidate(entry.step));
  const candidates: Candidate[] = [best, ...others]
    .slice(0, CANDIDATE_COUNT)
    .map((entry, rank) => ({
      step: entry.step,
      agent: decision.owner(entry.step),
      score: round(candidateConfidence(entry.score, rank)),
    }));
  const { rows } = prediction;
  const attribution: Attribution = {
    agent,
    step: best.step,
    reason: explanation.reason,
    evidence: explanation.evidence,
    method: 'offline',
    confidence: round(candidateConfidence(best.score, 0)),
    // Passed on by a call, the error is stated at the caller's probability: the agent scorer
    // weighed the caller's steps, and the origin only moves the blame along the call.
    agentConfidence: round(agentConfidence(agent)),
    familiar,
    ...(model.calibration ? confidenceBasisOf(model.calibration, familiar) : {}),
    clearFavourite: clear,
    agentCandidates: agentCandidatesOf(agent, prediction.agents, agentConfidence),
    candidates,
    ...(model.modes ? modesOf(model.modes, trace, rows, best.step) : {}),
    ...(model.agentModes ? { agentModes: predictAgentModes(model.agentModes, trace, rows) } : {}),
    usage: { ...NO_USAGE },
  };
  return { attribution, signals };
}

/** What the agent confidence rests on, and for an unfamiliar run the held-out systems' spread. */
function confidenceBasisOf(
  calibration: ConfidenceCalibration,
  familiar: boolean,
): Pick<Attribution, 'confidenceBasis' | 'heldOutRange'> {
  if (familiar) return { confidenceBasis: 'familiar' };
  const { agentRange: range, stepRange } = calibration.unfamiliar;
  return {
    confidenceBasis: 'unseen-systems',
    ...(range ? { heldOutRange: [round(range[0]), round(range[1])] } : {}),
    ...(stepRange ? { heldOutStepRange: [round(stepRange[0]), round(stepRange[1])] } : {}),
  };
}

/** The named agent and the two most likely others, with their stated confidences. */
function agentCandidatesOf(
  agent: string,
  agents: readonly { agent: string }[],
  confidence: (name: string) => number,
): NonNullable<Attribution['agentCandidates']> {
  return [agent, ...agents.map((entry) => entry.agent).filter((name) => name !== agent)]
    .slice(0, CANDIDATE_COUNT)
    .map((name) => ({ agent: name, confidence: round(confidence(name)) }));
}

/** The failure modes found in the run, and the one most tied to the named step. */
function modesOf(
  modes: ModeModel,
  trace: Trace,
  rows: readonly (readonly number[])[],
  step: number,
): Pick<Attribution, 'modes' | 'modeProbabilities' | 'stepMode'> {
  const probabilities = modeProbabilities(modes, modeFeatures(trace, rows));
  const found = namedModes(modes, probabilities);
  const tied = stepTiedMode(modes, found, rows[step]!);
  return {
    modes: found,
    modeProbabilities: roundedProbabilities(probabilities),
    ...(tied ? { stepMode: tied.code } : {}),
  };
}

let cached: { path: string; model: OfflineModel } | undefined;

/** Loads (once per path) the model file, the shipped one by default. */
export function loadOfflineModel(path: string = DEFAULT_MODEL_PATH): OfflineModel {
  if (cached?.path !== path) cached = { path, model: readModelFile(path) };
  return cached.model;
}

/** The offline method bound to a model file (the shipped model by default). */
export function createOfflineMethod(modelPath?: string): AttributionMethod {
  return {
    name: 'offline',
    description:
      'learned step and agent model; offline, no API key, milliseconds per trace (default)',
    async attribute(trace, options) {
      return attributeWithModel(trace, loadOfflineModel(modelPath), options);
    },
  };
}
