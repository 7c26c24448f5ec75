/**
 * A task's spectrum as tables (docs/SPECTRUM.md): the units its runs were cut into, most
 * suspicious first, each with its agent, action, key terms, the runs holding it ("in 9 of 10
 * failing and 1 of 8 passing") and its score; and where the failing runs first part from the
 * passing ones.
 */
import type { TaskSpectrum } from './api.js';
import { element, scoreText, table } from './dom.js';

/** Units shown: the most suspicious, those that score at all. */
const SHOWN_UNITS = 20;

/** "in 9 of 10 failing and 1 of 8 passing", as the spectrum counts a unit. */
export const countsText = (
  unit: { failingRuns: number; passingRuns: number },
  runs: TaskSpectrum['runs'],
) =>
  `in ${unit.failingRuns} of ${runs.failing} failing and ${unit.passingRuns} of ${runs.passing} passing`;

/** The units table; units of the failed run studied are marked. */
export function unitTable(spectrum: TaskSpectrum): HTMLElement {
  const studied = new Set(spectrum.failed.steps.map((step) => step.unit));
  const units = spectrum.units.filter((unit) => unit.score > 0).slice(0, SHOWN_UNITS);
  if (units.length === 0)
    return element(
      'p',
      { class: 'meta', id: 'task-units' },
      'No unit recurs more among the failing runs than among the passing ones.',
    );
  const body = element(
    'tbody',
    {},
    ...units.map((unit, rank) =>
      element(
        'tr',
        { class: studied.has(unit.key) ? 'in-studied' : '', 'data-unit': unit.key },
        element('td', {}, String(rank + 1)),
        element('td', {}, unit.agent),
        element('td', {}, unit.action),
        element('td', {}, unit.terms.join(' ') || '—'),
        element('td', {}, countsText(unit, spectrum.runs)),
        element('td', {}, scoreText(unit.score)),
      ),
    ),
  );
  const listed = table(['#', 'agent', 'action', 'key terms', 'runs holding it', 'score'], body);
  listed.id = 'task-units';
  return element(
    'div',
    {},
    listed,
    element(
      'p',
      { class: 'meta' },
      `${units.length} of the ${spectrum.unitCount} units (${spectrum.formula}); bold: the failed run studied holds it.`,
    ),
  );
}

/** Where failing runs first part from passing ones, or nothing when no run passed. */
export function departureList(spectrum: TaskSpectrum): HTMLElement | null {
  if (spectrum.departures.length === 0) return null;
  return element(
    'div',
    {},
    element('h3', {}, 'Where failing runs first part from the passing ones'),
    element(
      'ul',
      { id: 'task-departures' },
      ...spectrum.departures
        .slice(0, 5)
        .map((origin) =>
          element(
            'li',
            {},
            `${origin.agent}, step ${origin.step}: the first departure of ${origin.runs} failing ${origin.runs === 1 ? 'run' : 'runs'} (held by ${origin.failingRuns})`,
          ),
        ),
    ),
  );
}
