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
  } else {
    const low = isLowConfidence(result);
    const agent = element('span', { class: 'agent' }, result.agent);
    container.append(
      element(
        'p',
        { class: `verdict${low ? ' low' : ''}` },
        agent,
        result.agentConfidence !== undefined ? ` (${percent(result.agentConfidence)})` : '',
        unseenSystemsNote(result),
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
          result.familiar === false
            ? 'Low confidence: this run looks unlike the runs the offline model learned from (its agents’ names or its structure). Read the answer as a guess, try an LLM method, or teach it with labelled runs of this system.'
            : `Low confidence (under ${percent(LOW_CONFIDENCE)}): read this as a guess and check the candidates.`,
        ),
      );
    if (result.verified) container.append(verifiedBadge(result.verified));
  }
  if (trace.outcome === 'success')
    container.append(
      element('p', { class: 'badge low-confidence', role: 'note' }, RECORDED_SUCCESS),
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

/**
 * Beside the agent confidence of a run unlike the training runs: it was measured on systems left
 * out of training in turn, and how far their hit rates spread.
 */
function unseenSystemsNote(result: Attribution): string | HTMLElement {
  if (result.confidenceBasis !== 'unseen-systems' || result.agentConfidence === undefined)
    return '';
  const range = result.heldOutRange;
  return element(
    'span',
    { class: 'meta', title: 'agent confidence measured on systems left out of training in turn' },
    range
      ? ` as right on unseen systems, where ${percent(range[0])}–${percent(range[1])} of such answers were right`
      : ' as right on unseen systems',
  );
}
