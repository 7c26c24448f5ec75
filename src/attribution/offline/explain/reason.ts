/**
 * Explain stage: the reason a result gives, in the order a reader checks it: why this agent rather
 * than the top step's speaker (the earliest-step rule, or the agent rejected first), why this step
 * rather than the agent's highest-scoring one (a run unlike the step-labelled ones), then what the
 * named step did, quoting it (evidence.ts), or how a call passed another speaker's figure on.
 */
import type { Trace } from '../../../trace/model.js';
import { wholePercent } from '../../method.js';
import { explainCallOrigin } from '../decode/call-origin.js';
import type { Decision } from '../decode/decode.js';
import { FIRST_FAILING_TEXT } from '../decode/first-failing-step.js';
import { contradictionOf } from '../features/contradiction.js';
import type { RunFigures } from '../features/run-facts.js';
import type { OfflinePrediction } from '../scores/predict.js';
import type { LinearScorer } from '../scores/scoring.js';
import { explainStep, type StepExplanation } from './evidence.js';

/** How stated confidences are read from raw scores (the model's calibration). */
export interface Stated {
  /** A step's stated confidence from its raw joint score. */
  step: (raw: number) => number;
  /** An agent's stated confidence, by name. */
  agent: (name: string) => number;
}

/** The reason and evidence of a decision. */
export function explainDecision(
  trace: Trace,
  prediction: OfflinePrediction & { figures: RunFigures },
  decision: Decision,
  scorer: LinearScorer,
  stated: Stated,
): StepExplanation {
  const { rows, agents, figures } = prediction;
  const { top, earliest, agent, rejectedFirst, likeliest, first, origin, best, owner } = decision;
  const explanation = origin
    ? explainCallOrigin(
        trace,
        origin,
        first!.step,
        explainStep(trace, first!.step, rows[first!.step]!, scorer, first!.signal, figures),
      )
    : explainStep(trace, best.step, rows[best.step]!, scorer, first?.signal, figures);
  const topAgent = owner(top.step);
  const statedAgent = (name: string) => wholePercent(stated.agent(name));
  // Compared through the agent scorer's own probabilities: an unfamiliar run states every agent at
  // one held-out rate (train/calibrate.ts), which cannot tell two agents apart.
  const scoreShare = (name: string) =>
    wholePercent(
      (agents.find((entry) => entry.agent === name)?.probability ?? 0) / agents[0]!.probability,
    );
  const named =
    origin || topAgent === agent
      ? ''
      : rejectedFirst
        ? `Step ${top.step} (${topAgent}) scores highest, but ${agent} ${agent === agents[0]!.agent ? `is the most likely agent (${statedAgent(agent)})` : `is about as likely as ${agents[0]!.agent} (${scoreShare(agent)} of its score)`} and what follows rejects its step ${rejectedFirst.failing.step} first, so ${agent} is named. `
        : `Step ${top.step} (${topAgent}) scores highest (${wholePercent(stated.step(top.score))}), but ${agent}'s step ${earliest.step} comes earlier and is nearly as likely (${wholePercent(stated.step(earliest.score))}), so ${agent} is named${best.step === earliest.step ? '' : `, at its likeliest step (${best.step})`}. `;
  const instead =
    first && best.step !== likeliest.step && !origin
      ? `This run is unlike the step-labelled training runs, so ${agent}'s ${FIRST_FAILING_TEXT[first.why]} is named rather than its highest-scoring one (step ${likeliest.step}). `
      : '';
  return {
    reason: `${named}${instead}${toolOutputText(trace, best.step, owner(best.step))}${contradictionText(trace, best.step)}${explanation.reason}`,
    evidence: explanation.evidence,
  };
}

/** Where the named step is a tool's output, whose call it answers (step-owner.ts). */
function toolOutputText(trace: Trace, step: number, owner: string): string {
  const speaker = trace.steps[step]!.agent;
  return speaker === owner
    ? ''
    : `Step ${step} is ${speaker}'s output for ${owner}'s call, so ${owner} answers for it. `;
}

/** Where the named step contradicts the tool output it just read, what it reports and what was given. */
function contradictionText(trace: Trace, step: number): string {
  const found = contradictionOf(trace.steps, step);
  return found
    ? `Step ${step} reports ${found.reported} where ${found.tool} returned ${found.given} (${found.name}, step ${found.toolStep}). `
    : '';
}
