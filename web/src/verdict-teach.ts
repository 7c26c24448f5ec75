/**
 * "Teach it": the form that stores a person's own verdict as the trace's label (an agent and a
 * step, the verdict confirmed, or the label cleared).
 */
import type { Attribution, Trace } from './api.js';
import { element } from './dom.js';
import type { VerdictActions } from './verdict-links.js';

/** The collapsible form; its buttons call actions.teach. */
export function teachForm(
  trace: Trace,
  result: Attribution | null,
  actions: VerdictActions,
): HTMLElement {
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
