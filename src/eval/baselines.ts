/**
 * Every baseline the evaluations report, computed once for `faultline eval` and `faultline train
 * --cv` alike: simple rules a user could apply by hand (the first, last or most talkative speaker;
 * the first or last agent step), the most frequent responsible agent (learned on the training
 * folds only, as a method would be) and the exact expectation of a uniform random guess.
 */
import { firstAgentStep } from '../attribution/first-agent.js';
import { onTeam, responsibleAgents, sameAgent } from '../trace/agents.js';
import type { Trace } from '../trace/model.js';
import { subsetOf } from '../trace/subset.js';
import {
  assignFoldsFor,
  foldCount,
  foldsOf,
  seedsOf,
  type FoldPlan,
} from '../attribution/offline/train/folds.js';
import { lenientStepMatch, outcomesOf, type Outcomes } from './metrics.js';

export type { FoldPlan } from '../attribution/offline/train/folds.js';

/** One baseline's outcome on one trace (one per seed where the baseline learns from folds). */
export interface BaselineItem {
  subset: string;
  /** Identifies the trace: outcomes of the same trace are averaged before bootstrapping. */
  key: string;
  outcomes: Outcomes;
}

/** One baseline's outcomes over a set of traces. */
export interface BaselineOutcomes {
  method: string;
  items: BaselineItem[];
}

/** Steps a random guess would pick among: every step spoken by an agent (all steps if none). */
function randomCandidates(trace: Trace): number[] {
  const agentSteps = trace.steps.filter((step) => step.role === 'agent').map((step) => step.index);
  return agentSteps.length > 0 ? agentSteps : trace.steps.map((step) => step.index);
}

/**
 * Exact expected accuracies of a uniform random guess over the candidate steps (step measures) and
 * over the distinct agents among them (agent level). No sampling: the expectation is computed.
 */
export function randomExpectation(trace: Trace): Outcomes {
  const candidates = randomCandidates(trace);
  const label = trace.labels?.step;
  const share = (hit: (step: number, label: number) => boolean) =>
    label === undefined
      ? undefined
      : candidates.filter((step) => hit(step, label)).length / candidates.length;
  const agents: string[] = [];
  for (const index of candidates) {
    const agent = trace.steps[index]?.agent ?? '';
    if (!agents.some((known) => sameAgent(known, agent))) agents.push(agent);
  }
  const responsible = responsibleAgents(trace);
  const hits = agents.filter((agent) => responsible.some((name) => sameAgent(agent, name)));
  return {
    agent: agents.length > 0 ? hits.length / agents.length : 0,
    step: share((step, truth) => step === truth),
    stepWithin1: share((step, truth) => Math.abs(step - truth) <= 1),
    stepWithin3: share((step, truth) => Math.abs(step - truth) <= 3),
    stepLenient: share((step, truth) => lenientStepMatch(step, truth)),
  };
}

/** The agent named most often as responsible in a labelled set (ties: first in name order). */
function mostFrequentAgent(traces: readonly Trace[]): string | undefined {
  const counts = new Map<string, number>();
  for (const trace of traces) {
    const agent = trace.labels?.agent;
    if (agent) counts.set(agent, (counts.get(agent) ?? 0) + 1);
  }
  return [...counts.entries()].sort(
    (left, right) => right[1] - left[1] || left[0].localeCompare(right[0]),
  )[0]?.[0];
}

/** The outcomes of naming `agent` at `step` on a labelled trace. */
function outcomesOfGuess(trace: Trace, agent: string, step: number): Outcomes {
  const labels = responsibleAgents(trace);
  return outcomesOf({
    subset: subsetOf(trace),
    predictedAgent: agent,
    predictedStep: step,
    labelAgent: trace.labels?.agent,
    ...(labels.length > 1 ? { labelAgents: labels } : {}),
    labelStep: trace.labels?.step,
  });
}

/** Steps a speaker rule picks among: the team's, not the human's or the framework's (all if none). */
function speakerSteps(trace: Trace): number[] {
  const steps = trace.steps.filter(onTeam).map((step) => step.index);
  return steps.length > 0 ? steps : trace.steps.map((step) => step.index);
}

/** The speaker with the most steps (the human aside); ties go to the one who spoke first. */
export function mostTalkativeSpeaker(trace: Trace): string {
  const counts = new Map<string, number>();
  for (const index of speakerSteps(trace)) {
    const agent = trace.steps[index]?.agent ?? '';
    counts.set(agent, (counts.get(agent) ?? 0) + 1);
  }
  let best = '';
  let most = 0;
  for (const [agent, count] of counts) if (count > most) [best, most] = [agent, count];
  return best;
}

/** A rule that names a step (and so its speaker) from the trace alone. */
type StepRule = (trace: Trace) => number;

const firstOfAgent = (trace: Trace, agent: string) =>
  trace.steps.findIndex((step) => onTeam(step) && step.agent === agent);

/** The simple rules, each named as reported. */
const RULES: [string, StepRule][] = [
  ['first agent step', firstAgentStep],
  // -1 (no agent step) becomes step 0 where the rules are applied.
  ['last agent step', (trace) => trace.steps.findLastIndex((step) => step.role === 'agent')],
  ['first speaker', (trace) => speakerSteps(trace)[0] ?? 0],
  ['last speaker', (trace) => speakerSteps(trace).at(-1) ?? 0],
  [
    'most talkative speaker',
    (trace) => Math.max(0, firstOfAgent(trace, mostTalkativeSpeaker(trace))),
  ],
];

/** Every baseline on the same labelled traces; learned baselines use the plan's folds. */
export function baselineOutcomes(traces: readonly Trace[], plan: FoldPlan): BaselineOutcomes[] {
  const subsets = traces.map(subsetOf);
  const item = (index: number, outcomes: Outcomes): BaselineItem => ({
    subset: subsets[index]!,
    key: String(index),
    outcomes,
  });

  const ruled = RULES.map(([method, rule]) => ({
    method,
    items: traces.map((trace, index) => {
      const step = Math.max(0, rule(trace));
      return item(index, outcomesOfGuess(trace, trace.steps[step]?.agent ?? '', step));
    }),
  }));

  // Learned from the other folds only (within the subset when folds are drawn by question), then
  // named at its first step in the trace.
  const frequent: BaselineItem[] = [];
  for (const seed of seedsOf(plan)) {
    const assignment = assignFoldsFor(traces, plan, seed);
    const folds = foldsOf(
      traces.map((_, index) => index),
      assignment,
      foldCount(traces, plan),
    );
    traces.forEach((trace, index) => {
      const training = folds[assignment[index]!]!.training.filter(
        (other) => plan.by === 'system' || subsets[other] === subsets[index],
      );
      const agent = mostFrequentAgent(training.map((other) => traces[other]!)) ?? '';
      const step = trace.steps.findIndex((candidate) => sameAgent(candidate.agent, agent));
      frequent.push(
        item(index, outcomesOfGuess(trace, agent, step === -1 ? firstAgentStep(trace) : step)),
      );
    });
  }

  const random = traces.map((trace, index) => item(index, randomExpectation(trace)));
  return [
    ...ruled,
    { method: 'most frequent agent (cross-validated)', items: frequent },
    { method: 'random (expected)', items: random },
  ];
}
