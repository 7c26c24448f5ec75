/**
 * The Runs view's tasks: the stored runs grouped by the task they are runs of (declared with
 * `x-faultline-task` or `faultline.task`, else a fingerprint of the task text), each with its runs
 * counted by outcome and a link to its task view (task-view.ts).
 */
import type { TaskSummary, TasksResponse } from './api.js';
import { element, table } from './dom.js';
import { taskPath } from './routes.js';

/** A link to a task's view (followed without a reload by the page's route listener). */
export const taskLink = (task: string, text = task) =>
  element('a', { href: taskPath(task), 'data-route': '', class: 'task-link', title: task }, text);

function taskLine(entry: TaskSummary): HTMLTableRowElement {
  return element(
    'tr',
    { 'data-task': entry.task },
    element('td', {}, taskLink(entry.task)),
    ...[entry.runs, entry.failed, entry.passed, entry.unknown].map((count) =>
      element('td', {}, String(count)),
    ),
    element('td', {}, new Date(entry.latestAt).toLocaleString()),
  );
}

/** The tasks table, or a line saying there are none yet. */
export function taskTable(answer: TasksResponse): HTMLElement {
  if (answer.tasks.length === 0) return element('p', { class: 'meta' }, 'No run names a task yet.');
  const body = element('tbody', {}, ...answer.tasks.map(taskLine));
  const tasks = table(['task', 'runs', 'failed', 'passed', 'no outcome', 'latest run'], body);
  tasks.id = 'runs-tasks';
  return answer.total > answer.tasks.length
    ? element(
        'div',
        {},
        tasks,
        element(
          'p',
          { class: 'meta' },
          `The ${answer.tasks.length} tasks run most recently of ${answer.total}.`,
        ),
      )
    : tasks;
}
