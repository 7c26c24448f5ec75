/**
 * Wires the page: routes (every trace and analysis has its own URL), loading traces, running
 * analyses, navigating a run (timeline, agent filter, search, keyboard), teaching labels, history
 * and evaluations.
 */
import { api, type Analysis, type LabelMatch, type Trace } from './api.js';
import { agentPalette } from './colours.js';
import {
  callText,
  filterConversation,
  markStep,
  renderConversation,
  type ConversationView,
} from './conversation.js';
import { compareControl, renderDiffView } from './diff.js';
import { element } from './dom.js';
import { renderEvaluations } from './evaluations.js';
import { evidenceLines, rangesOf, setHighlight } from './highlights.js';
import { renderHistory } from './history.js';
import { renderRuns } from './runs.js';
import { renderTimeline, type TimelineMark, type TimelineView } from './timeline.js';
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

/** The trace on screen and what the reader is doing with it. */
interface OpenTrace {
  id: string;
  trace: Trace;
  view: ConversationView;
  timeline: TimelineView;
  analysis: Analysis | null;
  /** How the analysis compares with the trace's label. */
  match: LabelMatch | null;
  /** Every analysis of this trace, newest first (compare). */
  siblings: Analysis[];
  cursor: number | null;
  /** Steps matching the search, and which of them the reader is at. */
  matches: number[];
  searchAt: number;
}
let current: OpenTrace | undefined;

const message = (error: unknown) => forPage(error instanceof Error ? error.message : String(error));

function say(text: string, kind: 'info' | 'error' = 'info'): void {
  status.textContent = text;
  status.className = kind;
}

// ---------------------------------------------------------------- routes

type Route =
  | { tab: 'analyse'; traceId?: string; analysisId?: string }
  | { tab: 'history' }
  | { tab: 'runs' }
  | { tab: 'evaluations'; id?: string }
  | { tab: 'diff'; failed: string; passed: string };

function parseRoute(path: string): Route {
  const [pathname = '', search = ''] = path.split('?');
  const [, first, second] = pathname.split('/').map(decodeURIComponent);
  if (first === 'diff') {
    const parameters = new URLSearchParams(search);
    return {
      tab: 'diff',
      failed: parameters.get('failed') ?? '',
      passed: parameters.get('passed') ?? '',
    };
  }
  if (first === 'traces' && second) return { tab: 'analyse', traceId: second };
  if (first === 'analyses' && second) return { tab: 'analyse', analysisId: second };
  if (first === 'history') return { tab: 'history' };
  if (first === 'runs') return { tab: 'runs' };
  if (first === 'evaluations')
    return second ? { tab: 'evaluations', id: second } : { tab: 'evaluations' };
  return { tab: 'analyse' };
}

/** Goes to `path` (a new history entry unless `replace`) and shows it. */
async function navigate(path: string, replace = false): Promise<void> {
  if (path !== location.pathname + location.search) {
    if (replace) history.replaceState(null, '', path);
    else history.pushState(null, '', path);
  }
  await show(parseRoute(path));
}

