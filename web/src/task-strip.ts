/**
 * A task's runs over time as a strip of small marks, oldest first: red for a failed run, green for
 * a passed one, grey for one without an outcome, the failed run studied outlined. Each mark links to
 * its run in the Analyse view (the studied run's with its suspicious steps marked there), and says
 * what it is to a screen reader and on hover.
 */
import type { TaskRun } from './api.js';
import { element } from './dom.js';
import { withSuspicious } from './routes.js';

const OUTCOME_TEXT: Record<TaskRun['outcome'], string> = {
  failure: 'failed',
  success: 'passed',
  unknown: 'no outcome',
};

function mark(run: TaskRun, studied: boolean, suspicious: readonly number[]): HTMLLIElement {
  const text = `${run.name || run.runId}: ${OUTCOME_TEXT[run.outcome]}, ${new Date(run.createdAt).toLocaleString()}${studied ? ' (studied below)' : ''}`;
  return element(
    'li',
    {},
    element('a', {
      href: withSuspicious(`/traces/${encodeURIComponent(run.traceId)}`, studied ? suspicious : []),
      'data-route': '',
      'data-run': run.runId,
      class: `run-mark ${run.outcome}${studied ? ' studied' : ''}`,
      title: text,
      'aria-label': text,
    }),
  );
}

/**
 * The strip of a task's runs (oldest first), with a legend; the `studied` run's mark links to it
 * with its `suspicious` steps (most suspicious first).
 */
export function runStrip(
  runs: readonly TaskRun[],
  studied: string | undefined,
  suspicious: readonly number[] = [],
): HTMLElement {
  return element(
    'div',
    { class: 'run-strip-box' },
    element(
      'ol',
      { id: 'task-strip', class: 'run-strip', 'aria-label': 'runs over time, oldest first' },
      ...runs.map((run) => mark(run, run.runId === studied, suspicious)),
    ),
    element(
      'p',
      { class: 'meta' },
      'Oldest first · red: failed · green: passed · grey: no outcome · outlined: the failed run studied',
    ),
  );
}

/** "8 runs: 4 failed, 3 passed, 1 without an outcome", and how many the store holds beyond them. */
export function runsLine(runs: readonly TaskRun[], total: number): string {
  const count = (outcome: TaskRun['outcome']) =>
    runs.filter((run) => run.outcome === outcome).length;
  const unknown = count('unknown');
  const read = `${runs.length} ${runs.length === 1 ? 'run' : 'runs'}: ${count('failure')} failed, ${count('success')} passed${unknown > 0 ? `, ${unknown} without an outcome` : ''}`;
  return total > runs.length ? `${read} (the latest ${runs.length} of ${total})` : read;
}
