/**
 * A task's view (`/tasks/:task?failed=RUN`): its runs over time as a pass/fail strip, the spectrum
 * of its runs (docs/SPECTRUM.md) as a table of units, whether the runs vary enough to conclude and
 * why not, and one failed run's steps with the suspicious ones marked: the run asked for, else the
 * latest failing run; another failed run can be chosen.
 */
import type { TaskResponse, TaskSpectrum, Trace } from './api.js';
import { element } from './dom.js';
import { taskPath } from './routes.js';
import { runStrip, runsLine } from './task-strip.js';
import { studiedSteps, suspiciousSteps } from './task-steps.js';
import { departureList, unitTable } from './task-units.js';

/** What the view needs from the page. */
export interface TaskViewActions {
  load(task: string, failed?: string): Promise<TaskResponse>;
  trace(id: string): Promise<Trace>;
  navigate(path: string): void;
}

/** Whether the spectrum concludes, what it names, and every caveat the library gave. */
function conclusion(spectrum: TaskSpectrum): HTMLElement {
  const named = spectrum.verdict
    ? `The spectrum points at ${spectrum.verdict.agent}, step ${spectrum.verdict.step} of ${spectrum.failed.runId}.`
    : 'The spectrum names no step.';
  return element(
    'div',
    {
      id: 'task-conclusion',
      class: `task-conclusion ${spectrum.conclusive ? 'conclusive' : 'inconclusive'}`,
      role: 'note',
    },
    element(
      'p',
      {},
      spectrum.conclusive
        ? named
        : `Not conclusive: the runs do not single out one agent. ${named.replace('points at', 'leans to')}`,
    ),
    spectrum.notes.length > 0
      ? element('ul', {}, ...spectrum.notes.map((note) => element('li', {}, note)))
      : null,
  );
}

/** A choice of the failed run to study, among the runs read. */
function failedChoice(answer: TaskResponse, actions: TaskViewActions): HTMLElement | null {
  const failed = answer.runs.filter((run) => run.outcome === 'failure');
  if (failed.length < 2) return null;
  const select = element(
    'select',
    { id: 'task-failed' },
    ...failed
      .slice()
      .reverse()
      .map((run) =>
        element(
          'option',
          {
            value: run.runId,
            ...(run.runId === answer.spectrum?.failed.runId ? { selected: '' } : {}),
          },
          `${run.name || run.runId} (${new Date(run.createdAt).toLocaleString()})`,
        ),
      ),
  );
  select.addEventListener('change', () => actions.navigate(taskPath(answer.task, select.value)));
  return element('label', { class: 'inline' }, 'Study another failed run ', select);
}

/** The latest render asked for: an older answer arriving after it is dropped. */
let rendering = 0;

/** Renders the view of task `task`, studying failed run `failed` when given. */
export async function renderTaskView(
  container: HTMLElement,
  task: string,
  failed: string | undefined,
  actions: TaskViewActions,
): Promise<void> {
  rendering += 1;
  const ticket = rendering;
  container.replaceChildren(element('p', { class: 'meta' }, `Comparing the runs of ${task}…`));
  const answer = await actions.load(task, failed);
  const { spectrum } = answer;
  const trace = spectrum ? await actions.trace(spectrum.failed.traceId) : undefined;
  if (ticket !== rendering) return;
  const head = [
    element('h2', {}, 'Task ', element('code', {}, task)),
    element('p', { class: 'meta', id: 'task-status' }, runsLine(answer.runs, answer.total)),
    runStrip(answer.runs, spectrum?.failed.runId, spectrum ? suspiciousSteps(spectrum) : []),
  ];
  if (!spectrum || !trace) {
    container.replaceChildren(
      ...head,
      element('p', { class: 'warning', id: 'task-unavailable' }, answer.unavailable ?? ''),
    );
    return;
  }
  const sections = [
    ...head,
    conclusion(spectrum),
    element('h3', {}, 'Units of the runs, most suspicious first'),
    unitTable(spectrum),
    departureList(spectrum),
    element('h3', {}, `Failed run ${spectrum.failed.runId}: its suspicious steps`),
    failedChoice(answer, actions),
    studiedSteps(spectrum, trace),
  ];
  container.replaceChildren(...sections.filter((node) => node !== null));
}
