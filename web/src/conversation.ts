/**
 * The run as a conversation: one article per step, coloured by agent, with recorded errors marked
 * and unfolded, and the steps' visibility under an agent filter.
 */
import type { Step, ToolCall, Trace } from './api.js';
import { stepConfidence } from './confidence.js';
import { element } from './dom.js';

/** Characters of a step shown before the rest is folded. */
const FOLD_AT = 800;

/** An error the run itself recorded at this step (span status, tool failure, exit code), if any. */
export function recordedError(step: Step): string | undefined {
  if (step.error) return step.error;
  const failed = step.toolResults?.find((result) => result.isError);
  if (failed) return `tool ${failed.name ?? 'call'} failed`;
  const exit = step.role === 'tool' ? /exit ?code:? ?(-?[1-9]\d*)/i.exec(step.content) : null;
  if (exit) return `exit code ${exit[1]}`;
  return undefined;
}

function stepContent(step: Step, error: string | undefined): HTMLElement {
  const text = step.content;
  if (step.role === 'tool') {
    const lines = text.split('\n').length;
    const details = element(
      'details',
      { class: 'tool-output' },
      element('summary', {}, `tool output (${lines} line${lines === 1 ? '' : 's'})`),
      element('pre', {}, text),
    );
    // Recorded errors are what a developer looks for first: never fold them away.
    details.open = error !== undefined || lines <= 3;
    return details;
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

/** A tool call as text, `name(arguments)`, as the step list shows it and search finds it. */
export function callText(call: ToolCall): string {
  return `${call.name}(${call.arguments})`;
}

/**
 * The tool calls of a turn that also says something: importers write a call into the content only
 * when the turn says nothing else, so these would otherwise not show (the offline model reads them
 * the same way, src/trace/step-text.ts).
 */
function callsLine(step: Step): HTMLElement | null {
  const unshown = (step.toolCalls ?? []).filter(
    (call) => !step.content.includes(`${call.name}(`) && !step.content.includes(call.arguments),
  );
  if (unshown.length === 0) return null;
  return element(
    'pre',
    { class: 'tool-calls', title: 'tool calls made in this step' },
    unshown.map((call) => `→ ${callText(call)}`).join('\n'),
  );
}

/** The span facts a tracing source recorded for the step, as one short line (null without). */
function spanLine(step: Step): HTMLElement | null {
  const span = step.span;
  if (!span) return null;
  const parts: string[] = [];
  if (span.durationMs !== undefined)
    parts.push(
      span.durationMs >= 1000
        ? `${(span.durationMs / 1000).toFixed(1)} s`
        : `${Math.round(span.durationMs)} ms`,
    );
  if (span.model) parts.push(span.model);
  if (span.inputTokens !== undefined || span.outputTokens !== undefined)
    parts.push(`${span.inputTokens ?? '?'} → ${span.outputTokens ?? '?'} tokens`);
  parts.push(`span ${span.id}`);
  return element(
    'span',
    {
      class: 'span-meta',
      title: span.parentId ? `span ${span.id}, inside span ${span.parentId}` : `span ${span.id}`,
    },
    parts.join(' · '),
  );
}

/** The model's confidence in the step, where the run logged token log probabilities. */
function confidenceBadge(step: Step): HTMLElement | null {
  const confidence = stepConfidence(step);
  if (!confidence) return null;
  return element(
    'span',
    { class: `badge confidence${confidence.low ? ' low' : ''}`, title: confidence.title },
    confidence.text,
  );
}

/** The rendered conversation. */
export interface ConversationView {
  nodes: Map<number, HTMLElement>;
  /** Steps with a recorded error, in order. */
  errors: number[];
}

/** Renders the trace into `container`. */
export function renderConversation(
  container: HTMLElement,
  trace: Trace,
  colourOf: (agent: string) => string,
): ConversationView {
  container.replaceChildren();
  const header = element(
    'div',
    { class: 'trace-header' },
    element('strong', {}, trace.id),
    ` · ${trace.format} · ${trace.steps.length} steps · ${trace.agents.length} agents`,
  );
  if (trace.question) header.append(element('p', { class: 'question' }, `Task: ${trace.question}`));
  if (trace.groundTruth)
    header.append(element('p', { class: 'question' }, `Expected answer: ${trace.groundTruth}`));
  const fragment = document.createDocumentFragment();
  fragment.append(header);
  const nodes = new Map<number, HTMLElement>();
  const errors: number[] = [];
  for (const step of trace.steps) {
    const error = recordedError(step);
    if (error !== undefined) errors.push(step.index);
    const speaker = element('span', { class: 'agent' }, step.agent);
    speaker.style.color = colourOf(step.agent);
    const node = element(
      'article',
      {
        class: `step role-${step.role}${error === undefined ? '' : ' has-error'}`,
        'data-step': String(step.index),
        'data-agent': step.agent,
        id: `step-${step.index}`,
        tabindex: '-1',
        'aria-label': `step ${step.index}, ${step.agent}`,
      },
      element(
        'div',
        { class: 'step-head' },
        element('span', { class: 'index' }, `#${step.index}`),
        speaker,
        step.speaker !== step.agent ? element('span', { class: 'speaker' }, step.speaker) : null,
        element('span', { class: 'role' }, step.role),
        error === undefined
          ? null
          : element('span', { class: 'badge error', title: error }, 'error'),
        step.timestamp
          ? element('time', { class: 'meta', datetime: step.timestamp }, step.timestamp)
          : null,
        spanLine(step),
        confidenceBadge(step),
      ),
      error === undefined ? null : element('p', { class: 'recorded-error' }, `Recorded: ${error}`),
      stepContent(step, error),
      callsLine(step),
    );
    node.style.borderLeftColor = colourOf(step.agent);
    if (trace.labels?.step === step.index) node.classList.add('labelled');
    nodes.set(step.index, node);
    fragment.append(node);
  }
  container.append(fragment);
  return { nodes, errors };
}

/** Shows only `agent`'s steps (all with null). */
export function filterConversation(view: ConversationView, agent: string | null): void {
  for (const node of view.nodes.values())
    node.hidden = agent !== null && node.dataset.agent !== agent;
}

/** Marks `step` with `className` (one step at a time), optionally scrolling it into view. */
export function markStep(
  view: ConversationView,
  className: string,
  step: number | null,
  scroll = false,
): void {
  for (const node of view.nodes.values()) node.classList.remove(className);
  if (step === null) return;
  const node = view.nodes.get(step);
  if (!node) return;
  node.classList.add(className);
  if (scroll) {
    node.hidden = false;
    node.scrollIntoView({ block: 'center' });
    node.focus({ preventScroll: true });
  }
}
