/**
 * Wires the page: routes (every trace and analysis has its own URL), loading traces, running
 * analyses, navigating a run (timeline, agent filter, search, keyboard), teaching labels, history
 * and evaluations.
 */
import { api, type Analysis, type LabelMatch, type Trace } from './api.js';
import { agentPalette } from './colours.js';
import { filterConversation, markStep, renderConversation } from './conversation.js';
import { compareControl } from './diff.js';
import { element } from './dom.js';
import { evidenceLines, rangesOf, setHighlight } from './highlights.js';
import { listenForKeys } from './keys.js';
import { search, timelineMarks, type OpenTrace } from './open-trace.js';
import { listenForRoutes, parseRoute, switchTab, type Route } from './routes.js';
import {
  fillChoices,
  listenForUploads,
  loadedText,
  renderStart,
  uploadFiles,
} from './start-view.js';
import { showTab } from './tabs.js';
import { renderTimeline } from './timeline.js';
import { renderVerdict } from './verdict.js';
import { forPage } from './wording.js';
import './style.css';

const byId = <Kind extends HTMLElement>(id: string) => document.getElementById(id) as Kind;
const status = byId<HTMLParagraphElement>('status');
const conversation = byId<HTMLDivElement>('conversation');
const overview = byId<HTMLDivElement>('overview');
const resultPanel = byId<HTMLElement>('result');
const methodSelect = byId<HTMLSelectElement>('method');
const formatSelect = byId<HTMLSelectElement>('format');
const modelRow = byId<HTMLLabelElement>('model-row');
const modelInput = byId<HTMLInputElement>('model');
const groundTruth = byId<HTMLInputElement>('ground-truth');
const runButton = byId<HTMLButtonElement>('run');
const agentFilter = byId<HTMLSelectElement>('agent-filter');
const searchInput = byId<HTMLInputElement>('search');
const searchCount = byId<HTMLSpanElement>('search-count');

let current: OpenTrace | undefined;

const message = (error: unknown) => forPage(error instanceof Error ? error.message : String(error));

function say(text: string, kind: 'info' | 'error' = 'info'): void {
  status.textContent = text;
  status.className = kind;
}

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
          if (current?.id === id) clearAnalyse();
        },
        say,
        message,
      });
    if (route.analysisId) {
      const { analysis, match } = await api.analysis(route.analysisId);
      await openTrace(analysis.traceId);
      await showAnalysis(analysis, match);
    } else if (route.traceId) {
      await openTrace(route.traceId);
      await showAnalysis(null, null);
    } else {
      await showStart();
    }
  } catch (error) {
    if (route.tab === 'analyse') {
      clearAnalyse();
      say(message(error), 'error');
    } else {
      // The status line lives on the Analyse tab: say it where the reader is.
      byId(route.tab).replaceChildren(element('p', { class: 'warning' }, message(error)));
    }
  }
}

// ---------------------------------------------------------------- the analyse view

/** Removes the trace and verdict from the screen, so nothing stale stays after an error. */
function clearAnalyse(): void {
  current = undefined;
  conversation.replaceChildren();
  resultPanel.replaceChildren();
  overview.hidden = true;
  runButton.disabled = true;
  setHighlight('evidence', []);
  setHighlight('search', []);
}

async function showStart(): Promise<void> {
  clearAnalyse();
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
  const { trace } = await api.trace(id);
  renderTrace(id, trace);
}

function renderTrace(id: string, trace: Trace): void {
  const colourOf = agentPalette(trace.steps.map((step) => step.agent));
  const view = renderConversation(conversation, trace, colourOf);
  const timeline = renderTimeline(byId('timeline'), trace, colourOf, view.errors, (step) =>
    openStep(step),
  );
  agentFilter.replaceChildren(element('option', { value: '' }, 'all agents'));
  for (const agent of trace.agents)
    agentFilter.append(element('option', { value: agent.name }, `${agent.name} (${agent.steps})`));
  searchInput.value = '';
  searchCount.textContent = '';
  byId('compare').replaceChildren(
    compareControl(id, (page) => api.history(page), { navigate: (path) => void navigate(path) }),
  );
  overview.hidden = false;
  current = {
    id,
    trace,
    view,
    timeline,
    analysis: null,
    match: null,
    siblings: [],
    cursor: null,
    matches: [],
    searchAt: -1,
  };
  runButton.disabled = false;
  conversation.scrollTop = 0;
}

