/**
 * Runs of one task for the spectrum tests: a planner, a researcher and an analyst price an item;
 * in a failing run the researcher reports a stale price (or the analyst mis-adds), worded a little
 * differently each run, with numbers and ids that change from run to run.
 */
import { buildTrace } from '../../../trace/build-trace.js';
import type { Trace } from '../../../trace/model.js';

const WORDING = ['found', 'located', 'got'];

/** One run: `fault` says which agent errs, if any. */
export function pricingRun(
  index: number,
  fault: 'researcher' | 'analyst' | 'none',
  item = 'widget',
): Trace {
  const price = 100 + index * 7;
  const word = WORDING[index % WORDING.length]!;
  const research =
    fault === 'researcher'
      ? `I ${word} an archived catalogue page from 2019 listing the ${item} at ${price} euros; using that outdated figure (ref ${index}a7f3c2b9).`
      : `I ${word} the vendor's current price sheet: the ${item} costs ${price} dollars today (ref ${index}b8e4d1a0).`;
  const analysis =
    fault === 'analyst'
      ? `Total with tax: ${price} + ${price} * 0.2 = ${price * 2}. I multiplied the tax rate twice by mistake.`
      : `Total with tax: ${price} + ${price} * 0.2 = ${(price * 1.2).toFixed(2)}.`;
  return buildTrace({
    id: `run-${index}`,
    format: 'test',
    question: `What does the ${item} cost with tax?`,
    outcome: fault === 'none' ? 'success' : 'failure',
    steps: [
      { speaker: 'user', role: 'human', content: `What does the ${item} cost with tax?` },
      {
        speaker: 'Planner',
        content: 'Plan: 1. the researcher finds the price 2. the analyst adds tax 3. report',
      },
      { speaker: 'Researcher', content: research },
      { speaker: 'Analyst', content: analysis },
      { speaker: 'Planner', content: `FINAL ANSWER: the ${item} costs about ${price} with tax.` },
    ],
  });
}

/** `failing` runs with the researcher's fault, `analyst` with the analyst's, `passing` clean. */
export function pricingRuns(researcher: number, analyst: number, passing: number): Trace[] {
  const faults = [
    ...Array.from({ length: researcher }, () => 'researcher' as const),
    ...Array.from({ length: analyst }, () => 'analyst' as const),
    ...Array.from({ length: passing }, () => 'none' as const),
  ];
  return faults.map((fault, index) => pricingRun(index, fault));
}

/**
 * A run as a Who&When record: `is_correct` from its outcome, and the labels when given (the failed
 * run under study carries them, its repeats do not).
 */
export function asWhoAndWhen(
  trace: Trace,
  labels?: { agent: string; step: number },
): Record<string, unknown> {
  return {
    question: trace.question,
    is_correct: trace.outcome === 'success',
    history: trace.steps.map((step) => ({
      role: step.role === 'human' ? 'user' : 'assistant',
      name: step.speaker,
      content: step.content,
    })),
    ...(labels
      ? { mistake_agent: labels.agent, mistake_step: String(labels.step), mistake_reason: 'x' }
      : {}),
  };
}
