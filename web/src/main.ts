/**
 * Wires the page: routes (every trace and analysis has its own URL), loading traces, running
 * analyses, the keyboard, history and evaluations. The open trace (timeline, agent filter, search,
 * the verdict, teaching labels) is analyse-view.ts.
 */
import {
  agentFilter,
  applyFilter,
  clearAnalyse,
  conversation,
  current,
  openStep,
  renderTrace,
  resultPanel,
  runButton,
  runSearch,
  searchInput,
  showAnalysis,
  stepSearch,
  type AnalyseActions,
} from './analyse-view.js';
import { api } from './api.js';
import { markStep } from './conversation.js';
import { element } from './dom.js';
import { listenForKeys } from './keys.js';
import { listenForRoutes, parseRoute, switchTab, withSuspicious, type Route } from './routes.js';
import {
  asksModel,
  fillChoices,
  listenForUploads,
  loadedText,
  offerTaskMethods,
  renderStart,
  uploadFiles,
} from './start-view.js';
import { showTab } from './tabs.js';
import { forPage } from './wording.js';
import './style.css';

const byId = <Kind extends HTMLElement>(id: string) => document.getElementById(id) as Kind;
const status = byId<HTMLParagraphElement>('status');
const methodSelect = byId<HTMLSelectElement>('method');
const formatSelect = byId<HTMLSelectElement>('format');
const modelRow = byId<HTMLLabelElement>('model-row');
const modelInput = byId<HTMLInputElement>('model');
const groundTruth = byId<HTMLInputElement>('ground-truth');

const message = (error: unknown) => forPage(error instanceof Error ? error.message : String(error));

function say(text: string, kind: 'info' | 'error' = 'info'): void {
  status.textContent = text;
  status.className = kind;
}

/** What the Analyse view reaches the page through. */
const actions: AnalyseActions = { navigate, say, message };

// ---------------------------------------------------------------- routes

/** Goes to `path` (a new history entry unless `replace`) and shows it. */
async function navigate(path: string, replace = false): Promise<void> {
  if (path !== location.pathname + location.search) {
    if (replace) history.replaceState(null, '', path);
    else history.pushState(null, '', path);
  }
  await show(parseRoute(path));
}

async function show(route: Route): Promise<void> {
  switchTab(route.tab);
  try {
    if (route.tab !== 'analyse')
      return await showTab(route, {
        navigate,
        removed: (id) => {
          if (current?.id === id) clearTrace();
        },
        say,
        message,
      });
    if (route.analysisId) {
      const { analysis, match } = await api.analysis(route.analysisId);
      await openTrace(analysis.traceId);
      await showAnalysis(analysis, match, actions, route.suspicious);
    } else if (route.traceId) {
      await openTrace(route.traceId);
      await showAnalysis(null, null, actions, route.suspicious);
    } else {
      await showStart();
    }
  } catch (error) {
    if (route.tab === 'analyse') {
      clearTrace();
      say(message(error), 'error');
    } else {
      // The status line lives on the Analyse tab: say it where the reader is.
      byId(route.tab).replaceChildren(element('p', { class: 'warning' }, message(error)));
    }
  }
}

async function showStart(): Promise<void> {
  clearTrace();
  const { examples } = await api.examples();
  renderStart(conversation, resultPanel, examples, (example) => {
    say(`Loading ${example.title}…`);
    void api
      .loadExample(example.name)
      .then(({ traces }) => navigate(`/traces/${traces[0]!.id}`))
      .then(() => say(`Loaded ${example.title}. Press Attribute.`))
      .catch((error: unknown) => say(message(error), 'error'));
  });
  say('Load a trace to begin.');
}

/** Shows trace `id` (kept when it is already on screen). */
async function openTrace(id: string): Promise<void> {
  if (current?.id === id) return;
  const { trace, run } = await api.trace(id);
  renderTrace(id, trace, actions);
  // A task's methods compare the run with the task's other runs: offered where there are some.
  offerTaskMethods(methodSelect, run && run.taskRuns > 1 ? run.task : null);
  showModelRow();
}

/** No trace open: the Analyse view cleared, and the menu without a task's methods. */
function clearTrace(): void {
  clearAnalyse();
  offerTaskMethods(methodSelect, null);
  showModelRow();
}

/** The model box, for a method that asks an LLM. */
function showModelRow(): void {
  modelRow.hidden = !asksModel(methodSelect);
}

// ---------------------------------------------------------------- loading and running

async function uploadAll(files: { body: string | Blob; name: string }[]): Promise<void> {
  say(files.length === 1 ? `Reading ${files[0]!.name}…` : `Reading ${files.length} files…`);
  const { loaded, failed } = await uploadFiles(files, formatSelect.value, message);
  if (loaded.length === 0) {
    clearTrace();
    history.replaceState(null, '', '/');
    say(failed.join(' · '), 'error');
    return;
  }
  await navigate(`/traces/${loaded[0]!.id}`);
  say(loadedText(loaded, failed), failed.length > 0 ? 'error' : 'info');
}

async function analyse(): Promise<void> {
  if (!current) return;
  const method = methodSelect.value;
  const needsModel = asksModel(methodSelect);
  // The task's suspicious steps stay marked beside the new verdict.
  const { suspicious } = current;
  runButton.disabled = true;
  say(needsModel ? `Asking ${modelInput.value || 'the model'}…` : 'Attributing…');
  try {
    const { analysis } = await api.analyse(current.id, {
      method,
      useGroundTruth: groundTruth.checked,
      ...(needsModel && modelInput.value ? { model: modelInput.value.trim() } : {}),
    });
    await navigate(withSuspicious(`/analyses/${analysis.id}`, suspicious));
    say(`Done in ${analysis.milliseconds.toFixed(0)} ms.`);
  } catch (error) {
    // The old verdict must not pass for this run's.
    if (current) {
      current.analysis = null;
      current.match = null;
      markStep(current.view, 'blamed', null);
      resultPanel.replaceChildren(
        element('h2', {}, 'Attribution'),
        element('p', { class: 'warning' }, message(error)),
      );
    }
    say(message(error), 'error');
  } finally {
    runButton.disabled = current === undefined;
  }
}

// ---------------------------------------------------------------- start

async function start(): Promise<void> {
  // Every control listens before the first await: a file chosen while the method list loads is
  // taken, not lost.
  methodSelect.addEventListener('change', showModelRow);
  runButton.addEventListener('click', () => void analyse());
  listenForUploads(byId, (files) => void uploadAll(files), say);
  agentFilter.addEventListener('change', applyFilter);
  searchInput.addEventListener('input', runSearch);
  searchInput.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') stepSearch(event.shiftKey ? -1 : 1);
  });
  byId('search-next').addEventListener('click', () => stepSearch(1));
  byId('search-prev').addEventListener('click', () => stepSearch(-1));
  byId('shortcuts-help').addEventListener('click', () => {
    byId('shortcuts').hidden = !byId('shortcuts').hidden;
  });
  listenForKeys({ open: () => current, openStep, searchInput });
  // The skip link moves focus itself: a fragment change would be taken for a new route.
  document.querySelector('a.skip')!.addEventListener('click', (event) => {
    event.preventDefault();
    resultPanel.focus();
  });
  listenForRoutes(
    (path) => void navigate(path),
    (path) => void show(parseRoute(path)),
  );
  fillChoices(methodSelect, formatSelect, await api.methods());
  await show(parseRoute(location.pathname + location.search));
}

void start().catch((error: unknown) => say(message(error), 'error'));
