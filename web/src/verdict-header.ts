/**
 * The top of the verdict panel: who and where with honest confidence (or why there is no
 * verdict), the badges that qualify it, and the trace's label with whether the verdict matches.
 */
import type { Attribution, LabelMatch, Trace } from './api.js';
import { element, labelledAgents, percent } from './dom.js';
import {
  isLowConfidence,
  LOW_CONFIDENCE,
  RECORDED_SUCCESS,
  stepLink,
  type VerdictActions,
} from './verdict-links.js';

const matchMark = (ok: boolean | null, what: string) =>
  ok === null
    ? null
    : element(
        'span',
        { class: `match ${ok ? 'yes' : 'no'}` },
        ok ? `✓ ${what} matches` : `✗ ${what} differs`,
      );

/** What `faultline verify` proved: a fix at the step made the run pass its check. */
function verifiedBadge(proof: NonNullable<Attribution['verified']>): HTMLElement {
  const replays = `${proof.replays} replay${proof.replays === 1 ? '' : 's'}`;
  // Verify looks for the earliest step that flips; where the budget stopped it, say so.
  const untried = proof.earlierUntried?.length ?? 0;
  const earlier =
    proof.earlierAllTried === false && untried > 0
      ? ` ${untried} earlier model call${untried === 1 ? ' was' : 's were'} not tried.`
      : '';
  return element(
    'p',
    { class: 'badge verified', role: 'note' },
    `✓ Verified by replay: with step ${proof.step} (${proof.agent}) fixed, the run passed its check (${replays}).${earlier}`,
  );
}

/** The heading, the verdict and its confidence badges, and the recorded-success note. */
export function appendVerdictHeader(
  container: HTMLElement,
  trace: Trace,
  result: Attribution | null,
  actions: VerdictActions,
): void {
  container.append(element('h2', {}, 'Attribution'));
  if (!result)
    container.append(element('p', { class: 'meta' }, 'Choose a method and press Attribute.'));
  else if (result.agent === null || result.step === null) {
    container.append(
      element(
        'p',
        { class: 'warning' },
        result.unparsed
          ? 'The model reply could not be read.'
          : (result.candidates?.length ?? 0) > 0
            ? 'No confident attribution: see the candidate steps.'
            : 'No decisive step was found.',
      ),
    );
  } else if (result.familiar === false) {
    appendGuess(container, result, actions);
    if (result.verified) container.append(verifiedBadge(result.verified));
  } else {
    const low = isLowConfidence(result);
    const agent = element('span', { class: 'agent' }, result.agent);
    container.append(
      element(
        'p',
        { class: `verdict${low ? ' low' : ''}` },
        agent,
        result.agentConfidence !== undefined ? ` (${percent(result.agentConfidence)})` : '',
        ' at ',
        stepLink(result.step, `step ${result.step}`, actions),
        result.confidence !== undefined ? ` (${percent(result.confidence)})` : '',
      ),
    );
    if (low)
      container.append(
        element(
          'p',
          { class: 'badge low-confidence', role: 'note' },
          `Low confidence (under ${percent(LOW_CONFIDENCE)}): read this as a guess and check the candidates.`,
        ),
      );
    if (result.verified) container.append(verifiedBadge(result.verified));
  }
  if (trace.outcome === 'success')
    container.append(
      element('p', { class: 'badge low-confidence', role: 'note' }, RECORDED_SUCCESS),
    );
}

/** What an unfamiliar run's verdict leads with: it is a guess, and what to do about it. */
function guessNote(): HTMLElement {
  return element(
    'p',
    { class: 'badge low-confidence guess', role: 'note' },
    'A guess on a system it was not trained on: ',
    element('code', {}, 'faultline verify'),
    ' proves it by replay; 20 labelled runs (',
    element('code', {}, 'faultline adapt'),
    ' or ',
    element('code', {}, 'train --base'),
    ') make it yours.',
  );
}

const rangeText = (range: [number, number] | undefined) =>
  range ? `; unseen systems ${percent(range[0])}–${percent(range[1])} right` : '';

/**
 * An unfamiliar run's verdict: what to do first, then the three most likely agents with their
 * figures (none set apart: it is a guess) and the named step.
 */
function appendGuess(container: HTMLElement, result: Attribution, actions: VerdictActions): void {
  const agents = result.agentCandidates ?? [
    { agent: result.agent!, confidence: result.agentConfidence ?? 0 },
  ];
  const list = element('ol', { class: 'agent-candidates' });
  for (const entry of agents)
    list.append(
      element(
        'li',
        {},
        element('span', { class: 'agent-candidate' }, entry.agent),
        ` ${percent(entry.confidence)}`,
      ),
    );
  container.append(
    guessNote(),
    element(
      'p',
      { class: 'verdict guess' },
      'Most likely agents',
      element(
        'span',
        { class: 'meta', title: 'measured on systems left out of training in turn' },
        ` (stated as on unseen systems${rangeText(result.heldOutRange)})`,
      ),
      ':',
    ),
    list,
    element(
      'p',
      { class: 'verdict guess' },
      'Named step: ',
      stepLink(result.step!, `step ${result.step}`, actions),
      result.confidence !== undefined
        ? ` (${percent(result.confidence)}${rangeText(result.heldOutStepRange)})`
        : '',
    ),
  );
}

/** The trace's label (from the trace or set on the page), whether the verdict matches it, why. */
export function appendLabel(
  container: HTMLElement,
  trace: Trace,
  match: LabelMatch | null,
  actions: VerdictActions,
): void {
  if (!trace.labels || (!trace.labels.agent && trace.labels.step === undefined)) return;
  const labels = trace.labels;
  container.append(
    element(
      'p',
      { class: 'label' },
      element('b', {}, labels.byUser ? 'Your label: ' : 'Label in the trace: '),
      labelledAgents(labels),
      ' at ',
      labels.step === undefined ? 'step ?' : stepLink(labels.step, `step ${labels.step}`, actions),
    ),
  );
  if (match)
    container.append(
      element(
        'p',
        { class: 'matches' },
        matchMark(match.agent, 'agent'),
        ' ',
        matchMark(match.step, 'step'),
      ),
    );
  if (labels.reason) container.append(element('p', { class: 'reason' }, labels.reason));
}
