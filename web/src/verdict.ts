/**
 * The verdict panel: who and where with honest confidence, the label and whether the verdict
 * matches it, reason, modes, candidates by score, the other analyses of the trace (compare),
 * export, and the form that stores a person's own verdict as the trace's label (teach it).
 */
import type { Analysis, Attribution, LabelMatch, Trace } from './api.js';
import { element, labelledAgents, percent } from './dom.js';

/** Below this probability of the named agent the verdict is shown as a guess. */
const LOW_CONFIDENCE = 0.4;

/** What is said of a run the log records as a success (faultline assumes the run failed). */
const RECORDED_SUCCESS =
  'The log records this run as a success: the answer is where it would most likely have gone wrong.';

/** What the panel can ask the page to do. */
export interface VerdictActions {
  open(step: number): void;
  navigate(path: string): void;
  teach(label: { agent: string; step: number } | null): Promise<void>;
}

/** The probability the verdict is stated with: the agent's, else the step's. */
const statedConfidence = (result: Attribution) => result.agentConfidence ?? result.confidence;

/** True when the verdict should be read as a guess. */
function isLowConfidence(result: Attribution): boolean {
  const stated = statedConfidence(result);
  return result.familiar === false || (stated !== undefined && stated < LOW_CONFIDENCE);
}

function stepLink(step: number, text: string, actions: VerdictActions): HTMLAnchorElement {
  const link = element('a', { href: `#step-${step}`, class: 'step-link' }, text);
  link.addEventListener('click', (event) => {
    event.preventDefault();
    actions.open(step);
  });
  return link;
}

function routeLink(path: string, text: string, actions: VerdictActions): HTMLAnchorElement {
  const link = element('a', { href: path }, text);
  link.addEventListener('click', (event) => {
    event.preventDefault();
    actions.navigate(path);
  });
  return link;
}

const matchMark = (ok: boolean | null, what: string) =>
  ok === null
    ? null
    : element(
        'span',
        { class: `match ${ok ? 'yes' : 'no'}` },
        ok ? `✓ ${what} matches` : `✗ ${what} differs`,
      );

/** What `faultline verify` proved: a fix at the step made the run pass its check. */
function verifiedBadge(proof: NonNullable<Attribution['verified']>): HTMLElement {
  const replays = `${proof.replays} replay${proof.replays === 1 ? '' : 's'}`;
  return element(
    'p',
    { class: 'badge verified', role: 'note' },
    `✓ Verified by replay: with step ${proof.step} (${proof.agent}) fixed, the run passed its check (${replays}).`,
  );
}

/** The verdict and label as Markdown, for pasting into an issue. */
export function verdictMarkdown(traceName: string, trace: Trace, analysis: Analysis): string {
  const result = analysis.result;
  const lines = [
    `# faultline: ${traceName}`,
    '',
    `- **Method:** ${result.method}${result.model ? ` (${result.model})` : ''}`,
    `- **Agent:** ${result.agent ?? 'none'}${result.agentConfidence !== undefined ? ` (${percent(result.agentConfidence)})` : ''}`,
    `- **Step:** ${result.step ?? 'none'}${result.confidence !== undefined ? ` (${percent(result.confidence)})` : ''}`,
    `- **Reason:** ${result.reason}`,
  ];
  if (result.verified)
    lines.push(
      `- **Verified by replay:** with step ${result.verified.step} fixed, the run passed its check (${result.verified.replays} replays)`,
    );
  if (isLowConfidence(result)) lines.push('- **Low confidence:** read this as a guess.');
  if (trace.outcome === 'success') lines.push(`- **Outcome:** ${RECORDED_SUCCESS}`);
  if (result.modes?.length)
    lines.push(
      `- **Failure modes:** ${result.modes.map((mode) => `${mode.code} ${mode.name}`).join('; ')}`,
    );
  if (result.candidates?.length)
    lines.push(
      `- **Candidates:** ${result.candidates.map((c) => `step ${c.step} ${c.agent} (${percent(c.score)})`).join(', ')}`,
    );
  if (trace.labels?.agent || trace.labels?.step !== undefined)
    lines.push(
      `- **Label${trace.labels.byUser ? ' (set on the page)' : ''}:** ${labelledAgents(trace.labels)} at step ${trace.labels.step ?? '?'}`,
    );
  return `${lines.join('\n')}\n`;
}

