/** The verdict panel's failure modes (MAST): each with its definition and fix, then by agent. */
import type { Attribution } from './api.js';
import { element, percent } from './dom.js';

/** Appends the modes the result names, if the method names any. */
export function appendModes(container: HTMLElement, result: Attribution): void {
  if (!result.modes) return;
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