/** Shows the verdict (or none) for the open trace, with the other analyses of the trace. */
async function showAnalysis(analysis: Analysis | null, match: LabelMatch | null): Promise<void> {
  if (!current) return;
  const open = current;
  open.analysis = analysis;
  open.match = match;
  open.siblings = (await api.analysesOf(open.id)).analyses;
  renderPanel();
  markStep(open.view, 'blamed', analysis?.result.step ?? null);
  const verdictStep = analysis?.result.step ?? null;
  if (verdictStep !== null) openStep(verdictStep);
  else markStep(open.view, 'focused', null);
  highlightEvidence();
}

function renderPanel(): void {
  if (!current) return;
  const open = current;
  const name = open.analysis?.traceName ?? open.siblings[0]?.traceName ?? open.trace.id;
  renderVerdict(resultPanel, open.trace, name, open.analysis, open.match, open.siblings, {
    open: openStep,
    navigate: (path) => void navigate(path),
    teach,
  });
  open.timeline.setMarks(timelineMarks(open));
}

/** Brings `step` into view and makes it the reader's position; the verdict keeps its mark. */
function openStep(step: number): void {
  if (!current) return;
  if (agentFilter.value && current.view.nodes.get(step)?.dataset.agent !== agentFilter.value) {
    agentFilter.value = '';
    applyFilter();
  }
  current.cursor = step;
  markStep(current.view, 'focused', step, true);
  current.timeline.setCurrent(step);
}

function highlightEvidence(): void {
  const open = current;
  const result = open?.analysis?.result;
  if (!open || !result) return setHighlight('evidence', []);
  const ranges: Range[] = [];
  for (const { step, quote } of evidenceLines(result)) {
    const node = open.view.nodes.get(step);
    if (node) ranges.push(...rangesOf(node, quote, 5));
  }
  setHighlight('evidence', ranges);
}

async function teach(label: { agent: string; step: number } | null): Promise<void> {
  if (!current) return;
  try {
    const { trace } = await api.setLabel(current.id, label);
    current.trace = trace;
    if (current.analysis) current.match = (await api.analysis(current.analysis.id)).match;
    for (const node of current.view.nodes.values())
      node.classList.toggle('labelled', Number(node.dataset.step) === trace.labels?.step);
    renderPanel();
    say(label ? `Saved your label: ${label.agent} at step ${label.step}.` : 'Cleared your label.');
  } catch (error) {
    say(message(error), 'error');
  }
}

// ---------------------------------------------------------------- loading and running

async function uploadAll(files: { body: string | Blob; name: string }[]): Promise<void> {
  say(files.length === 1 ? `Reading ${files[0]!.name}…` : `Reading ${files.length} files…`);
  const { loaded, failed } = await uploadFiles(files, formatSelect.value, message);
  if (loaded.length === 0) {
    clearAnalyse();
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
  const needsModel = method !== 'offline' && method !== 'first-agent';
  runButton.disabled = true;
  say(needsModel ? `Asking ${modelInput.value || 'the model'}…` : 'Attributing…');
  try {
    const { analysis } = await api.analyse(current.id, {
      method,
      useGroundTruth: groundTruth.checked,
      ...(needsModel && modelInput.value ? { model: modelInput.value.trim() } : {}),
    });
    await navigate(`/analyses/${analysis.id}`);
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

// ---------------------------------------------------------------- filter, search, keys

function applyFilter(): void {
  if (!current) return;
  const agent = agentFilter.value || null;
  filterConversation(current.view, agent);
  current.timeline.setFilter(agent);
  runSearch();
}

function runSearch(): void {
  if (!current) return;
  const open = current;
  searchCount.textContent = search(open, searchInput.value.trim().toLowerCase());
}

function stepSearch(direction: 1 | -1): void {
  const open = current;
  if (!open || open.matches.length === 0) return;
  open.searchAt = (open.searchAt + direction + open.matches.length) % open.matches.length;
  openStep(open.matches[open.searchAt]!);
  searchCount.textContent = `${open.searchAt + 1} of ${open.matches.length}`;
}

// ---------------------------------------------------------------- start

async function start(): Promise<void> {
  // Every control listens before the first await: a file chosen while the method list loads is
  // taken, not lost.
  methodSelect.addEventListener('change', () => {
    modelRow.hidden = methodSelect.value === 'offline' || methodSelect.value === 'first-agent';
  });
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
