/**
 * The run overview: every step as a slice of one bar, coloured by agent, with marks for the
 * verdict, the candidates, the label, other analyses, a task's suspicious steps and recorded
 * errors. Clicking anywhere on it opens that step. The slices are not focusable (a 2,000-step run would be 2,000 tab stops); the
 * verdict and label marks are buttons, and the keyboard shortcuts reach every step.
 */
import type { Trace } from './api.js';
import { stepConfidence } from './confidence.js';
import { element } from './dom.js';

/** A mark above the bar. */
export interface TimelineMark {
  step: number;
  kind: 'verdict' | 'label' | 'candidate' | 'suspicious' | 'other';
  /** Accessible name and tooltip. */
  title: string;
  /** Short text in the mark (the other analyses' initials). */
  text?: string;
}

/** The rendered timeline. */
export interface TimelineView {
  setMarks(marks: TimelineMark[]): void;
  /** Dims the steps of agents other than `agent` (null: none dimmed). */
  setFilter(agent: string | null): void;
  /** Shows where the reader is. */
  setCurrent(step: number | null): void;
}

const position = (step: number, total: number) => `${((step + 0.5) / total) * 100}%`;

/** Renders the timeline into `container`; `open` is called with a step when one is picked. */
export function renderTimeline(
  container: HTMLElement,
  trace: Trace,
  colourOf: (agent: string) => string,
  errors: readonly number[],
  open: (step: number) => void,
): TimelineView {
  const total = Math.max(trace.steps.length, 1);
  const bar = element('div', { class: 'timeline-bar', 'aria-hidden': 'true' });
  const slices: HTMLElement[] = [];
  for (const step of trace.steps) {
    const slice = element('span', {
      'data-step': String(step.index),
      title: `#${step.index} ${step.agent}`,
    });
    slice.style.background = colourOf(step.agent);
    slices.push(slice);
    bar.append(slice);
  }
  bar.addEventListener('click', (event) => {
    const step = (event.target as HTMLElement).dataset.step;
    if (step !== undefined) open(Number(step));
  });
  const errorRow = element('div', { class: 'timeline-errors', 'aria-hidden': 'true' });
  for (const step of errors) {
    const tick = element('span', { title: `recorded error at step ${step}` });
    tick.style.left = position(step, total);
    errorRow.append(tick);
  }
  // Steps the model itself doubted, where the run logged token log probabilities (none without).
  const doubted = trace.steps.flatMap((step) => {
    const confidence = stepConfidence(step);
    return confidence?.low ? [{ step: step.index, title: confidence.title }] : [];
  });
  const confidenceRow =
    doubted.length === 0
      ? null
      : element('div', { class: 'timeline-confidence', 'aria-hidden': 'true' });
  for (const { step, title } of doubted) {
    const tick = element('span', { title: `low confidence at step ${step}. ${title}` });
    tick.style.left = position(step, total);
    confidenceRow!.append(tick);
  }
  const marks = element('div', { class: 'timeline-marks' });
  const current = element('span', { class: 'timeline-current', 'aria-hidden': 'true' });
  current.hidden = true;
  const legend = element('div', { class: 'timeline-legend' });
  for (const agent of trace.agents) {
    const swatch = element('span', { class: 'swatch' });
    swatch.style.background = colourOf(agent.name);
    legend.append(element('span', {}, swatch, `${agent.name} (${agent.steps})`));
  }
  container.replaceChildren(
    element('div', { class: 'timeline-track' }, marks, bar, errorRow, confidenceRow, current),
    legend,
  );
  container.hidden = false;

  return {
    setMarks(list) {
      marks.replaceChildren();
      // Drawn least important first, so the verdict and the label sit on top.
      const order = { other: 0, suspicious: 1, candidate: 2, label: 3, verdict: 4 } as const;
      for (const mark of [...list].sort((left, right) => order[left.kind] - order[right.kind])) {
        const button = element(
          'button',
          {
            type: 'button',
            class: `mark ${mark.kind}`,
            title: mark.title,
            'aria-label': mark.title,
          },
          mark.text ?? '',
        );
        button.style.left = position(mark.step, total);
        button.addEventListener('click', () => open(mark.step));
        marks.append(button);
      }
    },
    setFilter(agent) {
      trace.steps.forEach((step, index) =>
        slices[index]!.classList.toggle('dim', agent !== null && step.agent !== agent),
      );
    },
    setCurrent(step) {
      current.hidden = step === null;
      if (step !== null) current.style.left = position(step, total);
    },
  };
}
