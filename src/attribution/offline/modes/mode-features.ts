/**
 * Features for the failure-mode classifiers (mode-model.ts). Run level: the step features
 * (features.ts) summarised over the agents' turns (mean and maximum of each), plus a few facts of
 * the run's shape (length, team size, who speaks, how it ends, how much it repeats itself). Agent
 * level: the same summaries over one agent's turns, plus where and how much it speaks. Read from
 * the canonical trace and the step rows the attributor has already computed, so every format gets
 * modes and they cost almost nothing on top of attributing.
 */
import type { Trace } from '../../../trace/model.js';
import { stepsByAgent } from '../features/agent-features.js';
import { FEATURE_NAMES } from '../features/feature-names.js';
import { isTermination } from '../features/text-signals.js';

const SHAPE_FEATURES = [
  'run_steps_log',
  'run_agents_log',
  'run_human_share',
  'run_tool_share',
  'run_question_share',
  'run_ends_terminated',
  'run_terminations_log',
  'run_exact_repeats_share',
  'run_longest_monologue_log',
  'run_last_length_log',
] as const;

/** The step features' mean and maximum over a set of turns, as named columns. */
const SUMMARY_NAMES = [
  ...FEATURE_NAMES.map((name) => `mean_${name}`),
  ...FEATURE_NAMES.map((name) => `max_${name}`),
];

/** The mode features' names, in column order. */
export const MODE_FEATURE_NAMES: readonly string[] = [...SUMMARY_NAMES, ...SHAPE_FEATURES];

/** Characters read at the end of a long step. */
const TAIL = 1_200;

/** The run-level feature row of a trace, from its step feature rows. */
export function modeFeatures(trace: Trace, rows: readonly (readonly number[])[]): number[] {
  const turns: number[] = [];
  trace.steps.forEach((step, index) => {
    if (step.role === 'agent') turns.push(index);
  });
  const actors = turns.length;

  const steps = trace.steps;
  const count = Math.max(steps.length, 1);
  let humans = 0;
  let tools = 0;
  let questions = 0;
  let terminations = 0;
  let repeats = 0;
  let monologue = 0;
  let longest = 0;
  const seen = new Set<string>();
  steps.forEach((step, index) => {
    if (step.role === 'human') humans += 1;
    if (step.role === 'tool') tools += 1;
    const content = step.content;
    // Questions and terminations are read in a long step's last part only (a page or a file
    // dump can run to megabytes; its end is where an agent asks or stops).
    const end = content.length > TAIL ? content.slice(-TAIL) : content;
    if (step.role === 'agent' && end.includes('?')) questions += 1;
    if (isTermination(end)) terminations += 1;
    // A repeat is a step whose length and opening equal an earlier one's: exact in practice, and
    // it never hashes a whole long output.
    const key = `${content.length}:${content.slice(0, 64)}`;
    if (content.length > 0 && seen.has(key)) repeats += 1;
    seen.add(key);
    monologue = index > 0 && steps[index - 1]!.agent === step.agent ? monologue + 1 : 1;
    longest = Math.max(longest, monologue);
  });
  const last = steps.at(-1)?.content ?? '';
  const shape = [
    Math.log1p(steps.length),
    Math.log1p(trace.agents.filter((agent) => agent.role === 'agent').length),
    humans / count,
    tools / count,
    questions / Math.max(actors, 1),
    last && isTermination(last) ? 1 : 0,
    Math.log1p(terminations),
    repeats / count,
    Math.log1p(longest),
    Math.log1p(last.length / 100),
  ];
  const features = summaryOf(rows, turns);
  features.push(...shape);
  return features;
}

/** Each step feature's mean and maximum over the steps at `indices` (zeros when there are none). */
function summaryOf(rows: readonly (readonly number[])[], indices: readonly number[]): number[] {
  const width = FEATURE_NAMES.length;
  // Means in the first `width` columns, maxima in the next (one array, filled in place).
  const summary = new Array<number>(2 * width).fill(0);
  indices.forEach((index, position) => {
    const row = rows[index]!;
    for (let column = 0; column < width; column += 1) {
      const value = row[column]!;
      summary[column]! += value;
      if (position === 0 || value > summary[width + column]!) summary[width + column] = value;
    }
  });
  if (indices.length > 0)
    for (let column = 0; column < width; column += 1) summary[column]! /= indices.length;
  return summary;
}

const AGENT_SHAPE_FEATURES = [
  'agent_step_share',
  'agent_first_position',
  'agent_speaks_first',
  'agent_speaks_last',
  'agent_steps_log',
  'run_agents',
] as const;

/** The per-agent mode features' names, in column order. */
export const AGENT_MODE_FEATURE_NAMES: readonly string[] = [
  ...SUMMARY_NAMES,
  ...AGENT_SHAPE_FEATURES,
];

/** One feature row per agent that speaks (role `agent`), in order of appearance. */
export function agentModeFeatures(
  trace: Trace,
  rows: readonly (readonly number[])[],
): { agents: string[]; rows: number[][] } {
  const stepsOf = stepsByAgent(trace, (step) => step.role === 'agent');
  const count = Math.max(trace.steps.length, 1);
  const firstActor = trace.steps.findIndex((step) => step.role === 'agent');
  const agents = [...stepsOf.keys()];
  return {
    agents,
    rows: agents.map((agent) => {
      const indices = stepsOf.get(agent)!;
      const last = indices[indices.length - 1]!;
      const features = summaryOf(rows, indices);
      features.push(
        indices.length / count,
        indices[0]! / count,
        indices[0] === firstActor ? 1 : 0,
        last === trace.steps.length - 1 ? 1 : 0,
        Math.log1p(indices.length),
        agents.length,
      );
      return features;
    }),
  };
}
