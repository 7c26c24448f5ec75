/**
 * The offline method: features → step scorer → agent scorer → decisive step, responsible agent and
 * a reason quoting the evidence. No API key, no network, a few milliseconds per trace.
 */
import { fileURLToPath } from 'node:url';
import { onTeam } from '../../../trace/agents.js';
import type { Trace } from '../../../trace/model.js';
import {
  NO_USAGE,
  wholePercent,
  type Attribution,
  type AttributeOptions,
  type AttributionMethod,
  type Candidate,
} from '../../method.js';
import { computeAgentFeatures } from '../features/agent-features.js';
import { scoreRows, softmax } from '../scores/scoring.js';
import { explainCallOrigin, originOfCall } from '../decode/call-origin.js';
import { explainStep } from '../explain/evidence.js';
import {
  FIRST_FAILING_TEXT,
  firstFailingStep,
  firstRejectedAgent,
} from '../decode/first-failing-step.js';
import { isFamiliar, lookOf, type FamiliarityModel } from '../familiarity/familiarity.js';
import { applyPlatt, type Platt } from '../scores/calibration.js';
import { readModelFile, type OfflineModel } from '../model/model-file.js';
import { attributionInputs, stepProbabilitiesOf } from '../features/inputs.js';
import type { RunFigures } from '../features/run-facts.js';
import { modeFeatures } from '../modes/mode-features.js';
import {
  predictAgentModes,
  predictModes,
  stepTiedMode,
  type ModeModel,
} from '../modes/mode-model.js';

/** Where the shipped model lives: `models/` at the package root, from src/ and dist/ alike. */
export const DEFAULT_MODEL_PATH = fileURLToPath(
  new URL('../../../../models/offline-model.json', import.meta.url),
);

/** Everything the model concludes about a trace, before it is phrased as an Attribution. */
export interface OfflinePrediction {
  /** Feature rows of the steps. */
  rows: number[][];
  /** Probability that each step is the decisive one. */
  stepProbabilities: number[];
  /** Probability that each agent is responsible, most likely first. */
  agents: { agent: string; probability: number }[];
}

/** Scores a trace's steps and agents. */
export function predictOffline(
  trace: Trace,
  model: OfflineModel,
  options: AttributeOptions = {},
): OfflinePrediction {
  const { rows, stepProbabilities, agents } = predict(trace, model, options);
  return { rows, stepProbabilities, agents };
}

/** The prediction, with the run's figures as its rows read them (the reason's quotes read them). */
function predict(
  trace: Trace,
  model: OfflineModel,
  options: AttributeOptions,
): OfflinePrediction & { figures: RunFigures } {
  const { rows, mask, unshared, figures } = attributionInputs(
    trace,
    options.useGroundTruth !== false,
  );
  const stepProbabilities = stepProbabilitiesOf(model.step, rows, mask);
  const agentInputs = computeAgentFeatures(trace, rows, stepProbabilities, mask, unshared);
  const agentProbabilities = softmax(
    scoreRows(model.agent, agentInputs.rows),
    agentInputs.rows.map(() => true),
  );
  const agents = agentInputs.agents
    .map((agent, index) => ({ agent, probability: agentProbabilities[index]! }))
    .sort((left, right) => right.probability - left.probability);
  return { rows, stepProbabilities, agents, figures };
}

const round = (value: number) => Number(value.toFixed(4));

/** How many candidate steps a result lists, the named one first. */
export const CANDIDATE_COUNT = 3;

