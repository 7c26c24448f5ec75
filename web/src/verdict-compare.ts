/** The verdict panel's table of the other analyses of the same trace, each a link to it. */
import type { Analysis } from './api.js';
import { element, percent } from './dom.js';
import { routeLink, statedConfidence, type VerdictActions } from './verdict-links.js';

/** Appends the table when the trace has analyses besides the one shown. */
export function appendCompare(
  container: HTMLElement,
  analysis: Analysis | null,
  siblings: readonly Analysis[],
  actions: VerdictActions,
): void {
  if (siblings.length <= (analysis ? 1 : 0)) return;
  const body = element('tbody');
  for (const other of siblings) {
    const current = other.id === analysis?.id;
    const verdict =
      other.result.agent === null ? 'none' : `${other.result.agent} @ ${other.result.step}`;
    body.append(
      element(
        'tr',
        { class: current ? 'current' : '' },
        element(
          'td',
          {},
          current
            ? `${other.method} (shown)`
            : routeLink(`/analyses/${other.id}`, other.method, actions),
        ),
        element('td', {}, verdict),
        element('td', {}, percent(statedConfidence(other.result))),
      ),
    );
  }
  container.append(
    element('h3', {}, 'Compare analyses of this trace'),
    element(
      'table',
      { class: 'compare' },
      element(
        'thead',
        {},
        element(
          'tr',
          {},
          element('th', {}, 'method'),
          element('th', {}, 'verdict'),
          element('th', {}, 'conf.'),
        ),
      ),
      body,
    ),
    element(
      'p',
      { class: 'meta' },
      'Each analysis is marked on the timeline; run another method to add it.',
    ),
  );
}
