/**
 * The tabs besides Analyse: History, Runs (and a task's view), Evaluations and the diff of two runs. Each renders
 * into its own section and reaches the rest of the page through `TabActions`.
 */
import { api } from './api.js';
import { renderDiffView } from './diff.js';
import { element } from './dom.js';
import { renderEvaluations } from './evaluations.js';
import { renderHistory } from './history.js';
import type { Route } from './routes.js';
import { renderRuns } from './runs.js';
import { renderTaskView } from './task-view.js';

/** What the tabs need from the page. */
export interface TabActions {
  navigate(path: string): Promise<void>;
  /** Trace `id` was deleted (from History). */
  removed(id: string): void;
  say(text: string): void;
  message(error: unknown): string;
}

const byId = <Kind extends HTMLElement>(id: string) => document.getElementById(id) as Kind;

/** Shows the route's tab; throws what its loading threw. */
export async function showTab(
  route: Exclude<Route, { tab: 'analyse' }>,
  actions: TabActions,
): Promise<void> {
  const navigate = (path: string) => void actions.navigate(path);
  if (route.tab === 'history')
    return await renderHistory(byId('history'), {
      navigate,
      remove: async (id) => {
        await api.remove(id);
        actions.removed(id);
      },
      load: (page) => api.history(page),
    });
  if (route.tab === 'runs')
    return await renderRuns(byId('runs'), {
      navigate,
      load: (page) => api.runs(page),
      blame: () => api.blame(),
      tasks: () => api.tasks(),
    });
  if (route.tab === 'task')
    return await renderTaskView(byId('task'), route.task, route.failed, {
      load: (task, failed) => api.task(task, failed),
      trace: async (id) => (await api.trace(id)).trace,
      navigate,
    });
  if (route.tab === 'evaluations') return await showEvaluations(route.id, actions);
  return await showDiff(route.failed, route.passed, navigate);
}

async function showDiff(
  failed: string,
  passed: string,
  navigate: (path: string) => void,
): Promise<void> {
  const container = byId<HTMLDivElement>('diff');
  container.replaceChildren(element('p', { class: 'meta' }, 'Aligning the runs…'));
  const [answer, failedTrace, passedTrace] = await Promise.all([
    api.diff(failed, passed),
    api.trace(failed),
    api.trace(passed),
  ]);
  renderDiffView(container, answer, failedTrace.trace, passedTrace.trace, { navigate });
}

async function showEvaluations(id: string | undefined, actions: TabActions): Promise<void> {
  await renderEvaluations(byId<HTMLDivElement>('evaluations'), id, {
    navigate: actions.navigate,
    open: async (evaluationId, index) => {
      const { analysis } = await api.openRecord(evaluationId, index).catch((error: unknown) => {
        throw new Error(actions.message(error));
      });
      await actions.navigate(`/analyses/${analysis.id}`);
      actions.say(`Opened ${analysis.traceName ?? 'the trace'} from the evaluation.`);
    },
  });
}
