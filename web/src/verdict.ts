/**
 * The verdict panel: who and where with honest confidence, the label and whether the verdict
 * matches it, reason, modes, candidates by score, the other analyses of the trace (compare),
 * export, and the form that stores a person's own verdict as the trace's label (teach it).
 * Each part is a module of its own (verdict-*.ts); this one puts them in order.
 */
import type { Analysis, Attribution, LabelMatch, Trace } from './api.js';
import { candidateFigure, element } from './dom.js';
import { appendCompare } from './verdict-compare.js';
import { appendUsageAndExport } from './verdict-export.js';
import { appendLabel, appendVerdictHeader } from './verdict-header.js';
import { stepLink, type VerdictActions } from './verdict-links.js';
import { appendModes } from './verdict-modes.js';
import { teachForm } from './verdict-teach.js';

export type { VerdictActions } from './verdict-links.js';
export { verdictMarkdown } from './verdict-export.js';

/** The candidate steps, highest score first, each a link to its step. */
function appendCandidates(
  container: HTMLElement,
  result: Attribution,
  actions: VerdictActions,
): void {
  const candidates = [...(result.candidates ?? [])].sort((left, right) => right.score - left.score);
  if (candidates.length === 0) return;
  const list = element('ol', { class: 'candidates' });
  for (const candidate of candidates)
    list.append(
      element(
        'li',
        {},
        stepLink(candidate.step, `step ${candidate.step} · ${candidate.agent}`, actions),
        ` ${candidateFigure(candidate.score, result)}`,
      ),
    );
  container.append(element('h3', {}, 'Candidate steps'), list);
}

/** Renders the panel for a trace with (or, before any analysis, without) a verdict. */
export function renderVerdict(
  container: HTMLElement,
  trace: Trace,
  traceName: string,
  analysis: Analysis | null,
  match: LabelMatch | null,
  siblings: readonly Analysis[],
  actions: VerdictActions,
): void {
  container.replaceChildren();
  const result = analysis?.result ?? null;
  appendVerdictHeader(container, trace, result, actions);
  appendLabel(container, trace, match, actions);
  if (analysis && result) {
    container.append(element('p', { class: 'reason' }, result.reason));
    for (const warning of result.warnings ?? [])
      container.append(element('p', { class: 'warning' }, warning));
    appendModes(container, result);
    appendCandidates(container, result, actions);
    appendUsageAndExport(container, trace, traceName, analysis, result);
  }
  appendCompare(container, analysis, siblings, actions);
  container.append(teachForm(trace, result, actions));
}
