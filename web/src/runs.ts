/**
 * Runs: runs recorded by the proxy or received as OpenTelemetry spans, newest first, as they
 * arrive (the first page refreshes every few seconds), with how each ended and its latest verdict
 * and failure modes (or, for spans no reader knows, why they were not read) and the task it is a run
 * of; below them, the tasks with their runs counted by outcome (each opens its task view), and the
 * agents blamed most for failed runs this week against last. A run opens in the analysis view (its
 * verdict, or its trace when it has none).
 */
import type { AgentBlame, BlameResponse, RunRecord, RunsResponse, TasksResponse } from './api.js';
import { element, table } from './dom.js';
import { pager } from './pager.js';
import { taskLink, taskTable } from './task-list.js';

/** What the view can ask the page to do. */
export interface RunsActions {
  navigate(path: string): void;
  load(page: { offset?: number }): Promise<RunsResponse>;
  blame(): Promise<BlameResponse>;
  tasks(): Promise<TasksResponse>;
}

/** How often the first page is fetched again while it is on screen, in ms. */
const REFRESH_MS = 3000;

const OUTCOME_TEXT: Record<RunRecord['outcome'], string> = {
  failure: 'failed',
  success: 'passed',
  unknown: '—',
};

/** Where a run came from: spans (an OTLP importer's format) or the recording proxy. */
const SPAN_FORMATS = new Set([
  'ai-sdk',
  'voltagent',
  'otel',
  'openinference',
  'openai-agents',
  'langfuse',
  'collector-rows',
]);
const sourceOf = (run: RunRecord) =>
  run.unreadable !== null
    ? 'spans (unreadable)'
    : SPAN_FORMATS.has(run.format)
      ? `spans (${run.format})`
      : 'proxy';

function runLine(run: RunRecord, actions: RunsActions): HTMLTableRowElement {
  const path = run.verdict ? `/analyses/${run.verdict.analysisId}` : `/traces/${run.traceId}`;
  const link = element('a', { href: path }, run.name || run.runId);
  link.addEventListener('click', (event) => {
    event.preventDefault();
    actions.navigate(path);
  });
  // A run whose spans no reader knows says why, where its verdict would be.
  const verdict =
    run.unreadable !== null
      ? `not read: ${run.unreadable}`
      : run.verdict
        ? run.verdict.agent === null
          ? 'none'
          : `${run.verdict.agent} @ ${run.verdict.step ?? '?'}`
        : run.outcome === 'failure'
          ? 'attributing…'
          : '—';
  const cells = [
    sourceOf(run),
    String(run.steps),
    OUTCOME_TEXT[run.outcome],
    verdict,
    run.verdict?.modes.length ? run.verdict.modes.map((code) => `FM-${code}`).join(', ') : '—',
    new Date(run.updatedAt).toLocaleString(),
  ];
  return element(
    'tr',
    {
      class:
        run.unreadable !== null ? 'unreadable-run' : run.outcome === 'failure' ? 'failed-run' : '',
      'data-run': run.runId,
      ...(run.unreadable !== null ? { title: run.unreadable } : {}),
    },
    element('td', {}, link),
    element('td', {}, run.task === null ? '—' : taskLink(run.task, shortTask(run.task))),
    ...cells.map((text) => element('td', {}, text)),
  );
}

/** A task name cut to fit its cell (the link's title and the task view show it whole). */
const shortTask = (task: string) => (task.length > 40 ? `${task.slice(0, 39)}…` : task);

const change = (row: AgentBlame) => {
  const delta = row.thisWeek - row.lastWeek;
  return delta === 0 ? '=' : delta > 0 ? `+${delta}` : String(delta);
};

function blameTable(agents: AgentBlame[]): HTMLElement {
  if (agents.length === 0)
    return element('p', { class: 'meta' }, 'No failed run was attributed in the last two weeks.');
  const body = element(
    'tbody',
    {},
    ...agents.map((row) =>
      element(
        'tr',
        {},
        element('td', {}, row.agent),
        element('td', {}, String(row.thisWeek)),
        element('td', {}, String(row.lastWeek)),
        element('td', {}, change(row)),
      ),
    ),
  );
  const blame = table(['agent', 'this week', 'last week', 'change'], body);
  blame.id = 'runs-blame';
  return blame;
}

/** Timer of the view on screen; a new render stops the old one. */
let refresh: ReturnType<typeof setInterval> | undefined;

/** Renders the Runs view; its first page refreshes while the view is shown. */
export async function renderRuns(container: HTMLElement, actions: RunsActions): Promise<void> {
  clearInterval(refresh);
  const heading = element('h2', {}, 'Runs');
  const blameHeading = element('h3', {}, 'Blamed for failed runs');
  const blameSlot = element('div', { id: 'runs-blame-slot' });
  const tasksHeading = element('h3', {}, 'Tasks');
  const tasksSlot = element('div', { id: 'runs-tasks-slot' });
  const status = element('p', { class: 'meta', role: 'status', id: 'runs-status' });
  const body = element('tbody', { id: 'runs-body' });
  let offset = 0;
  const paging = pager('Run pages', (wanted) => void load(wanted));
  const fill = (page: RunsResponse) => {
    body.replaceChildren(...page.runs.map((run) => runLine(run, actions)));
    status.textContent =
      page.total === 0
        ? 'No runs yet: point an OpenTelemetry exporter at /v1/traces, or record calls with faultline proxy.'
        : `${page.total} ${page.total === 1 ? 'run' : 'runs'}`;
    paging.show(page, page.runs.length);
  };
  let requested = 0;
  const load = async (wanted: number) => {
    requested += 1;
    const ticket = requested;
    const [page, blame, tasks] = await Promise.all([
      actions.load({ offset: wanted }),
      actions.blame(),
      // The tasks' table is a summary: when it cannot be read, the runs still show.
      actions.tasks().catch(() => undefined),
    ]);
    if (ticket !== requested) return;
    offset = wanted;
    fill(page);
    blameSlot.replaceChildren(blameTable(blame.agents));
    if (tasks) tasksSlot.replaceChildren(taskTable(tasks));
  };
  container.replaceChildren(
    heading,
    status,
    table(['run', 'task', 'source', 'steps', 'outcome', 'verdict', 'modes', 'updated'], body),
    paging.element,
    tasksHeading,
    tasksSlot,
    blameHeading,
    blameSlot,
  );
  await load(0);
  refresh = setInterval(() => {
    // Only while the view is on screen, and only the first page: later pages stay put.
    if (!container.isConnected || container.closest('[hidden]')) {
      clearInterval(refresh);
      return;
    }
    if (offset === 0) void load(0).catch(() => undefined);
  }, REFRESH_MS);
}
