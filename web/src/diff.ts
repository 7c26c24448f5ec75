/**
 * The two-column diff of a failed run against a passing run of the same task (`/diff?failed=ID&
 * passed=ID`): the divergence with both steps quoted, then the runs aligned row by row, each step
 * beside its counterpart, steps only one run has beside a gap. The trace view's "Compare with…"
 * control opens it with the open run as the failed one; the view can swap the two.
 */
import type { AlignedPair, DiffResponse, HistoryRow, Step, Trace, TracesResponse } from './api.js';
import { element } from './dom.js';

/** What the view needs from the page. */
export interface DiffActions {
  navigate(path: string): void;
}

/** The view's path for two stored traces. */
export const diffPath = (failed: string, passed: string) =>
  `/diff?failed=${encodeURIComponent(failed)}&passed=${encodeURIComponent(passed)}`;

const STATUS_TEXT: Record<AlignedPair['status'], string> = {
  same: 'alike',
  reworded: 'reworded',
  changed: 'changed',
  inserted: 'only in the failed run',
  missing: 'only in the passing run',
};
const STATUS_MARK: Record<AlignedPair['status'], string> = {
  same: '=',
  reworded: '~',
  changed: '≠',
  inserted: '+',
  missing: '−',
};

/** Characters of a step shown in a cell. */
const CELL_TEXT = 600;

function cell(step: Step | undefined, side: 'failed' | 'passed'): HTMLElement {
  if (!step) return element('div', { class: `diff-cell ${side} gap`, role: 'cell' }, '—');
  const text =
    step.content.length > CELL_TEXT ? `${step.content.slice(0, CELL_TEXT)}…` : step.content;
  const calls = (step.toolCalls ?? [])
    .filter((call) => !step.content.includes(`${call.name}(`))
    .map((call) => `→ ${call.name}(${call.arguments})`)
    .join('\n');
  return element(
    'div',
    { class: `diff-cell ${side} role-${step.role}`, role: 'cell' },
    element(
      'div',
      { class: 'step-head' },
      element('span', { class: 'index' }, `#${step.index}`),
      element('span', { class: 'agent' }, step.agent),
    ),
    element('pre', {}, text),
    calls ? element('pre', { class: 'tool-calls' }, calls) : null,
  );
}

/** The divergence with both steps quoted, or that there is none. */
function divergenceSummary(divergence: DiffResponse['diff']['divergence']): HTMLElement {
  return divergence
    ? element(
        'div',
        { class: 'diff-summary' },
        element(
          'p',
          { class: 'verdict' },
          'Diverges at step ',
          element('strong', {}, String(divergence.failedStep)),
          ' (',
          element('strong', { class: 'agent' }, divergence.agent),
          `): ${divergence.detail}.`,
        ),
        element(
          'div',
          { class: 'diff-quotes' },
          element(
            'blockquote',
            { class: 'failed' },
            element('span', { class: 'meta' }, `failed, step ${divergence.failedStep}`),
            element('q', {}, divergence.failed),
          ),
          element(
            'blockquote',
            { class: 'passed' },
            element(
              'span',
              { class: 'meta' },
              divergence.passedStep === null
                ? 'passing run'
                : `passing, step ${divergence.passedStep}`,
            ),
            divergence.passedStep === null
              ? element('span', { class: 'meta' }, 'no such step')
              : element('q', {}, divergence.passed),
          ),
        ),
      )
    : element(
        'p',
        { class: 'verdict diff-summary' },
        'No divergence: the failed run does not differ in substance from the passing one.',
      );
}

