/**
 * The Analyse tab's open trace: its conversation, timeline, agent filter and search, the verdict
 * panel beside it, the reader's position in it and the label they teach. main.ts routes to it and
 * runs the analyses; it reaches the rest of the page through `AnalyseActions`.
 */
import { api, type Analysis, type LabelMatch, type Trace } from './api.js';
import { agentPalette } from './colours.js';
import {
  filterConversation,
  markStep,
  renderConversation,
  stopConversation,
} from './conversation.js';
import { compareControl } from './diff.js';
import { element } from './dom.js';
import { evidenceLines, rangesOf, setHighlight } from './highlights.js';
import { search, timelineMarks, type OpenTrace } from './open-trace.js';
import { markSuspicious } from './suspicious-steps.js';
import { renderTimeline } from './timeline.js';
import { renderVerdict } from './verdict.js';

/** What the view needs from the page. */
export interface AnalyseActions {
  navigate(path: string): Promise<void>;
  say(text: string, kind?: 'info' | 'error'): void;
  message(error: unknown): string;
}

const byId = <Kind extends HTMLElement>(id: string) => document.getElementById(id) as Kind;
export const conversation = byId<HTMLDivElement>('conversation');
const overview = byId<HTMLDivElement>('overview');
export const resultPanel = byId<HTMLElement>('result');
export const runButton = byId<HTMLButtonElement>('run');
export const agentFilter = byId<HTMLSelectElement>('agent-filter');
export const searchInput = byId<HTMLInputElement>('search');
const searchCount = byId<HTMLSpanElement>('search-count');

/** The trace on screen (undefined when none is): set only here, read by the page. */
export let current: OpenTrace | undefined;

// ---------------------------------------------------------------- the analyse view

/** Removes the trace and verdict from the screen, so nothing stale stays after an error. */
export function clearAnalyse(): void {
  current = undefined;
  stopConversation();
  conversation.replaceChildren();
  resultPanel.replaceChildren();
  overview.hidden = true;
  runButton.disabled = true;
  setHighlight('evidence', []);
  setHighlight('search', []);
}

export function renderTrace(id: string, trace: Trace, actions: AnalyseActions): void {
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
    compareControl(id, (page) => api.history(page), {
      navigate: (path) => void actions.navigate(path),
    }),
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
    suspicious: [],
    matches: [],
    searchAt: -1,
  };
  runButton.disabled = false;
  conversation.scrollTop = 0;
}

/**
 * Shows the verdict (or none) for the open trace, with the other analyses of the trace, and marks
 * the steps a task's spectrum found `suspicious` (most suspicious first). The reader is taken to the
 * verdict's step, else to the most suspicious one.
 */
export async function showAnalysis(
  analysis: Analysis | null,
  match: LabelMatch | null,
  actions: AnalyseActions,
  suspicious: readonly number[] = [],
): Promise<void> {
  if (!current) return;
  const open = current;
  open.analysis = analysis;
  open.match = match;
  // A step the run does not have is dropped before the view would build every step looking for it.
  open.suspicious = suspicious.filter((step) => step < open.trace.steps.length);
  open.siblings = (await api.analysesOf(open.id)).analyses;
  renderPanel(actions);
  markStep(open.view, 'blamed', analysis?.result.step ?? null);
  markSuspicious(open.view, open.suspicious);
  const openAt = analysis?.result.step ?? open.suspicious[0] ?? null;
  if (openAt !== null) openStep(openAt);
  else markStep(open.view, 'focused', null);
  highlightEvidence();
}

function renderPanel(actions: AnalyseActions): void {
  if (!current) return;
  const open = current;
  const name = open.analysis?.traceName ?? open.siblings[0]?.traceName ?? open.trace.id;
  renderVerdict(resultPanel, open.trace, name, open.analysis, open.match, open.siblings, {
    open: openStep,
    navigate: (path) => void actions.navigate(path),
    teach: (label) => teach(label, actions),
  });
  open.timeline.setMarks(timelineMarks(open));
}

/** Brings `step` into view and makes it the reader's position; the verdict keeps its mark. */
export function openStep(step: number): void {
  if (!current) return;
  if (agentFilter.value && current.view.node(step)?.dataset.agent !== agentFilter.value) {
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
    const node = open.view.node(step);
    if (node) ranges.push(...rangesOf(node, quote, 5));
  }
  setHighlight('evidence', ranges);
}

async function teach(
  label: { agent: string; step: number } | null,
  actions: AnalyseActions,
): Promise<void> {
  if (!current) return;
  try {
    const { trace } = await api.setLabel(current.id, label);
    current.trace = trace;
    if (current.analysis) current.match = (await api.analysis(current.analysis.id)).match;
    for (const node of current.view.nodes.values())
      node.classList.toggle('labelled', Number(node.dataset.step) === trace.labels?.step);
    renderPanel(actions);
    actions.say(
      label ? `Saved your label: ${label.agent} at step ${label.step}.` : 'Cleared your label.',
    );
  } catch (error) {
    actions.say(actions.message(error), 'error');
  }
}

// ---------------------------------------------------------------- filter, search

export function applyFilter(): void {
  if (!current) return;
  const agent = agentFilter.value || null;
  filterConversation(current.view, agent);
  current.timeline.setFilter(agent);
  runSearch();
}

export function runSearch(): void {
  if (!current) return;
  const open = current;
  searchCount.textContent = search(open, searchInput.value.trim().toLowerCase());
}

export function stepSearch(direction: 1 | -1): void {
  const open = current;
  if (!open || open.matches.length === 0) return;
  open.searchAt = (open.searchAt + direction + open.matches.length) % open.matches.length;
  openStep(open.matches[open.searchAt]!);
  searchCount.textContent = `${open.searchAt + 1} of ${open.matches.length}`;
}
