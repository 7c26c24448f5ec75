/**
 * The failed run studied in a task's view: its steps in order, those carrying a suspicious unit
 * marked with their score and counts, the most suspicious outlined (the spectrum's verdict), and a
 * link to the run in the Analyse view that marks the same steps there, most suspicious first. Step
 * text is set as text, never as markup (dom.ts).
 */
import type { Step, TaskSpectrum, Trace } from './api.js';
import { element, scoreText } from './dom.js';
import { withSuspicious } from './routes.js';
import { countsText } from './task-units.js';

/** Characters of a step shown. */
const STEP_TEXT = 400;

type Scored = TaskSpectrum['failed']['steps'][number];

/** One step (at `position` in the run), marked when its unit scores. */
function stepCard(
  step: Step,
  position: number,
  scored: Scored | undefined,
  top: number,
  spectrum: TaskSpectrum,
) {
  const suspicious = scored !== undefined && scored.score > 0;
  const text =
    step.content.length > STEP_TEXT ? `${step.content.slice(0, STEP_TEXT)}…` : step.content;
  const calls = (step.toolCalls ?? []).map((call) => `→ ${call.name}(${call.arguments})`);
  return element(
    'article',
    {
      class: `step role-${step.role}${suspicious ? ' suspicious' : ''}${suspicious && scored.score >= top ? ' top' : ''}`,
      'data-step': String(position),
      'aria-label': `step ${step.index}, ${step.agent}${suspicious ? ', suspicious' : ''}`,
    },
    element(
      'div',
      { class: 'step-head' },
      element('span', { class: 'index' }, `#${step.index}`),
      element('span', { class: 'agent' }, step.agent),
      element('span', { class: 'role' }, step.role),
      suspicious
        ? element(
            'span',
            { class: 'badge suspicion' },
            `score ${scoreText(scored.score)} · ${countsText(scored, spectrum.runs)}`,
          )
        : null,
    ),
    text ? element('pre', {}, text) : null,
    calls.length > 0 ? element('pre', { class: 'tool-calls' }, calls.join('\n')) : null,
  );
}

/** The studied run's steps that carry a scoring unit, most suspicious first (as the spectrum lists them). */
export const suspiciousSteps = (spectrum: TaskSpectrum) =>
  spectrum.failed.steps.filter((step) => step.score > 0).map((step) => step.step);

/** The studied failed run's steps with the suspicious ones marked. */
export function studiedSteps(spectrum: TaskSpectrum, trace: Trace): HTMLElement {
  const scored = new Map(spectrum.failed.steps.map((step) => [step.step, step]));
  const top = Math.max(0, ...spectrum.failed.steps.map((step) => step.score));
  const suspicious = suspiciousSteps(spectrum);
  return element(
    'div',
    {},
    element(
      'p',
      { class: 'meta' },
      element(
        'a',
        {
          href: withSuspicious(
            `/traces/${encodeURIComponent(spectrum.failed.traceId)}`,
            suspicious,
          ),
          'data-route': '',
        },
        `Open ${spectrum.failed.runId} in Analyse`,
      ),
      ` · ${suspicious.length} of its ${trace.steps.length} steps carry a unit that sets failing runs apart; the outlined one scores highest.`,
    ),
    element(
      'div',
      { id: 'task-steps' },
      // The spectrum names steps by their position in the run.
      ...trace.steps.map((step, position) =>
        stepCard(step, position, scored.get(position), top, spectrum),
      ),
    ),
  );
}
