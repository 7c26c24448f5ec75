/**
 * The before/after table of `faultline adapt`: the shipped model, the model adapted to a system's
 * runs (its system layer, train/system-layer.ts), and the baselines, cross-validated by task: each
 * task's runs are named by a model adapted to the other tasks' runs (and the baseline learns from
 * those alone), so no run is measured by what learned from it or from its task.
 */
import { firstAgentStep } from '../attribution/first-agent.js';
import { attributeWithModel } from '../attribution/offline/attribute/attributor.js';
import type { OfflineModel } from '../attribution/offline/model/model-file.js';
import { adaptModel } from '../attribution/offline/train/system-layer.js';
import { responsibleAgents, sameAgent } from '../trace/agents.js';
import type { Trace } from '../trace/model.js';
import { mostTalkativeSpeaker } from './baselines.js';
import { agentCorrect, stepCorrect } from './metrics.js';

/** One line of the table: a method's accuracy on the held-out runs. */
export interface AdaptationRow {
  method: string;
  baseline: boolean;
  /** Share of runs whose responsible agent (any of several) is named, each held out. */
  agent: number;
  /** Share of runs with a step label whose decisive step is named. */
  step: number;
  runs: number;
}

/** The adapted model and the table. */
export interface Adaptation {
  adapted: OfflineModel;
  rows: AdaptationRow[];
}

/** The shipped model's row name and the adapted model's, as the table prints them. */
export const SHIPPED_ROW = 'offline (shipped model)';
export const ADAPTED_ROW = 'offline (adapted)';
export const MOST_BLAMED_ROW = 'most often blamed in the training runs';

/** The agent the runs blame most often (every responsible agent counts), ties by name. */
export function mostBlamed(runs: readonly Trace[]): string | undefined {
  const counts = new Map<string, number>();
  for (const run of runs)
    for (const agent of responsibleAgents(run)) {
      const known = [...counts.keys()].find((name) => sameAgent(name, agent)) ?? agent;
      counts.set(known, (counts.get(known) ?? 0) + 1);
    }
  return [...counts].sort(
    (left, right) => right[1] - left[1] || left[0].localeCompare(right[0]),
  )[0]?.[0];
}

/** Counts of right answers of one method, summed over folds. */
interface Tally {
  agent: number;
  step: number;
  stepped: number;
  runs: number;
}

/** Adds each held-out run's named agent and step to a tally. */
function score(
  tally: Tally,
  held: readonly Trace[],
  name: (trace: Trace) => { agent: string | null; step: number | null },
): void {
  for (const trace of held) {
    const named = name(trace);
    tally.runs += 1;
    if (agentCorrect(named.agent, trace.labels?.agent, trace.labels?.agents)) tally.agent += 1;
    if (trace.labels?.step === undefined) continue;
    tally.stepped += 1;
    if (stepCorrect(named.step, trace.labels.step)) tally.step += 1;
  }
}

/** Names `agent` at its first step in the run (the first agent step where it took none). */
function atFirstStep(trace: Trace, agent: string): { agent: string | null; step: number } {
  const first = trace.steps.findIndex((step) => sameAgent(step.agent, agent));
  const step = first === -1 ? firstAgentStep(trace) : first;
  return { agent: trace.steps[step]?.agent ?? null, step };
}

/** The methods of the table, each naming a held-out run given the training runs of its fold. */
function methodsOf(
  shipped: OfflineModel,
  training: readonly Trace[],
): [string, boolean, (trace: Trace) => { agent: string | null; step: number | null }][] {
  const adapted = adaptModel(shipped, training);
  const blamed = mostBlamed(training) ?? '';
  const named = (model: OfflineModel) => (trace: Trace) => attributeWithModel(trace, model);
  return [
    [SHIPPED_ROW, false, named(shipped)],
    [ADAPTED_ROW, false, named(adapted)],
    [MOST_BLAMED_ROW, true, (trace) => atFirstStep(trace, blamed)],
    [
      'first agent step',
      true,
      (trace) => {
        const step = firstAgentStep(trace);
        return { agent: trace.steps[step]?.agent ?? null, step };
      },
    ],
    ['most talkative speaker', true, (trace) => atFirstStep(trace, mostTalkativeSpeaker(trace))],
  ];
}

/**
 * Adapts `shipped` to all the runs (the model to keep) and measures it, beside the shipped model and
 * the baselines, leaving each group of runs (a task's) out in turn.
 */
export function adaptAndMeasure(
  shipped: OfflineModel,
  groups: readonly Trace[][],
  data: readonly string[] = [],
): Adaptation {
  const tallies = new Map<string, Tally & { baseline: boolean }>();
  groups.forEach((held, index) => {
    const training = groups.filter((_, other) => other !== index).flat();
    for (const [method, baseline, name] of methodsOf(shipped, training)) {
      let tally = tallies.get(method);
      if (!tally)
        tallies.set(method, (tally = { agent: 0, step: 0, stepped: 0, runs: 0, baseline }));
      score(tally, held, name);
    }
  });
  const share = (count: number, of: number) => (of > 0 ? count / of : 0);
  return {
    adapted: adaptModel(shipped, groups.flat(), data),
    rows: [...tallies].map(([method, tally]) => ({
      method,
      baseline: tally.baseline,
      agent: share(tally.agent, tally.runs),
      step: share(tally.step, tally.stepped),
      runs: tally.runs,
    })),
  };
}
