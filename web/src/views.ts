/** The page's views: the conversation, the attribution panel, history and evaluation tables. */
import type { Analysis, Attribution, EvaluationSummary, Estimate, Step, Trace } from './api.js';
import { agentColour, element, percent, table } from './dom.js';

/** Characters of a step shown before the rest is folded. */
const FOLD_AT = 800;

function stepContent(step: Step): HTMLElement {
  const text = step.content;
  if (step.role === 'tool') {
    const lines = text.split('\n').length;
    return element(
      'details',
      { class: 'tool-output' },
      element('summary', {}, `tool output (${lines} line${lines === 1 ? '' : 's'})`),
      element('pre', {}, text),
    );
  }
  if (text.length <= FOLD_AT) return element('pre', {}, text);
  return element(
    'div',
    {},
    element('pre', {}, `${text.slice(0, FOLD_AT)}…`),
    element(
      'details',
      { class: 'fold' },
      element('summary', {}, `show all ${text.length} characters`),
      element('pre', {}, text),
    ),
  );
}

/** The trajectory as a conversation; returns the step elements by index. */
export function renderConversation(container: HTMLElement, trace: Trace): Map<number, HTMLElement> {
  container.replaceChildren();
  const header = element(
    'div',
    { class: 'trace-header' },
    element('strong', {}, trace.id),
    ` · ${trace.format} · ${trace.steps.length} steps`,
  );
  if (trace.question) header.append(element('p', { class: 'question' }, `Task: ${trace.question}`));
  if (trace.groundTruth)
    header.append(element('p', { class: 'question' }, `Expected answer: ${trace.groundTruth}`));
  container.append(header);
  const byIndex = new Map<number, HTMLElement>();
  for (const step of trace.steps) {
    const speaker = element('span', { class: 'agent' }, step.agent);
    speaker.style.color = agentColour(step.agent);
    const node = element(
      'article',
      {
        class: `step role-${step.role}`,
        'data-step': String(step.index),
        id: `step-${step.index}`,
      },
      element(
        'div',
        { class: 'step-head' },
        element('span', { class: 'index' }, `#${step.index}`),
        speaker,
        step.speaker !== step.agent ? element('span', { class: 'speaker' }, step.speaker) : null,
        element('span', { class: 'role' }, step.role),
      ),
      stepContent(step),
    );
    node.style.borderLeftColor = agentColour(step.agent);
    if (trace.labels?.step === step.index) node.classList.add('labelled');
    byIndex.set(step.index, node);
    container.append(node);
  }
  return byIndex;
}

/** Highlights the blamed step and scrolls it into view. */
export function highlight(steps: Map<number, HTMLElement>, step: number | null): void {
  for (const node of steps.values()) node.classList.remove('blamed');
  if (step === null) return;
  const node = steps.get(step);
  if (!node) return;
  node.classList.add('blamed');
  node.scrollIntoView({ block: 'center' });
}

