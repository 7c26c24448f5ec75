/**
 * What the scorers read from a trace: step feature rows, the candidate mask and the agents'
 * unshared shares; plus which traces are usable for training. Shared by training and attributing.
 */
import { namesAnAgent } from '../../../trace/agents.js';
import type { Trace } from '../../../trace/model.js';
import { featuresAndMask, type StepInputs } from './features.js';
import type { RunFigures } from './run-facts.js';

/** True when a trace names a responsible agent (one, or several for injected faults). */
function hasAgentLabel(trace: Trace): boolean {
  return namesAnAgent(trace.labels);
}

/** True when a trace labels a decisive step inside the trace. */
export function hasStepLabel(trace: Trace): boolean {
  const step = trace.labels?.step;
  return step !== undefined && Number.isInteger(step) && step >= 0 && step < trace.steps.length;
}

/**
 * True when a trace can be trained on or evaluated: it names a responsible agent. Step labels are
 * used where they exist (the step scorer learns only from those).
 */
export function isLabelled(trace: Trace): boolean {
  return hasAgentLabel(trace);
}

/**
 * A trace's step rows, candidate mask and agents' unshared shares, with the run's figures (the
 * reason's quotes read them); `useGroundTruth: false` hides the expected answer.
 */
export function attributionInputs(
  trace: Trace,
  useGroundTruth = true,
): StepInputs & { figures: RunFigures } {
  const hides = !useGroundTruth && trace.groundTruth !== undefined;
  const known = computed.get(trace);
  const cached = hides ? known?.hidden : known?.shown;
  if (cached) return cached;
  const inputs = featuresAndMask(hides ? { ...trace, groundTruth: undefined } : trace);
  computed.set(trace, { ...known, [hides ? 'hidden' : 'shown']: inputs });
  return inputs;
}

/**
 * Each trace's inputs, computed once while the trace lives: adapting and calibrating attribute
 * the same runs under many models (a trace is never changed after it is built; nothing here
 * writes to the rows).
 */
const computed = new WeakMap<
  Trace,
  { shown?: StepInputs & { figures: RunFigures }; hidden?: StepInputs & { figures: RunFigures } }
>();

/**
 * A trace's step rows, candidate mask and agents' unshared shares (what training keeps for every
 * trace).
 */
export function stepInputs(trace: Trace, useGroundTruth = true): StepInputs {
  const { rows, mask, unshared } = attributionInputs(trace, useGroundTruth);
  return { rows, mask, unshared };
}
