/**
 * What the verdict panel's parts share: how confident a verdict must be to be stated plainly, what
 * is said of a run recorded as a success, and links that open a step or another page.
 */
import type { Attribution } from './api.js';
import { element } from './dom.js';

/** Below this probability of the named agent the verdict is shown as a guess. */
export const LOW_CONFIDENCE = 0.4;

/** What is said of a run the log records as a success (faultline assumes the run failed). */
export const RECORDED_SUCCESS =
  'The log records this run as a success: the answer is where it would most likely have gone wrong.';

/** What the panel can ask the page to do. */
export interface VerdictActions {
  open(step: number): void;
  navigate(path: string): void;
  teach(label: { agent: string; step: number } | null): Promise<void>;
}

/** The probability the verdict is stated with: the agent's, else the step's. */
export const statedConfidence = (result: Attribution) =>
  result.agentConfidence ?? result.confidence;

/** True when the verdict should be read as a guess. */
export function isLowConfidence(result: Attribution): boolean {
  const stated = statedConfidence(result);
  return result.familiar === false || (stated !== undefined && stated < LOW_CONFIDENCE);
}

/** A link that opens the step in the timeline. */
export function stepLink(step: number, text: string, actions: VerdictActions): HTMLAnchorElement {
  const link = element('a', { href: `#step-${step}`, class: 'step-link' }, text);
  link.addEventListener('click', (event) => {
    event.preventDefault();
    actions.open(step);
  });
  return link;
}

/** A link to another page of the app, followed without a reload. */
export function routeLink(path: string, text: string, actions: VerdictActions): HTMLAnchorElement {
  const link = element('a', { href: path }, text);
  link.addEventListener('click', (event) => {
    event.preventDefault();
    actions.navigate(path);
  });
  return link;
}
