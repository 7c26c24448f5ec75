/** Wires the page: loading traces, running analyses, history and evaluations. */
import { api, type Analysis, type Trace } from './api.js';
import { element } from './dom.js';
import {
  highlight,
  renderConversation,
  renderEvaluation,
  renderHistory,
  renderResult,
} from './views.js';
import './style.css';

const byId = <Kind extends HTMLElement>(id: string) => document.getElementById(id) as Kind;
const status = byId<HTMLParagraphElement>('status');
const conversation = byId<HTMLDivElement>('conversation');
const resultPanel = byId<HTMLElement>('result');
const methodSelect = byId<HTMLSelectElement>('method');
const modelRow = byId<HTMLLabelElement>('model-row');
const modelInput = byId<HTMLInputElement>('model');
const groundTruth = byId<HTMLInputElement>('ground-truth');
const runButton = byId<HTMLButtonElement>('run');

let current: { id: string; trace: Trace; steps: Map<number, HTMLElement> } | undefined;

function say(message: string, kind: 'info' | 'error' = 'info'): void {
  status.textContent = message;
  status.className = kind;
}

async function showTrace(id: string): Promise<void> {
  const { trace } = await api.trace(id);
  current = { id, trace, steps: renderConversation(conversation, trace) };
  resultPanel.replaceChildren();
  runButton.disabled = false;
}

async function upload(body: string | Blob, name: string): Promise<void> {
  say(`Reading ${name}…`);
  try {
    const { traces } = await api.upload(body, name);
    await showTrace(traces[0]!.id);
    say(
      `Loaded ${traces[0]!.name}: ${traces[0]!.steps} steps${traces.length > 1 ? ` (first of ${traces.length} traces)` : ''}.`,
    );
  } catch (error) {
    say(error instanceof Error ? error.message : String(error), 'error');
  }
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
    showAnalysis(analysis);
    say(`Done in ${analysis.milliseconds.toFixed(0)} ms.`);
  } catch (error) {
    say(error instanceof Error ? error.message : String(error), 'error');
  } finally {
    runButton.disabled = false;
  }
}

function showAnalysis(analysis: Analysis): void {
  if (!current) return;
  const { trace, steps } = current;
  const jump = (step: number) => highlight(steps, step);
  renderResult(resultPanel, trace, analysis.result, jump);
  highlight(steps, analysis.result.step);
}

async function openAnalysis(analysis: Analysis): Promise<void> {
  switchTab('analyse');
  await showTrace(analysis.traceId);
  showAnalysis(analysis);
}

function switchTab(name: string): void {
  for (const button of document.querySelectorAll<HTMLButtonElement>('nav button'))
    button.classList.toggle('active', button.dataset.tab === name);
  for (const section of document.querySelectorAll<HTMLElement>('.tab'))
    section.hidden = section.id !== `tab-${name}`;
  if (name === 'history')
    void api
      .analyses()
      .then(({ analyses }) =>
        renderHistory(byId('history'), analyses, (analysis) => void openAnalysis(analysis)),
      );
  if (name === 'evaluations') void loadEvaluations();
}

async function loadEvaluations(): Promise<void> {
  const container = byId<HTMLDivElement>('evaluations');
  const { evaluations } = await api.evaluations();
  container.replaceChildren();
  if (evaluations.length === 0) {
    container.append(
      element(
        'p',
        {},
        'No evaluation runs yet: run `faultline eval <folder>` and they appear here.',
      ),
    );
    return;
  }
  const list = element('ul');
  const detail = element('div');
  for (const evaluation of evaluations) {
    const link = element(
      'a',
      { href: '#' },
      `${evaluation.title} · ${evaluation.traces} traces · ${new Date(evaluation.createdAt).toLocaleString()}`,
    );
    link.addEventListener('click', (event) => {
      event.preventDefault();
      void api.evaluation(evaluation.id).then(({ evaluation: full }) => {
        detail.replaceChildren();
        renderEvaluation(detail, full.title, full.summary);
      });
    });
    list.append(element('li', {}, link));
  }
  container.append(list, detail);
}

async function start(): Promise<void> {
  const { methods } = await api.methods();
  for (const method of methods)
    methodSelect.append(
      element('option', { value: method.name, title: method.description }, method.name),
    );
  methodSelect.addEventListener('change', () => {
    modelRow.hidden = methodSelect.value === 'offline' || methodSelect.value === 'first-agent';
  });
  runButton.addEventListener('click', () => void analyse());
  byId('load').addEventListener('click', () => {
    const text = byId<HTMLTextAreaElement>('paste').value;
    if (text.trim()) void upload(text, 'pasted trace');
    else say('Paste a trace first.', 'error');
  });
  byId<HTMLInputElement>('file').addEventListener('change', (event) => {
    const file = (event.target as HTMLInputElement).files?.[0];
    if (file) void upload(file, file.name);
  });
  const drop = byId('drop');
  drop.addEventListener('dragover', (event) => {
    event.preventDefault();
    drop.classList.add('over');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (event) => {
    event.preventDefault();
    drop.classList.remove('over');
    const file = event.dataTransfer?.files[0];
    if (file) void upload(file, file.name);
  });
  for (const button of document.querySelectorAll<HTMLButtonElement>('nav button'))
    button.addEventListener('click', () => switchTab(button.dataset.tab ?? 'analyse'));
  say('Load a trace to begin.');
}

void start().catch((error: unknown) =>
  say(error instanceof Error ? error.message : String(error), 'error'),
);
