/**
 * Decode stage: from the scorers' probabilities to the named step and agent, under the run's
 * regime (regimes.ts). The decisive step maximises p(step) · p(agent of the step)^w, so both
 * scorers have a say and the named step and agent agree more often; the decisive error being the
 * earliest, the agent is the speaker of the earliest step scoring nearly as well as the top one;
 * the regime may name instead the agent rejected first, report the agent's first failing step
 * (first-failing-step.ts), and follow a rejected call to the step its figures came from
 * (call-origin.ts).
 */
import type { Trace } from '../../../trace/model.js';
import type { OfflinePrediction } from '../scores/predict.js';
import { softmax } from '../scores/scoring.js';
import { originOfCall, type CallOrigin } from './call-origin.js';
import { firstFailingStep, firstRejectedAgent, type FirstFailing } from './first-failing-step.js';
import type { DecodingRegime } from './regimes.js';
import { stepOwners } from './step-owner.js';

/** A step with its joint score (normalised over the candidate steps). */
export interface Scored {
  step: number;
  score: number;
}

/** What decoding decided, and the steps that led there (the reason tells them). */
export interface Decision {
  /** Normalised joint score of each step: the confidences reported, so candidates read in order. */
  joint: number[];
  /** Steps by joint score, best first (ties: the earlier). */
  ranked: Scored[];
  /** The top step. */
  top: Scored;
  /** The earliest step scoring at least the regime's share of the top one. */
  earliest: Scored;
  /** The named agent: the one that answers for the named step. */
  agent: string;
  /** Where the agent rejected first was named: it, and its first failing step. */
  rejectedFirst: { agent: string; failing: FirstFailing } | undefined;
  /** The most likely step of the speaker searched (the earliest strong step's, or the agent rejected first's). */
  likeliest: Scored;
  /** The named agent's first failing step, where the regime reports it. */
  first: FirstFailing | undefined;
  /** Where the named step's rejected call passed on another speaker's figures: their step. */
  origin: CallOrigin | undefined;
  /** The named step. */
  best: Scored;
  /** Which steps may be named (never the task). */
  candidate: (step: number) => boolean;
  /** The agent that answers for a step: its speaker, or for a tool's output the caller (step-owner.ts). */
  owner: (step: number) => string;
}

/** Decodes a prediction under a regime. */
export function decode(
  trace: Trace,
  prediction: OfflinePrediction,
  regime: DecodingRegime,
): Decision {
  const { rows, stepProbabilities, agents, speakers } = prediction;
  const speakerProbability = new Map(speakers.map((entry) => [entry.agent, entry.probability]));
  // A step may be named only where an agent that may be named answers for it
  // (scores/candidate-agents.ts): its speaker, or the caller of a tool whose output it is; never a
  // placeholder's step while an agent has a candidate step. The step's own speaker's probability
  // weighs it, a tool's included.
  const owners = stepOwners(trace, new Set(agents.map((entry) => entry.agent)));
  const owner = (step: number) => owners[step] ?? trace.steps[step]!.agent;
  const combined = stepProbabilities.map((score, step) =>
    score > 0 && (agents.length === 0 || owners[step] !== undefined)
      ? Math.log(score) +
        regime.agentWeight *
          Math.log((speakerProbability.get(trace.steps[step]!.agent) ?? 0) + 1e-9)
      : -Infinity,
  );
  const joint = softmax(
    combined.map((key) => (Number.isFinite(key) ? key : 0)),
    combined.map((key) => Number.isFinite(key)),
  );
  const ranked = joint
    .map((score, step) => ({ step, score }))
    .sort((left, right) => right.score - left.score || left.step - right.step);
  const top = ranked[0]!;
  let earliest = top;
  for (const entry of ranked) {
    if (entry.score < regime.earliestShare * top.score) break;
    if (entry.step < earliest.step) earliest = entry;
  }
  const candidate = (step: number) => Number.isFinite(combined[step]);
  const rejectedFirst =
    regime.rejectedShare === undefined
      ? undefined
      : firstRejectedAgent(trace, rows, candidate, agents, regime.rejectedShare);
  // The step is searched among its speaker's (a tool's, where its output scores best); the agent
  // named answers for the step found (step-owner.ts).
  const speaker = rejectedFirst?.agent ?? trace.steps[earliest.step]!.agent;
  const likeliest = ranked.find((entry) => trace.steps[entry.step]!.agent === speaker)!;
  // The agent rejected first comes with its first failing step.
  const failing = regime.firstFailing
    ? (rejectedFirst?.failing ?? firstFailingStep(trace, rows, candidate, speaker))
    : undefined;
  // Under `rejected-else-likeliest`, only a step what follows rejects replaces the likeliest one.
  const first =
    failing && (!regime.rejectedOnly || failing.why === 'rejected') ? failing : undefined;
  // Where that step is a tool call the tool rejects and every figure it passes was first written
  // by another speaker (a simulated customer's wrong order id), that speaker's step is named: the
  // caller passed the error on.
  const origin =
    first?.why === 'rejected' && first.signal === 'next_error'
      ? originOfCall(trace, first.step, candidate)
      : undefined;
  const best = origin
    ? { step: origin.step, score: joint[origin.step]! }
    : first
      ? { step: first.step, score: joint[first.step]! }
      : likeliest;
  const agent = owner(best.step);
  return {
    joint,
    ranked,
    top,
    earliest,
    agent,
    rejectedFirst,
    likeliest,
    first,
    origin,
    best,
    candidate,
    owner,
  };
}