function switchTab(name: Route['tab']): void {
  for (const link of document.querySelectorAll<HTMLAnchorElement>('nav a')) {
    const active = link.dataset.tab === name;
    link.classList.toggle('active', active);
    if (active) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  for (const section of document.querySelectorAll<HTMLElement>('.tab'))
    section.hidden = section.id !== `tab-${name}`;
}

async function show(route: Route): Promise<void> {
  switchTab(route.tab);
  try {
    if (route.tab === 'history') return await showHistory();
    if (route.tab === 'runs')
      return await renderRuns(byId('runs'), {
        navigate: (path) => void navigate(path),
        load: (page) => api.runs(page),
        blame: () => api.blame(),
      });
    if (route.tab === 'evaluations') return await showEvaluations(route.id);
    if (route.tab === 'diff') return await showDiff(route.failed, route.passed);
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
  const list = element('ul', { class: 'examples' });
  for (const example of examples) {
    const button = element('button', { type: 'button' }, example.title);
    button.addEventListener('click', () => {
      say(`Loading ${example.title}…`);
      void api
        .loadExample(example.name)
        .then(({ traces }) => navigate(`/traces/${traces[0]!.id}`))
        .then(() => say(`Loaded ${example.title}. Press Attribute.`))
        .catch((error: unknown) => say(message(error), 'error'));
    });
    list.append(element('li', {}, button, element('span', { class: 'meta' }, example.description)));
  }
  resultPanel.append(
    element('h2', {}, 'Attribution'),
    element(
      'p',
      { class: 'meta' },
      'Load a run that went wrong, then press Attribute: faultline names the agent and the step that caused the failure, and what kind of failure it was.',
    ),
  );
  conversation.append(
    element('h2', {}, 'Start with an example'),
    element(
      'p',
      { class: 'meta' },
      'Or drop your own run (any supported format, several files at once, AG2 logs.db included).',
    ),
    list,
  );
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

function timelineMarks(open: OpenTrace): TimelineMark[] {
  const marks: TimelineMark[] = [];
  for (const other of open.siblings)
    if (other.id !== open.analysis?.id && other.result.step !== null)
      marks.push({
        step: other.result.step,
        kind: 'other',
        title: `${other.method}: ${other.result.agent} at step ${other.result.step}`,
        text: other.method.slice(0, 1).toUpperCase(),
      });
  const result = open.analysis?.result;
  for (const candidate of result?.candidates ?? [])
    if (candidate.step !== result?.step)
      marks.push({
        step: candidate.step,
        kind: 'candidate',
        title: `candidate: step ${candidate.step}, ${candidate.agent}`,
      });
  const label = open.trace.labels?.step;
  if (label !== undefined)
    marks.push({ step: label, kind: 'label', title: `label: step ${label}`, text: 'L' });
  if (result?.step !== null && result?.step !== undefined)
    marks.push({
      step: result.step,
      kind: 'verdict',
      title: `verdict: step ${result.step}, ${result.agent}`,
      text: 'V',
    });
  return marks;
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
  const loaded: { id: string; name: string; steps: number }[] = [];
  const failed: string[] = [];
  for (const file of files) {
    try {
      const { traces, skipped } = await api.upload(file.body, file.name, formatSelect.value);
      loaded.push(...traces);
      failed.push(...skipped);
    } catch (error) {
      failed.push(message(error));
    }
  }
  if (loaded.length === 0) {
    clearAnalyse();
    history.replaceState(null, '', '/');
    say(failed.join(' · '), 'error');
    return;
  }
  await navigate(`/traces/${loaded[0]!.id}`);
  const first = loaded[0]!;
  const more =
    loaded.length > 1 ? ` (${loaded.length} traces loaded: see History for the others)` : '';
  const problems = failed.length > 0 ? ` Not loaded: ${failed.join(' · ')}` : '';
  say(
    `Loaded ${first.name}: ${first.steps} steps${more}.${problems}`,
    failed.length > 0 ? 'error' : 'info',
  );
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
  const needle = searchInput.value.trim().toLowerCase();
  open.matches = needle
    ? open.trace.steps
        .filter((step) => !open.view.nodes.get(step.index)?.hidden)
        .filter((step) =>
          [step.agent, step.content, ...(step.toolCalls ?? []).map(callText)]
            .join('\n')
            .toLowerCase()
            .includes(needle),
        )
        .map((step) => step.index)
    : [];
  open.searchAt = -1;
  const ranges: Range[] = [];
  for (const step of open.matches.slice(0, 300))
    ranges.push(...rangesOf(open.view.nodes.get(step)!, needle, 20));
  setHighlight('search', ranges);
  searchCount.textContent = needle
    ? `${open.matches.length} step${open.matches.length === 1 ? '' : 's'}`
    : '';
}

function stepSearch(direction: 1 | -1): void {
  const open = current;
  if (!open || open.matches.length === 0) return;
  open.searchAt = (open.searchAt + direction + open.matches.length) % open.matches.length;
  openStep(open.matches[open.searchAt]!);
  searchCount.textContent = `${open.searchAt + 1} of ${open.matches.length}`;
}

/** The next (or previous) of `steps` after the reader's position, wrapping around. */
function nextOf(steps: readonly number[], direction: 1 | -1): number | undefined {
  if (steps.length === 0) return undefined;
  const from = current?.cursor ?? -1;
  if (direction === 1) return steps.find((step) => step > from) ?? steps[0];
  return [...steps].reverse().find((step) => step < from) ?? steps[steps.length - 1];
}

function onKey(event: KeyboardEvent): void {
  const target = event.target as HTMLElement;
  if (event.key === 'Escape' && target.matches('input, textarea, select')) {
    target.blur();
    return;
  }
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (target.matches('input, textarea, select, [contenteditable]')) return;
  if (event.key === '?') {
    byId('shortcuts').hidden = !byId('shortcuts').hidden;
    return;
  }
  const open = current;
  if (!open || byId('tab-analyse').hidden) return;
  const visible = open.trace.steps
    .map((step) => step.index)
    .filter((index) => !open.view.nodes.get(index)?.hidden);
  const go = (step: number | null | undefined) => {
    if (step === null || step === undefined) return;
    event.preventDefault();
    openStep(step);
  };
  switch (event.key) {
    case 'j':
      return go(nextOf(visible, 1));
    case 'k':
      return go(nextOf(visible, -1));
    case 'n':
      return go(nextOf(open.view.errors, 1));
    case 'p':
      return go(nextOf(open.view.errors, -1));
    case 'v':
      return go(open.analysis?.result.step);
    case 'l':
      return go(open.trace.labels?.step);
    case '/':
      event.preventDefault();
      searchInput.focus();
      return;
  }
}

// ---------------------------------------------------------------- history and evaluations

async function showHistory(): Promise<void> {
  await renderHistory(byId('history'), {
    navigate: (path) => void navigate(path),
    remove: async (id) => {
      await api.remove(id);
      if (current?.id === id) clearAnalyse();
    },
    load: (page) => api.history(page),
  });
}

async function showDiff(failed: string, passed: string): Promise<void> {
  const container = byId<HTMLDivElement>('diff');
  container.replaceChildren(element('p', { class: 'meta' }, 'Aligning the runs…'));
  const [answer, failedTrace, passedTrace] = await Promise.all([
    api.diff(failed, passed),
    api.trace(failed),
    api.trace(passed),
  ]);
  renderDiffView(container, answer, failedTrace.trace, passedTrace.trace, {
    navigate: (path) => void navigate(path),
  });
}

async function showEvaluations(id?: string): Promise<void> {
  await renderEvaluations(byId<HTMLDivElement>('evaluations'), id, {
    navigate,
    open: async (evaluationId, index) => {
      const { analysis } = await api.openRecord(evaluationId, index).catch((error: unknown) => {
        throw new Error(message(error));
      });
      await navigate(`/analyses/${analysis.id}`);
      say(`Opened ${analysis.traceName ?? 'the trace'} from the evaluation.`);
    },
  });
}

// ---------------------------------------------------------------- start

async function start(): Promise<void> {
  // Every control listens before the first await: a file chosen while the method list loads is
  // taken, not lost.
  methodSelect.addEventListener('change', () => {
    modelRow.hidden = methodSelect.value === 'offline' || methodSelect.value === 'first-agent';
  });
  runButton.addEventListener('click', () => void analyse());
  byId('load').addEventListener('click', () => {
    const text = byId<HTMLTextAreaElement>('paste').value;
    if (text.trim()) void uploadAll([{ body: text, name: 'pasted trace' }]);
    else say('Paste a trace first.', 'error');
  });
  const takeFiles = (files: FileList | null | undefined) => {
    const list = [...(files ?? [])].map((file) => ({ body: file as Blob, name: file.name }));
    if (list.length > 0) void uploadAll(list);
  };
  byId<HTMLInputElement>('file').addEventListener('change', (event) =>
    takeFiles((event.target as HTMLInputElement).files),
  );
  const drop = byId('drop');
  drop.addEventListener('dragover', (event) => {
    event.preventDefault();
    drop.classList.add('over');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (event) => {
    event.preventDefault();
    drop.classList.remove('over');
    takeFiles(event.dataTransfer?.files);
  });
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
  document.addEventListener('keydown', onKey);
  // The skip link moves focus itself: a fragment change would be taken for a new route.
  document.querySelector('a.skip')!.addEventListener('click', (event) => {
    event.preventDefault();
    resultPanel.focus();
  });
  document.addEventListener('click', (event) => {
    const link = (event.target as HTMLElement).closest<HTMLAnchorElement>('a[data-route]');
    if (!link || event.ctrlKey || event.metaKey || event.shiftKey) return;
    event.preventDefault();
    const url = new URL(link.href);
    void navigate(url.pathname + url.search);
  });
  window.addEventListener(
    'popstate',
    () => void show(parseRoute(location.pathname + location.search)),
  );
  const { methods, formats } = await api.methods();
  // A method that compares with a passing run (diverge) is not offered for one run alone: the
  // diff view ("Compare with…") is where two runs meet.
  for (const method of methods.filter((entry) => !entry.needsReference))
    methodSelect.append(
      element('option', { value: method.name, title: method.description }, method.name),
    );
  for (const format of formats)
    formatSelect.append(
      element('option', { value: format.name, title: format.description }, format.name),
    );
  await show(parseRoute(location.pathname + location.search));
}

void start().catch((error: unknown) => say(message(error), 'error'));