function download(name: string, type: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = element('a', { href: url, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function teachForm(trace: Trace, result: Attribution | null, actions: VerdictActions): HTMLElement {
  const agent = element('select', { id: 'teach-agent' });
  for (const info of trace.agents) agent.append(element('option', { value: info.name }, info.name));
  const initialAgent = trace.labels?.agent ?? result?.agent;
  if (initialAgent) agent.value = initialAgent;
  const step = element('input', {
    id: 'teach-step',
    type: 'number',
    min: '0',
    max: String(Math.max(trace.steps.length - 1, 0)),
  });
  step.value = String(trace.labels?.step ?? result?.step ?? 0);
  // Picking a step picks its agent: a label names the agent of its step.
  step.addEventListener('change', () => {
    const picked = trace.steps.find((item) => item.index === Number(step.value));
    if (picked) agent.value = picked.agent;
  });
  const save = element('button', { type: 'button' }, 'Save as label');
  save.addEventListener(
    'click',
    () => void actions.teach({ agent: agent.value, step: Number(step.value) }),
  );
  const form = element(
    'div',
    { class: 'teach' },
    element('label', { for: 'teach-agent' }, 'Responsible agent'),
    agent,
    element('label', { for: 'teach-step' }, 'Decisive step'),
    step,
    save,
  );
  if (result?.agent && result.step !== null) {
    const confirm = element('button', { type: 'button' }, 'Confirm the verdict');
    confirm.addEventListener(
      'click',
      () => void actions.teach({ agent: result.agent!, step: result.step! }),
    );
    form.append(confirm);
  }
  if (trace.labels?.byUser) {
    const clear = element('button', { type: 'button' }, 'Clear my label');
    clear.addEventListener('click', () => void actions.teach(null));
    form.append(clear);
  }
  return element(
    'details',
    { class: 'teach-box' },
    element('summary', {}, trace.labels?.byUser ? 'Your label (edit)' : 'Teach it: set the label'),
    element(
      'p',
      { class: 'meta' },
      'Your label is stored with the trace; export labelled traces from History and train on them with faultline train --data.',
    ),
    form,
  );
}

/** Renders the panel for a trace with (or, before any analysis, without) a verdict. */
export function renderVerdict(
  container: HTMLElement,
  trace: Trace,
  traceName: string,
  analysis: Analysis | null,
  match: LabelMatch | null,
  siblings: readonly Analysis[],
  actions: VerdictActions,
): void {
  container.replaceChildren();
  const result = analysis?.result ?? null;
  container.append(element('h2', {}, 'Attribution'));
  if (!result)
    container.append(element('p', { class: 'meta' }, 'Choose a method and press Attribute.'));
  else if (result.agent === null || result.step === null) {
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
    const low = isLowConfidence(result);
    const agent = element('span', { class: 'agent' }, result.agent);
    container.append(
      element(
        'p',
        { class: `verdict${low ? ' low' : ''}` },
        agent,
        result.agentConfidence !== undefined ? ` (${percent(result.agentConfidence)})` : '',
        ' at ',
        stepLink(result.step, `step ${result.step}`, actions),
        result.confidence !== undefined ? ` (${percent(result.confidence)})` : '',
      ),
    );
    if (low)
      container.append(
        element(
          'p',
          { class: 'badge low-confidence', role: 'note' },
          result.familiar === false
            ? 'Low confidence: this run looks unlike the runs the offline model learned from (its agents’ names or its structure). Read the answer as a guess, try an LLM method, or teach it with labelled runs of this system.'
            : `Low confidence (under ${percent(LOW_CONFIDENCE)}): read this as a guess and check the candidates.`,
        ),
      );
    if (result.verified) container.append(verifiedBadge(result.verified));
  }
  if (trace.outcome === 'success')
    container.append(
      element('p', { class: 'badge low-confidence', role: 'note' }, RECORDED_SUCCESS),
    );
  if (trace.labels && (trace.labels.agent || trace.labels.step !== undefined)) {
    const labels = trace.labels;
    container.append(
      element(
        'p',
        { class: 'label' },
        element('b', {}, labels.byUser ? 'Your label: ' : 'Label in the trace: '),
        labelledAgents(labels),
        ' at ',
        labels.step === undefined
          ? 'step ?'
          : stepLink(labels.step, `step ${labels.step}`, actions),
      ),
    );
    if (match)
      container.append(
        element(
          'p',
          { class: 'matches' },
          matchMark(match.agent, 'agent'),
          ' ',
          matchMark(match.step, 'step'),
        ),
      );
    if (labels.reason) container.append(element('p', { class: 'reason' }, labels.reason));
  }
  if (result) {
    container.append(element('p', { class: 'reason' }, result.reason));
    for (const warning of result.warnings ?? [])
      container.append(element('p', { class: 'warning' }, warning));
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
              mode.code === result.stepMode && result.step !== null
                ? element('span', { class: 'badge at-step' }, `at step ${result.step}`)
                : '',
              element('br', {}),
              element('span', { class: 'definition' }, mode.definition),
              element('br', {}),
              element('span', { class: 'fix' }, `Fix: ${mode.fix}`),
            ),
          );
        container.append(list);
      }
      if (result.agentModes && result.agentModes.length > 0) {
        const byAgent = element('ul', { class: 'agent-modes' });
        for (const entry of result.agentModes)
          byAgent.append(
            element(
              'li',
              {},
              element('b', {}, entry.agent),
              ': ',
              entry.modes
                .map((mode) => `${mode.code} ${mode.name} (${percent(mode.confidence)})`)
                .join(', '),
            ),
          );
        container.append(element('h3', {}, 'Modes by agent'), byAgent);
      }
    }
    const candidates = [...(result.candidates ?? [])].sort(
      (left, right) => right.score - left.score,
    );
    if (candidates.length > 0) {
      const list = element('ol', { class: 'candidates' });
      for (const candidate of candidates)
        list.append(
          element(
            'li',
            {},
            stepLink(candidate.step, `step ${candidate.step} · ${candidate.agent}`, actions),
            ` ${percent(candidate.score)}`,
          ),
        );
      container.append(element('h3', {}, 'Candidate steps'), list);
    }
    const usage = result.usage;
    container.append(
      element(
        'p',
        { class: 'meta' },
        `${result.method}${result.model ? ` · ${result.model}` : ''} · ${usage.calls} calls${usage.costUsd ? ` · ~$${usage.costUsd.toFixed(4)}` : ''} · ${analysis!.milliseconds.toFixed(0)} ms`,
      ),
    );
    const json = element('button', { type: 'button' }, 'Export JSON');
    json.addEventListener('click', () =>
      download(
        `faultline-${analysis!.id}.json`,
        'application/json',
        `${JSON.stringify({ trace: traceName, ...result }, null, 2)}\n`,
      ),
    );
    const markdown = element('button', { type: 'button' }, 'Export Markdown');
    markdown.addEventListener('click', () =>
      download(
        `faultline-${analysis!.id}.md`,
        'text/markdown',
        verdictMarkdown(traceName, trace, analysis!),
      ),
    );
    container.append(element('p', { class: 'exports' }, json, ' ', markdown));
  }
  if (siblings.length > (analysis ? 1 : 0)) {
    const body = element('tbody');
    for (const other of siblings) {
      const current = other.id === analysis?.id;
      const verdict =
        other.result.agent === null ? 'none' : `${other.result.agent} @ ${other.result.step}`;
      body.append(
        element(
          'tr',
          { class: current ? 'current' : '' },
          element(
            'td',
            {},
            current
              ? `${other.method} (shown)`
              : routeLink(`/analyses/${other.id}`, other.method, actions),
          ),
          element('td', {}, verdict),
          element('td', {}, percent(statedConfidence(other.result))),
        ),
      );
    }
    container.append(
      element('h3', {}, 'Compare analyses of this trace'),
      element(
        'table',
        { class: 'compare' },
        element(
          'thead',
          {},
          element(
            'tr',
            {},
            element('th', {}, 'method'),
            element('th', {}, 'verdict'),
            element('th', {}, 'conf.'),
          ),
        ),
        body,
      ),
      element(
        'p',
        { class: 'meta' },
        'Each analysis is marked on the timeline; run another method to add it.',
      ),
    );
  }
  container.append(teachForm(trace, result, actions));
}