/** The attribution panel: agent, step, reason, candidates (clickable), label. */
export function renderResult(
  container: HTMLElement,
  trace: Trace,
  result: Attribution,
  jump: (step: number) => void,
): void {
  container.replaceChildren();
  container.append(element('h2', {}, 'Attribution'));
  if (result.agent === null || result.step === null) {
    container.append(
      element(
        'p',
        { class: 'warning' },
        result.unparsed
          ? 'The model reply could not be read.'
          : (result.candidates?.length ?? 0) > 0
            ? 'No confident attribution: see the candidate steps.'
            : 'No decisive step was found.',
      ),
    );
  } else {
    const agent = element('span', { class: 'agent' }, result.agent);
    agent.style.color = agentColour(result.agent);
    const stepLink = element(
      'a',
      { href: `#step-${result.step}`, class: 'step-link' },
      `step ${result.step}`,
    );
    stepLink.addEventListener('click', (event) => {
      event.preventDefault();
      jump(result.step!);
    });
    container.append(
      element(
        'p',
        { class: 'verdict' },
        agent,
        result.agentConfidence !== undefined ? ` (${percent(result.agentConfidence)})` : '',
        ' at ',
        stepLink,
        result.confidence !== undefined ? ` (${percent(result.confidence)})` : '',
      ),
    );
  }
  container.append(element('p', { class: 'reason' }, result.reason));
  for (const warning of result.warnings ?? [])
    container.append(element('p', { class: 'warning' }, warning));
  if (result.familiar === false)
    container.append(
      element(
        'p',
        { class: 'warning' },
        'This run looks unlike the runs the offline model learned from (its agents’ names or its structure): read the answer as a guess, try an LLM method, or retrain the model with labelled runs of this system.',
      ),
    );
  if (result.modes) {
    container.append(element('h3', {}, 'Failure modes (MAST)'));
    if (result.modes.length === 0)
      container.append(element('p', { class: 'meta' }, 'No failure mode is named.'));
    else {
      const list = element('ul', { class: 'modes' });
      for (const mode of result.modes)
        list.append(
          element(
            'li',
            {},
            element('b', {}, `${mode.code} ${mode.name}`),
            mode.confidence !== undefined ? ` (${percent(mode.confidence)})` : '',
            element('br', {}),
            element('span', { class: 'definition' }, mode.definition),
            element('br', {}),
            element('span', { class: 'fix' }, `Fix: ${mode.fix}`),
          ),
        );
      container.append(list);
    }
  }
  if (result.candidates && result.candidates.length > 0) {
    const list = element('ol', { class: 'candidates' });
    for (const candidate of result.candidates) {
      const link = element(
        'a',
        { href: `#step-${candidate.step}` },
        `step ${candidate.step} · ${candidate.agent}`,
      );
      link.addEventListener('click', (event) => {
        event.preventDefault();
        jump(candidate.step);
      });
      list.append(element('li', {}, link, ` ${percent(candidate.score)}`));
    }
    container.append(element('h3', {}, 'Candidate steps'), list);
  }
  if (trace.labels && (trace.labels.agent || trace.labels.step !== undefined)) {
    container.append(
      element('h3', {}, 'Label in the trace'),
      element(
        'p',
        { class: 'label' },
        `${(trace.labels.agents ?? [trace.labels.agent ?? '?']).join(' or ')} at step ${trace.labels.step ?? '?'}`,
      ),
    );
    if (trace.labels.reason)
      container.append(element('p', { class: 'reason' }, trace.labels.reason));
  }
  const usage = result.usage;
  container.append(
    element(
      'p',
      { class: 'meta' },
      `${result.method}${result.model ? ` · ${result.model}` : ''} · ${usage.calls} calls${usage.costUsd ? ` · ~$${usage.costUsd.toFixed(4)}` : ''}`,
    ),
  );
}

/** The analyses list; `open` reloads one. */
export function renderHistory(
  container: HTMLElement,
  analyses: Analysis[],
  open: (analysis: Analysis) => void,
): void {
  container.replaceChildren();
  if (analyses.length === 0) {
    container.append(element('p', {}, 'No analyses yet.'));
    return;
  }
  const body = element('tbody');
  for (const analysis of analyses) {
    const link = element('a', { href: '#' }, analysis.traceName ?? analysis.traceId);
    link.addEventListener('click', (event) => {
      event.preventDefault();
      open(analysis);
    });
    const result = analysis.result;
    body.append(
      element(
        'tr',
        {},
        element('td', {}, link),
        element('td', {}, `${analysis.method}${analysis.model ? ` (${analysis.model})` : ''}`),
        element('td', {}, result.agent === null ? '—' : `${result.agent} @ ${result.step}`),
        element('td', {}, new Date(analysis.createdAt).toLocaleString()),
      ),
    );
  }
  container.append(table(['trace', 'method', 'blamed', 'when'], body));
}

const cell = (estimate: Estimate) =>
  `${(estimate.value * 100).toFixed(1)}% [${(estimate.low * 100).toFixed(1)}, ${(estimate.high * 100).toFixed(1)}]`;

/** One evaluation run's accuracy table. */
export function renderEvaluation(
  container: HTMLElement,
  title: string,
  summary: EvaluationSummary,
): void {
  const body = element('tbody');
  for (const row of summary.rows) {
    const label =
      row.useGroundTruth === undefined
        ? row.method
        : `${row.method} (${row.useGroundTruth ? 'with' : 'without'} GT)`;
    body.append(
      element(
        'tr',
        { class: row.baseline ? 'baseline' : '' },
        element('td', {}, label),
        element('td', {}, row.subset),
        element('td', {}, String(row.traces)),
        element('td', {}, cell(row.accuracy.agent)),
        element('td', {}, cell(row.accuracy.step)),
        element('td', {}, cell(row.accuracy.stepWithin1)),
        element('td', {}, cell(row.accuracy.stepWithin3)),
      ),
    );
  }
  container.append(
    element('h2', {}, title),
    table(['method', 'subset', 'n', 'agent', 'step', 'step ±1', 'step ±3'], body),
  );
}
