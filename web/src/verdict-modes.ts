/** The verdict panel's failure modes (MAST): each with its definition and fix, then by agent. */
import type { Attribution } from './api.js';
import { element, percent } from './dom.js';

/** Most modes listed, per run and per agent. */
const SHOWN = 3;

/** Appends the modes the result names, if the method names any. */
export function appendModes(container: HTMLElement, result: Attribution): void {
  if (!result.modes) return;
  container.append(element('h3', {}, 'Failure modes (MAST)'));
  // The modes the model marks shown (at most three, each named better than a constant answer),
  // the others under "more"; a method that marks none has its first three listed.
  const marked = result.modes.some((mode) => mode.shown !== undefined);
  const listed = (marked ? result.modes.filter((mode) => mode.shown) : result.modes).slice(
    0,
    SHOWN,
  );
  const hidden = result.modes.filter((mode) => !listed.includes(mode));
  if (result.modes.length === 0)
    container.append(element('p', { class: 'meta' }, 'No failure mode is named.'));
  else {
    const list = element('ul', { class: 'modes' });
    if (listed.length === 0)
      container.append(element('p', { class: 'meta' }, 'No mode stands out in this run.'));
    for (const mode of listed)
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
    if (hidden.length > 0)
      container.append(
        element(
          'details',
          {},
          element('summary', {}, `${hidden.length} more, not above what is usual`),
          hidden
            .map((mode) => `${mode.code} ${mode.name} (${percent(mode.confidence)})`)
            .join(', '),
        ),
      );
  }
  if (result.agentModes && result.agentModes.length > 0) {
    const byAgent = element('ul', { class: 'agent-modes' });
    for (const entry of result.agentModes) {
      const marked = entry.modes.some((mode) => mode.shown !== undefined);
      const modes = (marked ? entry.modes.filter((mode) => mode.shown) : entry.modes).slice(
        0,
        SHOWN,
      );
      if (modes.length === 0) continue;
      byAgent.append(
        element(
          'li',
          {},
          element('b', {}, entry.agent),
          ': ',
          modes.map((mode) => `${mode.code} ${mode.name} (${percent(mode.confidence)})`).join(', '),
        ),
      );
    }
    if (byAgent.childElementCount > 0)
      container.append(element('h3', {}, 'Modes by agent'), byAgent);
  }
}
