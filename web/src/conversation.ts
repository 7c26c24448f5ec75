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

/**
 * The rendered conversation. `nodes` holds every step's node: a long run is put on screen a chunk
 * at a time, so the page answers (the verdict can be asked for) before its last step is built, and
 * reading `nodes` first builds whatever is still to come.
 */
export interface ConversationView {
  readonly nodes: Map<number, HTMLElement>;
  /** Step `index`'s node, building the steps before it first if they are still to come. */
  node(index: number): HTMLElement | undefined;
  /** The nodes built so far (a step not built yet carries no mark). */
  readonly built: ReadonlyMap<number, HTMLElement>;
  /** Steps with a recorded error, in order. */
  errors: number[];
}

/** Steps built at once; the rest follow while the page is idle. */
const CHUNK = 200;
/** Steps built at a time while idle, and the idle time left (ms) below which building stops. */
const IDLE_CHUNK = 25;
const IDLE_MARGIN_MS = 4;

/**
 * Calls `work` when the page is idle (at the latest after a second), with the idle time it has
 * left; returns what cancels it. Browsers without requestIdleCallback get a task of their own.
 */
function whenIdle(work: (idle: () => number) => void): () => void {
  if (typeof requestIdleCallback === 'function') {
    const handle = requestIdleCallback((deadline) => work(() => deadline.timeRemaining()), {
      timeout: 1000,
    });
    return () => cancelIdleCallback(handle);
  }
  const handle = setTimeout(() => work(() => 0), 0);
  return () => clearTimeout(handle);
}

/** Stops the chunks still to come of the conversation on screen (a new trace replaces it). */
let stopPending: (() => void) | undefined;

/** Stops building the conversation on screen: it is being cleared or replaced. */
export function stopConversation(): void {
  stopPending?.();
  stopPending = undefined;
}

/** One step's node. */
function stepNode(
  step: Step,
  error: string | undefined,
  colourOf: (agent: string) => string,
  labelled: boolean,
): HTMLElement {
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
      error === undefined ? null : element('span', { class: 'badge error', title: error }, 'error'),
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
  if (labelled) node.classList.add('labelled');
  return node;
}

/** The run's header: its id, format, size, task and expected answer. */
function traceHeader(trace: Trace): HTMLElement {
  const header = element(
    'div',
    { class: 'trace-header' },
    element('strong', {}, trace.id),
    ` · ${trace.format} · ${trace.steps.length} steps · ${trace.agents.length} agents`,
  );
  if (trace.question) header.append(element('p', { class: 'question' }, `Task: ${trace.question}`));
  if (trace.groundTruth)
    header.append(element('p', { class: 'question' }, `Expected answer: ${trace.groundTruth}`));
  return header;
}

/** Renders the trace into `container`: the first steps at once, the rest while the page is idle. */
export function renderConversation(
  container: HTMLElement,
  trace: Trace,
  colourOf: (agent: string) => string,
): ConversationView {
  stopConversation();
  container.replaceChildren(traceHeader(trace));
  const errorOf = trace.steps.map(recordedError);
  const errors = trace.steps.filter((_, at) => errorOf[at] !== undefined).map((step) => step.index);
  const nodes = new Map<number, HTMLElement>();
  let built = 0;
  const build = (until: number) => {
    const fragment = document.createDocumentFragment();
    for (; built < until; built += 1) {
      const step = trace.steps[built]!;
      const node = stepNode(step, errorOf[built], colourOf, trace.labels?.step === step.index);
      nodes.set(step.index, node);
      fragment.append(node);
    }
    container.append(fragment);
  };
  build(Math.min(CHUNK, trace.steps.length));
  let cancel: (() => void) | undefined;
  // The rest is built while the page is idle, a few steps at a time, so that clicks, answers from
  // the server and painting come first.
  const next = (idle: () => number) => {
    do build(Math.min(built + IDLE_CHUNK, trace.steps.length));
    while (built < trace.steps.length && idle() > IDLE_MARGIN_MS);
    cancel = built < trace.steps.length ? whenIdle(next) : undefined;
  };
  if (built < trace.steps.length) cancel = whenIdle(next);
  // Replaced by another trace, this one builds nothing more into the container.
  let replaced = false;
  stopPending = () => {
    replaced = true;
    cancel?.();
  };
  /** Builds the steps up to `count` (all by default) now, where they are still to come. */
  const buildNow = (count = trace.steps.length) => {
    if (replaced || built >= count) return;
    cancel?.();
    build(count);
    cancel = built < trace.steps.length ? whenIdle(next) : undefined;
  };
  return {
    get nodes() {
      buildNow();
      return nodes;
    },
    node(index) {
      // Steps are numbered in order from 0, so step `index` is the index-th built.
      if (!nodes.has(index)) buildNow(Math.min(index + 1, trace.steps.length));
      return nodes.get(index);
    },
    built: nodes,
    errors,
  };
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
  for (const node of view.built.values()) node.classList.remove(className);
  if (step === null) return;
  const node = view.node(step);
  if (!node) return;
  node.classList.add(className);
  if (scroll) {
    node.hidden = false;
    node.scrollIntoView({ block: 'center' });
    node.focus({ preventScroll: true });
  }
}
