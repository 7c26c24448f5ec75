/** How a verdict compares with a trace's labels, as the API states it. */
import { stepCorrect } from '../eval/metrics.js';
import { namesAnAgent, namesResponsible } from '../trace/agents.js';
import type { TraceLabels } from '../trace/model.js';
import type { LabelMatch } from './api-types.js';

/** Whether a verdict matches the labels, per level; null where the labels say nothing. */
export function labelMatch(
  predicted: { agent: string | null; step: number | null },
  labels: Partial<Pick<TraceLabels, 'agent' | 'agents' | 'step'>> | undefined,
): LabelMatch {
  return {
    agent: namesAnAgent(labels) ? namesResponsible(predicted.agent, labels) : null,
    step: labels?.step === undefined ? null : stepCorrect(predicted.step, labels.step),
  };
}