/** Renders the diff of `failed` against `passed` into `container`. */
export function renderDiffView(
  container: HTMLElement,
  answer: DiffResponse,
  failed: Trace,
  passed: Trace,
  actions: DiffActions,
): void {
  const { diff } = answer;
  const link = (text: string, path: string) => {
    const anchor = element('a', { href: path, 'data-route': '' }, text);
    return anchor;
  };
  const divergence = diff.divergence;
  const summary = divergenceSummary(divergence);
  const swap = element('button', { type: 'button' }, 'Swap runs');
  swap.addEventListener('click', () => actions.navigate(diffPath(diff.passed.id, diff.failed.id)));
  const { counts } = diff;
  const header = element(
    'div',
    { class: 'diff-header' },
    element('h2', {}, 'Where the runs part'),
    element(
      'p',
      { class: 'meta' },
      'Failed: ',
      link(diff.failed.name, `/traces/${encodeURIComponent(diff.failed.id)}`),
      ` (${diff.failed.steps} steps) · passing: `,
      link(diff.passed.name, `/traces/${encodeURIComponent(diff.passed.id)}`),
      ` (${diff.passed.steps} steps) · ${counts.same} alike, ${counts.reworded} reworded, ${counts.changed} changed, ${counts.inserted} inserted, ${counts.missing} missing`,
      diff.banded ? ' · long runs: aligned within a band around the diagonal' : '',
    ),
    swap,
    summary,
  );

  const rows = element('div', { class: 'diff-rows', role: 'table', 'aria-label': 'aligned steps' });
  rows.append(
    element(
      'div',
      { class: 'diff-row head', role: 'row' },
      element('div', { role: 'columnheader' }, 'failed run'),
      element('div', { role: 'columnheader', class: 'diff-mark' }, ''),
      element('div', { role: 'columnheader' }, 'passing run'),
    ),
  );
  let divergent: HTMLElement | undefined;
  for (const [index, pair] of diff.pairs.entries()) {
    const isDivergence = index === diff.divergencePair;
    const title = `${STATUS_TEXT[pair.status]}${pair.aspects ? `: ${pair.aspects.join(', ')}` : ''}`;
    const row = element(
      'div',
      {
        class: `diff-row ${pair.status}${isDivergence ? ' divergence' : ''}`,
        role: 'row',
        ...(pair.failed !== null ? { 'data-failed': String(pair.failed) } : {}),
        ...(pair.passed !== null ? { 'data-passed': String(pair.passed) } : {}),
      },
      cell(pair.failed === null ? undefined : failed.steps[pair.failed], 'failed'),
      element(
        'div',
        { class: 'diff-mark', role: 'cell', title, 'aria-label': title },
        STATUS_MARK[pair.status],
      ),
      cell(pair.passed === null ? undefined : passed.steps[pair.passed], 'passed'),
    );
    if (isDivergence) divergent = row;
    rows.append(row);
  }
  container.replaceChildren(header, rows);
  divergent?.scrollIntoView({ block: 'center' });
}

/**
 * The "Compare with…" control of a trace view: other stored traces (searchable, newest first)
 * to open the diff with, the open trace as the failed run.
 */
export function compareControl(
  traceId: string,
  list: (query: { q?: string; limit: number }) => Promise<TracesResponse>,
  actions: DiffActions,
): HTMLElement {
  const search = element('input', {
    type: 'search',
    placeholder: 'find a passing run',
    'aria-label': 'find a passing run to compare with',
  });
  const choices = element('ul', { class: 'compare-list' });
  const status = element('p', { class: 'meta' });
  const show = async () => {
    const query = search.value.trim();
    const { traces, total } = await list({ limit: 20, ...(query ? { q: query } : {}) });
    const others = traces.filter((row: HistoryRow) => row.id !== traceId);
    choices.replaceChildren(
      ...others.map((row) => {
        const button = element(
          'button',
          { type: 'button', class: 'link' },
          `${row.name} (${row.steps} steps, ${row.format})`,
        );
        button.addEventListener('click', () => actions.navigate(diffPath(traceId, row.id)));
        return element('li', {}, button);
      }),
    );
    status.textContent =
      others.length === 0
        ? 'No other stored run: load the passing run first.'
        : total > traces.length
          ? `The ${traces.length} newest of ${total}; search for others.`
          : 'Pick the passing run of the same task.';
  };
  const panel = element(
    'details',
    { class: 'compare' },
    element('summary', {}, 'Compare with…'),
    search,
    status,
    choices,
  );
  panel.addEventListener('toggle', () => {
    if (panel.open) void show().catch((error: unknown) => (status.textContent = String(error)));
  });
  search.addEventListener('input', () => void show().catch(() => undefined));
  return panel;
}