/** Attributes one trace with a loaded model. Synchronous, no I/O. */
export function attributeWithModel(
  trace: Trace,
  model: OfflineModel,
  options: AttributeOptions = {},
): Attribution {
  // A run with no step by an agent or a tool (only the task, or the framework's messages) has no
  // one to blame (blamableSteps is empty exactly then); naming the person who gave the task would
  // read as a verdict.
  if (!trace.steps.some(onTeam))
    return {
      agent: null,
      step: null,
      reason:
        "No attribution: no agent or tool took a step in this run (it holds only the task or the framework's messages), so there is no one to blame.",
      evidence: [],
      method: 'offline',
      usage: { ...NO_USAGE },
    };
  const { rows, stepProbabilities, agents, figures } = predict(trace, model, options);
  const look = lookOf(trace, rows);
  const familiar = isFamiliar(look, model.familiarity, knownNames(model.familiarity));
  // A run unlike the training runs with step labels is decoded without the rules tuned on them
  // (settings.ts); a run like agent-labelled training runs only is still unlike those.
  const { stepFamiliarity } = model;
  const likeStepLabelled =
    familiar &&
    (stepFamiliarity === undefined ||
      (stepFamiliarity !== null && isFamiliar(look, stepFamiliarity, knownNames(stepFamiliarity))));
  const unfamiliarWeight = likeStepLabelled ? undefined : model.decoding.unfamiliarAgentWeight;
  // The decisive step maximises p(step) · p(agent of the step)^w: both scorers have a say, and the
  // named step and agent agree more often (w is stored with the model; docs/MODEL.md).
  const weight = unfamiliarWeight ?? model.decoding.agentWeight;
  const earliestShare = unfamiliarWeight === undefined ? model.decoding.earliestShare : 1;
  const agentProbability = new Map(agents.map((entry) => [entry.agent, entry.probability]));
  const combined = stepProbabilities.map((score, step) =>
    score > 0
      ? Math.log(score) +
        weight * Math.log((agentProbability.get(trace.steps[step]!.agent) ?? 0) + 1e-9)
      : -Infinity,
  );
  // Normalised, these joint scores are the confidences reported, so candidates read in order.
  const joint = softmax(
    combined.map((key) => (Number.isFinite(key) ? key : 0)),
    combined.map((key) => Number.isFinite(key)),
  );
  const ranked = joint
    .map((score, step) => ({ step, score }))
    .sort((left, right) => right.score - left.score || left.step - right.step);
  const top = ranked[0]!;
  // The decisive error is the earliest one: the agent is the speaker of the earliest step that
  // scores nearly as well as the top one, and the step is that agent's most likely step. This is
  // more accurate at both levels than the top step alone (docs/MODEL.md).
  let earliest = top;
  for (const entry of ranked) {
    if (entry.score < earliestShare * top.score) break;
    if (entry.step < earliest.step) earliest = entry;
  }
  // In a run unlike the training runs, of the agents about as likely as the most likely one, the
  // one whose output is rejected first is named where the model says so (settings.ts).
  const rejectedShare = familiar ? undefined : model.decoding.unfamiliarRejectedShare;
  const candidate = (step: number) => Number.isFinite(combined[step]);
  const rejectedFirst =
    rejectedShare === undefined || rejectedShare === 0
      ? undefined
      : firstRejectedAgent(trace, rows, candidate, agents, rejectedShare);
  const agent = rejectedFirst?.agent ?? trace.steps[earliest.step]!.agent;
  // Raw scores become stated confidences through the model's calibration (calibrate.ts), chosen by
  // whether the run looks like the training runs.
  const mapping = model.calibration?.[familiar ? 'familiar' : 'unfamiliar'];
  const stated = (raw: number, platt: Platt | undefined) => (platt ? applyPlatt(raw, platt) : raw);
  const stepConfidence = (raw: number) => stated(raw, mapping?.step);
  // In an unfamiliar run, the named step and the other candidates are stated at how often their
  // rank was right on held-out systems, where that was measured (calibrate.ts).
  const byRank = familiar ? undefined : model.calibration?.unfamiliar.stepByRank;
  const candidateConfidence = (raw: number, rank: number) =>
    byRank ? (byRank[rank] ?? 0) : stepConfidence(raw);
  const likeliest = ranked.find((entry) => trace.steps[entry.step]!.agent === agent)!;
  // A run unlike the step-labelled ones reports the agent's first failing step where the model
  // says so: there the step scorer's choice did not transfer (settings.ts). The agent rejected
  // first comes with it.
  const first =
    !likeStepLabelled && model.decoding.unfamiliarStep === 'first-failing'
      ? (rejectedFirst?.failing ?? firstFailingStep(trace, rows, candidate, agent))
      : undefined;
  // Where that step is a tool call the tool rejects and every figure it passes was first written
  // by another speaker (a simulated customer's wrong order id), that speaker's step is named: the
  // caller passed the error on (call-origin.ts).
  const origin =
    first?.why === 'rejected' && first.signal === 'next_error'
      ? originOfCall(trace, first.step, candidate)
      : undefined;
  const best = origin
    ? { step: origin.step, score: joint[origin.step]! }
    : first
      ? { step: first.step, score: joint[first.step]! }
      : likeliest;
  const namedAgent = trace.steps[best.step]!.agent;
  const explanation = origin
    ? explainCallOrigin(
        trace,
        origin,
        first!.step,
        explainStep(trace, first!.step, rows[first!.step]!, model.step, first!.signal, figures),
      )
    : explainStep(trace, best.step, rows[best.step]!, model.step, first?.signal, figures);
  const topAgent = trace.steps[top.step]!.agent;
  const statedAgent = (name: string) =>
    wholePercent(stated(agentProbability.get(name) ?? 0, mapping?.agent));
  const named =
    origin || topAgent === agent
      ? ''
      : rejectedFirst
        ? `Step ${top.step} (${topAgent}) scores highest, but ${agent} ${agent === agents[0]!.agent ? `is the most likely agent (${statedAgent(agent)})` : `is about as likely as ${agents[0]!.agent} (${statedAgent(agent)} against ${statedAgent(agents[0]!.agent)})`} and what follows rejects its step ${rejectedFirst.failing.step} first, so ${agent} is named. `
        : `Step ${top.step} (${topAgent}) scores highest (${wholePercent(stepConfidence(top.score))}), but ${agent}'s step ${earliest.step} comes earlier and is nearly as likely (${wholePercent(stepConfidence(earliest.score))}), so ${agent} is named${best.step === earliest.step ? '' : `, at its likeliest step (${best.step})`}. `;
  const instead =
    first && best.step !== likeliest.step && !origin
      ? `This run is unlike the step-labelled training runs, so ${agent}'s ${FIRST_FAILING_TEXT[first.why]} is named rather than its highest-scoring one (step ${likeliest.step}). `
      : '';
  const reason = `${named}${instead}${explanation.reason}`;
  // The named step first, then the most likely others that may be named (never the task).
  const others = ranked.filter((entry) => entry.step !== best.step && candidate(entry.step));
  const candidates: Candidate[] = [best, ...others]
    .slice(0, CANDIDATE_COUNT)
    .map((entry, rank) => ({
      step: entry.step,
      agent: trace.steps[entry.step]!.agent,
      score: round(candidateConfidence(entry.score, rank)),
    }));
  return {
    agent: namedAgent,
    step: best.step,
    reason,
    evidence: explanation.evidence,
    method: 'offline',
    confidence: round(candidateConfidence(best.score, 0)),
    // Passed on by a call, the error is stated at the caller's probability: the agent scorer
    // weighed the caller's steps, and the origin only moves the blame along the call.
    agentConfidence: round(stated(agentProbability.get(agent) ?? 0, mapping?.agent)),
    familiar,
    candidates,
    ...(model.modes ? modesOf(model.modes, trace, rows, best.step) : {}),
    ...(model.agentModes ? { agentModes: predictAgentModes(model.agentModes, trace, rows) } : {}),
    usage: { ...NO_USAGE },
  };
}

/** The failure modes found in the run, and the one most tied to the named step. */
function modesOf(
  modes: ModeModel,
  trace: Trace,
  rows: readonly (readonly number[])[],
  step: number,
): Pick<Attribution, 'modes' | 'stepMode'> {
  const found = predictModes(modes, modeFeatures(trace, rows));
  const tied = stepTiedMode(modes, found, rows[step]!);
  return { modes: found, ...(tied ? { stepMode: tied.code } : {}) };
}

const nameSets = new WeakMap<FamiliarityModel, Set<string>>();

/** A familiarity model's known name words as a set, made once per model. */
function knownNames(familiarity: FamiliarityModel): Set<string> {
  let names = nameSets.get(familiarity);
  if (!names) nameSets.set(familiarity, (names = new Set(familiarity.names)));
  return names;
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
